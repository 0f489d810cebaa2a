"""What a journal entry records about the accepted version: every field but the plan and the cursor, copied."""

from __future__ import annotations

import dataclasses

from agent_evolve.engine.journal import RunState
from agent_evolve.engine.tasks import TaskPlan


def test_accepted_fields_are_every_field_but_plan_and_cursor_and_do_not_alias_the_state() -> None:
    plan = TaskPlan(train_ids=("t1", "t2"), holdout_ids=("h1",))
    state = RunState(plan=plan, cursor=2, accepted_tag="evo-3", accepted_cycle=3, accepted_score=0.5,
                     accepted_count=4, baseline_score=0.25, usage={"agent": {"calls": 7}})
    recorded = state.accepted_fields()
    assert set(recorded) == {f.name for f in dataclasses.fields(RunState)} - {"plan", "cursor"}
    assert recorded["accepted_tag"] == "evo-3" and recorded["usage"] == {"agent": {"calls": 7}}
    recorded["usage"]["agent"]["calls"] = 0
    assert state.usage["agent"]["calls"] == 7
