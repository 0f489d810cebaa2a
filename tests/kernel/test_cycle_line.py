"""The live display's line for a finished cycle says what was decided and why, so a rejected candidate never reads as
accepted."""

from __future__ import annotations

from agent_evolve.engine.gate import GateDecision, GateOutcome
from agent_evolve.engine.run_metrics import cycle_line
from agent_evolve.engine.stepping import StepOutcome

STEP = StepOutcome("ok", True, "demonstrations 17, 21")


def test_a_rejected_candidate_names_the_gate_reason_and_the_kept_score() -> None:
    tie = GateOutcome(GateDecision("reject", 0.9, 0.9, 0.0, 0.0, "tie at +0.0000, ties rejected"))
    assert cycle_line(STEP, tie, 12, 0.917) == (
        "rejected: demonstrations 17, 21; the gate: tie at +0.0000, ties rejected; holdout score 0.917 kept")


def test_an_accepted_candidate_shows_the_new_score() -> None:
    win = GateOutcome(GateDecision("accept", 1.0, 0.9, 0.1, 0.0, "better"), accepted_score=1.0)
    assert cycle_line(STEP, win, 12, 1.0) == "accepted: demonstrations 17, 21; holdout score 1.000"


def test_a_failed_gate_and_a_step_without_edits_say_so_and_train_runs_name_train() -> None:
    assert cycle_line(STEP, GateOutcome(failure="holdout scoring crashed"), 12, 0.5) == (
        "failed: holdout scoring crashed; holdout score 0.500 kept")
    assert cycle_line(StepOutcome("ok", False, ""), GateOutcome(), 0, 0.5) == (
        "unchanged: no edit; train score 0.500 kept")
    assert cycle_line(StepOutcome("out_of_budget", False, "budget spent"), GateOutcome(), 12, 0.5) == (
        "out of budget: budget spent; holdout score 0.500 kept")
