"""Pure decisions of the loop: the gate, holdout carving and the batch cursor."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_evolve.engine.acceptance import MinImprovement, StrictImprovement
from agent_evolve.engine.gate import GateDecision, decide
from agent_evolve.engine.tasks import TaskPlan, next_batch, plan_tasks
from agent_evolve.errors import ConfigError


def gate(candidate: float, incumbent: float, *, min_improvement: float = 0.0,
         accept_ties: bool = False) -> GateDecision:
    """The gate on one holdout task scored `candidate` and `incumbent`, under the strategy the config would pick."""
    strategy = MinImprovement(min_improvement, accept_ties) if min_improvement > 0 else StrictImprovement(accept_ties)
    return decide({"t0": [candidate]}, {"t0": [incumbent]}, strategy)


def test_gate_accepts_a_strict_improvement_and_rejects_a_drop() -> None:
    assert gate(0.6, 0.5).action == "accept"
    drop = gate(0.4, 0.5)
    assert drop.action == "reject" and drop.delta < 0
    assert drop.candidate_score == 0.4 and drop.incumbent_score == 0.5


def test_gate_ties_follow_the_policy() -> None:
    assert gate(0.5, 0.5).action == "reject"
    assert gate(0.5, 0.5, accept_ties=True).action == "accept"
    assert "tie" in gate(0.5, 0.5).reason


def test_gate_min_improvement_is_a_margin() -> None:
    assert gate(0.55, 0.5, min_improvement=0.1).action == "reject"
    assert gate(0.65, 0.5, min_improvement=0.1).action == "accept"
    assert gate(0.65, 0.5, min_improvement=0.1).strategy == "min_improvement" and gate(0.6, 0.5).strategy == "strict"
    assert gate(0.6, 0.5, min_improvement=0.1).action == "reject"
    assert gate(0.6, 0.5, min_improvement=0.1, accept_ties=True).action == "accept"


@given(st.integers(2, 200), st.floats(0.0, 0.95), st.integers(0, 10_000))
def test_holdout_is_disjoint_and_covers_the_pool(n: int, ratio: float, seed: int) -> None:
    ids = [f"t{i}" for i in range(n)]
    plan = plan_tasks(ids, ratio, seed)
    assert not set(plan.train_ids) & set(plan.holdout_ids)
    assert sorted(plan.train_ids + plan.holdout_ids) == sorted(ids)
    assert plan.train_ids, "at least one train task is kept"
    assert plan == plan_tasks(ids, ratio, seed), "same seed, same plan"


def test_a_gate_on_a_pool_too_small_for_a_holdout_is_refused_and_no_gate_is_a_choice() -> None:
    with pytest.raises(ConfigError, match="1 train task leaves no holdout.*at least 2"):
        plan_tasks(["only"], 0.2, 0)
    assert plan_tasks(["only"], 0.0, 0) == TaskPlan(train_ids=("only",), holdout_ids=())


def test_holdout_limit_caps_the_holdout() -> None:
    plan = plan_tasks([f"t{i}" for i in range(100)], 0.5, 0, holdout_limit=7)
    assert len(plan.holdout_ids) == 7 and len(plan.train_ids) == 93


@given(st.integers(1, 60), st.integers(1, 25))
def test_cursor_walks_the_whole_pool_before_repeating(n: int, batch: int) -> None:
    pool = tuple(f"t{i}" for i in range(n))
    cursor, seen = 0, []
    while len(seen) < n:
        ids, cursor = next_batch(pool, cursor, batch)
        assert len(ids) == len(set(ids)) == min(batch, n)
        seen.extend(ids)
    assert set(seen[:n]) == set(pool)
