"""The task-by-task gate: acceptance strategies, per-task table, repeats, excluded tasks, the decision record."""

from __future__ import annotations

import json

import pytest

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.acceptance import (
    BestSoFar,
    MinImprovement,
    PairedSignTest,
    StrictImprovement,
    strategy_from_config,
)
from agent_evolve.engine.gate import GateDecision, GateOutcome, decide, no_holdout_decision
from agent_evolve.errors import ConfigError, is_fatal


def scores(*values: float) -> dict[str, list[float]]:
    """One score per task t0, t1, ...: the shape `decide` takes with gate_repeats = 1."""
    return {f"t{i}": [v] for i, v in enumerate(values)}


def test_decision_keeps_the_per_task_table_and_the_statistic() -> None:
    d = decide({"a": [1.0, 0.0], "b": [1.0, 1.0]}, {"a": [0.0], "b": [1.0]}, StrictImprovement())
    assert d.per_task == (
        {"task_id": "a", "candidate": 0.5, "incumbent": 0.0, "repeats": 2, "incumbent_repeats": 1},
        {"task_id": "b", "candidate": 1.0, "incumbent": 1.0, "repeats": 2, "incumbent_repeats": 1},
    )
    assert d.statistic == {"name": "mean_difference", "value": 0.25, "p_value": None, "wins": 1, "losses": 0,
                           "ties": 1, "n": 2}
    assert (d.candidate_score, d.incumbent_score, d.delta, d.strategy) == (0.75, 0.5, 0.25, "strict")
    assert d.accepted


def test_repeats_are_averaged_before_comparing() -> None:
    candidate = {"t0": [1.0, 0.0, 0.0], "t1": [1.0, 1.0, 0.0]}  # means 1/3 and 2/3
    incumbent = {"t0": [0.0, 1.0, 0.0], "t1": [0.0, 1.0, 1.0]}  # the same means, other draws
    d = decide(candidate, incumbent, StrictImprovement())
    assert d.delta == pytest.approx(0.0) and d.statistic["ties"] == 2
    assert not d.accepted and "tie" in d.reason
    assert decide(candidate, incumbent, StrictImprovement(accept_ties=True)).accepted


def test_paired_accepts_a_clear_win_on_8_tasks() -> None:
    d = decide(scores(1, 1, 1, 1, 1, 1, 1, 1), scores(0, 0, 0, 0, 0, 0, 0, 1), PairedSignTest(alpha=0.05))
    assert d.accepted and d.strategy == "paired"
    assert (d.statistic["wins"], d.statistic["losses"], d.statistic["ties"]) == (7, 0, 1)
    assert d.statistic["p_value"] == pytest.approx(0.015625)


def test_paired_rejects_a_one_task_fluke_that_strict_would_keep() -> None:
    candidate, incumbent = scores(1, 0, 0, 1, 0, 1, 0, 0), scores(0, 0, 0, 1, 0, 1, 0, 0)
    fluke = decide(candidate, incumbent, PairedSignTest(alpha=0.05))
    assert not fluke.accepted and fluke.statistic["p_value"] == 1.0 and "chance" in fluke.reason
    assert decide(candidate, incumbent, StrictImprovement()).accepted


def test_paired_rejects_more_losses_than_wins_and_a_strict_alpha() -> None:
    assert "no more wins" in decide(scores(0, 0, 1), scores(1, 1, 0), PairedSignTest()).reason
    seven = (scores(1, 1, 1, 1, 1, 1, 1, 1), scores(0, 0, 0, 0, 0, 0, 0, 1))
    assert not decide(*seven, PairedSignTest(alpha=0.01)).accepted


def test_strict_boundaries() -> None:
    assert decide(scores(0.6), scores(0.5), StrictImprovement()).accepted
    assert not decide(scores(0.4), scores(0.5), StrictImprovement()).accepted
    assert not decide(scores(0.5), scores(0.5), StrictImprovement()).accepted
    assert decide(scores(0.5), scores(0.5), StrictImprovement(accept_ties=True)).accepted
    assert not decide(scores(0.4), scores(0.5), StrictImprovement(accept_ties=True)).accepted


def test_min_improvement_is_a_margin_with_ties_at_the_margin() -> None:
    strategy = MinImprovement(0.1)
    assert not decide(scores(0.55), scores(0.5), strategy).accepted
    assert decide(scores(0.65), scores(0.5), strategy).accepted
    at_margin = decide(scores(0.6), scores(0.5), strategy)
    assert not at_margin.accepted and "tie" in at_margin.reason and at_margin.min_improvement == 0.1
    assert decide(scores(0.6), scores(0.5), MinImprovement(0.1, accept_ties=True)).accepted


def test_best_so_far_rejects_beating_only_the_incumbent() -> None:
    candidate, incumbent = scores(1, 1, 0, 0), scores(1, 0, 0, 0)  # 0.5 against 0.25
    assert decide(candidate, incumbent, StrictImprovement(), best_so_far=0.75).accepted
    d = decide(candidate, incumbent, BestSoFar(), best_so_far=0.75)
    assert not d.accepted and d.statistic["name"] == "difference_to_best"
    assert d.statistic["value"] == pytest.approx(-0.25) and d.delta == pytest.approx(0.25)
    assert decide(candidate, incumbent, BestSoFar(), best_so_far=0.4).accepted
    assert decide(candidate, incumbent, BestSoFar(), best_so_far=None).accepted


def test_tasks_missing_on_either_side_are_excluded_not_losses() -> None:
    candidate = {"t0": [1.0], "t1": [1.0], "t2": [], "t3": [0.0]}
    incumbent = {"t0": [0.0], "t1": [0.0], "t2": [1.0], "t4": [1.0]}
    d = decide(candidate, incumbent, StrictImprovement())
    assert d.excluded == ("t2", "t3", "t4")
    assert [row["task_id"] for row in d.per_task] == ["t0", "t1"]
    assert d.accepted and d.candidate_score == 1.0 and d.statistic["n"] == 2


def test_no_shared_task_is_a_rejection_that_says_so() -> None:
    d = decide({"a": [1.0]}, {"b": [0.0]}, StrictImprovement())
    assert not d.accepted and "no holdout task" in d.reason and d.excluded == ("a", "b")


def test_a_non_finite_score_names_the_task() -> None:
    with pytest.raises(ValueError, match="'t0'"):
        decide({"t0": [float("nan")]}, {"t0": [1.0]}, StrictImprovement())


def test_the_decision_round_trips_through_json() -> None:
    d = decide(scores(1, 1, 0), scores(0, 1, 0), PairedSignTest())
    data = json.loads(json.dumps(d.to_dict()))
    assert GateDecision.from_dict(data) == d
    assert GateDecision(**data).per_task == list(d.per_task)  # plain keyword loading still works


def test_an_old_journal_decision_still_loads() -> None:
    old = {"action": "accept", "candidate_score": 0.75, "incumbent_score": 0.5, "delta": 0.25,
           "min_improvement": 0.0, "reason": "improved by +0.2500 (> 0.0000)"}
    for loaded in (GateDecision(**old), GateDecision.from_dict(old)):
        assert loaded.accepted and loaded.per_task == () and loaded.excluded == () and loaded.statistic == {}
    assert GateDecision.from_dict(old) == GateDecision("accept", 0.75, 0.5, 0.25, 0.0, "improved by +0.2500 (> 0.0000)")


def test_no_holdout_decision_keeps_the_mutation_and_says_why() -> None:
    d = no_holdout_decision()
    assert d.accepted and d.strategy == "no_holdout" and "no holdout" in d.reason
    assert GateDecision.from_dict(json.loads(json.dumps(d.to_dict()))) == d


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ({}, StrictImprovement()),
        ({"gate_accept_ties": True}, StrictImprovement(accept_ties=True)),
        ({"gate_min_improvement": 0.05}, MinImprovement(0.05)),
        ({"gate_strategy": "min_improvement", "gate_min_improvement": 0.1}, MinImprovement(0.1)),
        ({"gate_strategy": "paired", "gate_alpha": 0.01}, PairedSignTest(0.01)),
        ({"gate_strategy": "best_so_far", "gate_accept_ties": True}, BestSoFar(accept_ties=True)),
    ],
)
def test_strategy_from_config(keys: dict, expected: object) -> None:
    assert strategy_from_config(EvolveConfig(**keys)) == expected


def test_an_unknown_strategy_names_the_key_and_the_choices() -> None:
    with pytest.raises(ConfigError, match="gate_strategy.*strict, min_improvement, paired, best_so_far.*'bayes'") as e:
        strategy_from_config(EvolveConfig(gate_strategy="bayes"))
    assert is_fatal(e.value)


def test_the_gate_outcome_keeps_its_journaled_shape() -> None:
    d = decide(scores(1, 1, 0), scores(0, 1, 0), StrictImprovement())
    outcome = GateOutcome(d, accepted_score=d.candidate_score)
    data = outcome.to_dict()
    assert list(data) == ["decision", "failure", "accepted_score", "accepted_count"]
    assert data["decision"]["accepted"] is True and "per_task" not in data["decision"]
    entry = {"cycle": 3, "phase": "gated", **json.loads(json.dumps(data))}
    assert GateOutcome.from_dict(entry).to_dict() == data and GateOutcome.from_dict(entry).accepted
    failed = GateOutcome(failure="gate (candidate): 3 of 4 holdout attempts failed")
    assert failed.to_dict() == {"decision": None, "failure": failed.failure, "accepted_score": None,
                                "accepted_count": 0}
    assert not failed.accepted and GateOutcome.from_dict(failed.to_dict()) == failed
