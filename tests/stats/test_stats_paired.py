"""The paired per-task table and the lift summary built from it."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_evolve.stats import PairedTable, lift_summary, mean


def test_pairs_shared_tasks_and_counts_wins_losses_ties() -> None:
    table = PairedTable.pair({"a": 0.0, "b": 1.0, "c": 0.5, "only_base": 1.0},
                             {"c": 0.5, "b": 0.0, "a": 1.0, "only_cand": 0.0})
    assert [(r.task_id, r.baseline, r.candidate) for r in table.rows] == [("a", 0.0, 1.0), ("b", 1.0, 0.0),
                                                                          ("c", 0.5, 0.5)]
    assert (table.wins, table.losses, table.ties, table.n) == (1, 1, 1, 3)
    assert table.excluded == ("only_base", "only_cand")
    assert table.mean_difference == 0.0 and table.baseline_mean == table.candidate_mean == 0.5


def test_differences_within_the_tolerance_are_ties() -> None:
    table = PairedTable.pair({"a": 0.1 + 0.2}, {"a": 0.3})
    assert (table.wins, table.losses, table.ties) == (0, 0, 1)


def test_a_non_finite_score_names_the_task_and_the_arm() -> None:
    with pytest.raises(ValueError, match=r"task 'x': candidate score nan"):
        PairedTable.pair({"x": 1.0}, {"x": math.nan})


def test_mean_is_order_independent_and_refuses_nothing() -> None:
    values = [0.1] * 10 + [1e16, -1e16]
    assert mean(values) == mean(list(reversed(values))) == pytest.approx(1.0 / 12)
    with pytest.raises(ValueError):
        mean([])


def test_lift_summary_is_json_and_reports_the_protocol_numbers() -> None:
    base = {f"t{i}": 0.0 for i in range(10)}
    cand = {f"t{i}": 1.0 if i < 8 else 0.0 for i in range(10)}
    summary = json.loads(json.dumps(lift_summary(PairedTable.pair(base, cand), resamples=1000)))
    assert summary["n"] == 10 and summary["wins"] == 8 and summary["losses"] == 0 and summary["ties"] == 2
    assert summary["mean_difference"] == pytest.approx(0.8)
    assert summary["p_value"] == 0.0078125
    assert 0.0 < summary["ci_low"] <= 0.8 <= summary["ci_high"] <= 1.0 and summary["ci_level"] == 0.95


@given(st.dictionaries(st.sampled_from("abcdefgh"), st.floats(0, 1)),
       st.dictionaries(st.sampled_from("abcdefgh"), st.floats(0, 1)))
def test_wins_losses_ties_partition_the_shared_tasks(base: dict[str, float], cand: dict[str, float]) -> None:
    table = PairedTable.pair(base, cand)
    assert table.wins + table.losses + table.ties == table.n == len(set(base) & set(cand))
    assert set(table.excluded) == set(base) ^ set(cand)
    swapped = PairedTable.pair(cand, base)
    assert (swapped.wins, swapped.losses) == (table.losses, table.wins)
