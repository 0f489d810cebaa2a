"""SkillOpt's pure parts: the learning-rate schedule, the strict validation gate, bounded skill edits."""

from __future__ import annotations

import pytest

from agent_evolve.algorithms.skillopt.edits import (
    LearningRate,
    SkillEdit,
    SkillEditError,
    apply_edits,
    bound,
    validation_gate,
)
from agent_evolve.errors import ConfigError


def test_the_rate_starts_at_4_and_stays_there_when_the_step_count_is_unknown() -> None:
    assert [LearningRate().at(s) for s in (1, 5, 50)] == [4, 4, 4]


def test_cosine_decays_from_max_to_min_over_the_known_steps() -> None:
    rates = [LearningRate(4, 2, 8).at(s) for s in range(1, 11)]
    assert rates[0] == 4 and rates[7] == rates[9] == 2
    assert rates == sorted(rates, reverse=True)


@pytest.mark.parametrize("mode", ["constant", "linear", "cosine"])
@pytest.mark.parametrize("shape", [(4, 2, 8), (8, 2, 20), (6, 1, 3), (4, 4, 5), (5, 2, 1)])
def test_schedule_matches_the_skillopt_library(mode: str, shape: tuple[int, int, int]) -> None:
    scheduler = pytest.importorskip("skillopt.optimizer.scheduler")
    theirs = scheduler.build_scheduler(mode, *shape)
    assert [LearningRate(*shape, mode=mode).at(s) for s in range(1, 25)] == [theirs.get_lr(s) for s in range(1, 25)]


def test_bad_schedules_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="lr_schedule"):
        LearningRate(mode="step")
    with pytest.raises(ConfigError, match="min_lr"):
        LearningRate(2, 4)


def test_gate_keeps_only_a_strict_improvement() -> None:
    assert validation_gate(0.6, 0.5, 0.7, 3, 9).action == "accept"
    new_best = validation_gate(0.8, 0.5, 0.7, 3, 9)
    assert new_best.action == "accept_new_best" and (new_best.best_score, new_best.best_step) == (0.8, 9)
    tie = validation_gate(0.5, 0.5, 0.5, 3, 9)
    assert not tie.accepted and (tie.current_score, tie.best_step) == (0.5, 3)
    assert validation_gate(0.4, 0.5, 0.5, 3, 9).action == "reject"


@pytest.mark.parametrize("cand,cur,best", [(0.6, 0.5, 0.7), (0.8, 0.5, 0.7), (0.5, 0.5, 0.5), (0.4, 0.5, 0.5),
                                           (0.0, 0.0, 0.0), (1.0, 0.0, 1.0)])
def test_gate_matches_the_skillopt_library(cand: float, cur: float, best: float) -> None:
    gate = pytest.importorskip("skillopt.evaluation.gate")
    theirs = gate.evaluate_gate("new", cand, "cur", cur, "best", best, 3, 9)
    ours = validation_gate(cand, cur, best, 3, 9)
    assert (ours.action, ours.current_score, ours.best_score, ours.best_step) == (
        theirs.action, theirs.current_score, theirs.best_score, theirs.best_step)


def test_at_most_the_learning_rate_of_edits_apply_in_priority_order() -> None:
    edits = [SkillEdit("add", f"rule {i}") for i in range(6)]
    result = apply_edits("Intro.\n", edits, 4)
    assert [e.content for e in result.applied] == ["rule 0", "rule 1", "rule 2", "rule 3"]
    assert "rule 4" not in result.body and "rule 3" in result.body
    assert bound([edits[0], edits[0], edits[1]], 2) == [edits[0], edits[1]]


def test_add_delete_and_replace_change_one_document() -> None:
    body = "Check units.\nShow work.\n"
    result = apply_edits(body, [SkillEdit("replace", "Verify units twice.", "Check units."),
                                SkillEdit("delete", target="Show work.\n"),
                                SkillEdit("add", "Round at the end.", "Verify units twice.")], 4)
    assert result.body == "Verify units twice.\nRound at the end.\n"
    assert len(result.applied) == 3


def test_an_edit_whose_target_is_missing_is_skipped_with_its_reason() -> None:
    result = apply_edits("Check units.\n", [SkillEdit("delete", target="Never.")], 4)
    assert result.body == "Check units.\n" and result.skipped[0][1].startswith("target not found")


@pytest.mark.parametrize(
    "data,problem",
    [({"op": "rewrite", "content": "x"}, "op"), ({"op": "delete"}, "target"), ({"op": "add"}, "content"),
     ({"op": "add", "content": "x" * 900}, "at most"), ("add x", "object")],
)
def test_malformed_edits_are_refused_with_the_problem(data: object, problem: str) -> None:
    with pytest.raises(SkillEditError, match=problem):
        SkillEdit.from_dict(data)
