"""Edit rates: how often an engine's proposed edits were valid and how often its gated candidates won, summed from
the cycle records, shown by the run summary, the HTML report and lift.md."""

from __future__ import annotations

from agent_evolve.engine.run_metrics import describe_edit_rates, edit_rates
from agent_evolve.lift.report import edit_lines


def record(outcome: str, edits: dict[str, int] | None) -> dict:
    step = {} if edits is None else {"edits": edits}
    return {"metadata": {"outcome": outcome, "step_metadata": step}}


def test_rates_sum_the_cycles_whose_step_reported_edits() -> None:
    records = [record("accepted", {"proposed": 3, "valid": 1}), record("rejected", {"proposed": 2, "valid": 2}),
               record("failed", {"proposed": 1, "valid": 0}), record("accepted", None)]
    rates = edit_rates(records)
    assert rates == {"proposed": 6, "valid": 3, "shell": 0, "gated": 2, "accepted": 1}
    assert describe_edit_rates(rates) == ("3 of 6 proposed edits valid (50%); "
                                          "1 of 2 gated candidates accepted (50%)")


def test_files_the_engines_shell_changed_are_counted_beside_the_structured_edits() -> None:
    rates = edit_rates([record("rejected", {"proposed": 0, "valid": 0, "shell": 1}),
                        record("rejected", {"proposed": 1, "valid": 1, "shell": 2})])
    assert rates == {"proposed": 1, "valid": 1, "shell": 3, "gated": 2, "accepted": 0}
    assert describe_edit_rates(rates) == ("1 of 1 proposed edits valid (100%); 3 files changed by shell commands; "
                                          "0 of 2 gated candidates accepted (0%)")


def test_engines_that_report_no_edits_have_no_rates() -> None:
    assert edit_rates([record("accepted", None), record("unchanged", None)]) == {}
    assert describe_edit_rates({"proposed": 0, "valid": 0, "gated": 0, "accepted": 0}) == (
        "0 of 0 proposed edits valid; 0 of 0 gated candidates accepted")


def test_lift_md_shows_the_rates_per_seed_and_in_all() -> None:
    rows = [{"seed": 0, "edits": {"proposed": 4, "valid": 3, "gated": 2, "accepted": 1}},
            {"seed": 1, "edits": {"proposed": 2, "valid": 1, "gated": 1, "accepted": 0}}]
    line = edit_lines(rows)[0]
    assert line.startswith("Engine edits, all seeds: 4 of 6 proposed edits valid (67%); 1 of 3 gated")
    assert "seed 1: 1 of 2 proposed edits valid (50%)" in line
    assert edit_lines([{"seed": 0, "edits": {}}]) == []
