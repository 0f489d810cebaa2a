"""Ratchet's pure decisions on the paper's boundary cases: credit, retirement, cap, rollback, canonical, guards."""

from __future__ import annotations

import pytest

from agent_evolve.algorithms.ratchet.capsules import Failure, canonical_map, clusters, nearest
from agent_evolve.algorithms.ratchet.curator import (RollbackState, SkillTally, credit, evictions, retirement,
                                                      rollback_check)
from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.algorithms.ratchet.records import Capsule, Decision
from agent_evolve.algorithms.ratchet.synthesizer import draft_tally, duplicate_feedback
from agent_evolve.errors import ConfigError


def test_contribution_is_successes_minus_failures_over_routed_trials() -> None:
    assert SkillTally("s", 100, 30, 10).contribution == pytest.approx(0.20)
    assert SkillTally("s", 0, 0, 0).contribution == 0.0
    assert SkillTally("s", trials=8, successes=1, failures=3).contribution == pytest.approx(-0.25)


def test_the_document_credits_the_grade_whatever_the_critic_says() -> None:
    for label in ("HELPED", "HURT", "NEUTRAL", "INAPPLICABLE"):
        assert credit(True, label) == 1 and credit(False, label) == -1


def test_critic_weighting_never_turns_a_graded_failure_into_a_success() -> None:
    assert credit(True, "HELPED", "critic") == 1
    assert credit(False, "HELPED", "critic") == 0
    assert credit(False, "HURT", "critic") == -1
    assert credit(True, "HURT", "critic") == 0
    assert credit(False, "NEUTRAL", "critic") == credit(True, "INAPPLICABLE", "critic") == 0


def _actions(stats: list[SkillTally], min_trials: int = 100, threshold: float = -0.10) -> dict[str, str]:
    return {d.name: d.action for d in retirement(stats, min_trials, threshold)}


def test_retirement_needs_100_trials_and_minus_010_exactly_retires() -> None:
    stats = [
        SkillTally("ninety-nine", trials=99, successes=0, failures=60),
        SkillTally("hundred-exact", trials=100, successes=45, failures=55),
        SkillTally("hundred-above", trials=100, successes=46, failures=55),
        SkillTally("locked", trials=200, successes=0, failures=200, do_not_retire=True),
    ]
    assert stats[1].contribution == pytest.approx(-0.10)
    assert _actions(stats) == {"ninety-nine": "keep", "hundred-exact": "retire", "hundred-above": "keep",
                               "locked": "protected"}
    locked = next(d for d in retirement(stats, 100, -0.10) if d.name == "locked")
    assert locked.contribution == -1.0 and "do_not_retire" in locked.reason


def test_harsh_retirement_arm_retires_earlier() -> None:
    stats = [SkillTally("s", trials=20, successes=2, failures=2)]
    assert _actions(stats) == {"s": "keep"}
    assert _actions(stats, min_trials=20, threshold=0.0) == {"s": "retire"}


def test_cap_evicts_the_lowest_contribution_and_never_a_do_not_retire_skill() -> None:
    active = [
        SkillTally("good", 10, 8, 0), SkillTally("bad", 10, 0, 9, do_not_retire=True),
        SkillTally("meh", 10, 2, 3), SkillTally("worse", 10, 1, 6),
    ]
    decided, fits = evictions(active, cap=4, incoming=2)
    assert [d.name for d in decided] == ["worse", "meh"] and fits == 2
    assert evictions(active, cap=6, incoming=2) == ([], 2)
    locked = [SkillTally("a", 5, 0, 5, do_not_retire=True), SkillTally("b", 5, 0, 5, do_not_retire=True)]
    decided, fits = evictions(locked, cap=2, incoming=1)
    assert fits == 0 and {d.action for d in decided} == {"protected"} and {d.name for d in decided} == {"a", "b"}


def test_rollback_fires_on_the_fifth_regressed_round_and_a_recovery_resets() -> None:
    state = rollback_check(RollbackState(), 0, 0.60, 0.10, 5).state
    for round_ in range(1, 5):
        decision = rollback_check(state, round_, 0.40, 0.10, 5)
        assert not decision.restore
        state = decision.state
    assert state.regressed == 4
    fired = rollback_check(state, 5, 0.40, 0.10, 5)
    assert fired.restore and fired.restore_round == 0 and fired.state.regressed == 0
    recovered = rollback_check(state, 5, 0.55, 0.10, 5)
    assert not recovered.restore and recovered.state.regressed == 0
    again = rollback_check(recovered.state, 6, 0.40, 0.10, 5)
    assert not again.restore and again.state.regressed == 1


def test_rollback_boundary_exactly_010_below_is_not_a_regression() -> None:
    state = RollbackState(best_score=0.5, best_round=2, regressed=4)
    assert not rollback_check(state, 7, 0.4, 0.10, 5).restore
    assert rollback_check(state, 7, 0.39, 0.10, 5).restore
    best = rollback_check(state, 7, 0.7, 0.10, 5)
    assert best.state == RollbackState(0.7, 7, 0)


def test_canonicalisation_joins_close_patterns_transitively() -> None:
    patterns = ["Off by one.", "off by one", "off-by-one loop", "wrong type", "off-by-one index"]
    vectors = {"off by one": [1.0, 0.0], "off-by-one loop": [0.9, 0.44], "wrong type": [0.0, 1.0],
               "off-by-one index": [0.7, 0.72]}  # a~b (0.90), b~d (0.93), a~d only 0.70
    embedded: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        embedded.append(list(texts))
        return [vectors[t] for t in texts]

    mapping = canonical_map(patterns, embed, 0.85)  # type: ignore[arg-type]
    assert embedded == [["off by one", "off-by-one loop", "wrong type", "off-by-one index"]], "distinct, in order"
    assert mapping == {"off by one": "off by one", "off-by-one loop": "off by one", "wrong type": "wrong type",
                       "off-by-one index": "off by one"}
    assert canonical_map(patterns, None, 0.85)["off-by-one loop"] == "off-by-one loop"
    assert canonical_map(["", " "], embed, 0.85) == {} and len(embedded) == 1, "nothing to embed, no call"


def test_clusters_keep_groups_of_at_least_three() -> None:
    failed = Capsule(1, "t", "train", "p", "o", 0.0, False, None, "{}")
    failures = [Failure(i, failed, p) for i, p in enumerate(["a", "a", "b", "A.", "b", "c"])]
    found = clusters(failures, {"a": "a", "b": "b", "c": "c"}, 3)
    assert [(c.pattern, c.size) for c in found] == [("a", 3)]
    merged = clusters(failures, {"a": "a", "b": "a", "c": "c"}, 3)
    assert [(c.pattern, c.size) for c in merged] == [("a", 5)]


def test_cover_guard_and_dedup_name_the_closest_skill_at_085() -> None:
    bank = {"loops": [1.0, 0.0], "types": [0.0, 1.0], "near-loops": [0.86, 0.51]}
    assert nearest([1.0, 0.0], bank, 0.85) == ("loops", 1.0)
    assert nearest([0.5, -0.87], bank, 0.85) is None
    found = nearest([0.85, 0.52678], {"loops": [1.0, 0.0]}, 0.85)
    assert found is not None and found[0] == "loops" and found[1] == pytest.approx(0.85, abs=1e-3)
    assert nearest([0.8, 0.6], {"loops": [1.0, 0.0]}, 0.85) is None
    assert "'loops'" in duplicate_feedback("loops", 0.9)


def test_settings_defaults_and_clear_errors() -> None:
    s = RatchetSettings()
    assert (s.full_bank_limit, s.bank_cap, s.retire_min_trials, s.retire_threshold, s.meta_every) == (20, 50, 100,
                                                                                                     -0.10, 0)
    assert RatchetSettings.from_params({"bank_cap": 100}).bank_cap == 100
    assert RatchetSettings.from_params(s.to_dict()) == s, "every key has a rule that its default passes"
    with pytest.raises(ConfigError, match="'bank_cap' must be a positive integer, got 'x'"):
        RatchetSettings.from_params({"bank_cap": "x"})
    with pytest.raises(ConfigError, match="unknown Ratchet keys.*bank_size"):
        RatchetSettings.from_params({"bank_size": 3})
    with pytest.raises(ConfigError, match="'routing' must be one of llm, retrieval, none"):
        RatchetSettings.from_params({"routing": "random"})
    with pytest.raises(ConfigError, match="'canonical_threshold' must be a cosine"):
        RatchetSettings.from_params({"canonical_threshold": 1.5})
    with pytest.raises(ConfigError, match="'no_synth' must be true or false"):
        RatchetSettings.from_params({"no_synth": 1})
    for unhashable in (["minilm"], {"name": "minilm"}):  # YAML gives lists and mappings: a ConfigError, too
        with pytest.raises(ConfigError, match="'embedder' must be one of hashing, minilm"):
            RatchetSettings.from_params({"embedder": unhashable})


def test_draft_tally_counts_every_draft_asked_for_and_those_that_became_skills() -> None:
    decisions = [Decision(1, "synth_failed", "p", {"attempt": 1, "error": "bad json"}),
                 Decision(1, "over_budget", "s", {"attempt": 1}), Decision(1, "dedup", "s", {"attempt": 2}),
                 Decision(1, "synth", "s", {"attempt": 3}), Decision(1, "cover_guard", "q", {"skill": "k"}),
                 Decision(1, "synth_failed", "r", {"error": "no usable draft in 3 attempts"})]
    assert draft_tally(decisions) == {"proposed": 4, "valid": 1}
