"""mcp-mini: tasks that need the shipped server, graded by exact facts; solved end to end by the reference agent."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_helpers import server_processes

from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.benchmarks.support.answers import fact_found
from agent_evolve.benchmarks.suites.mcp_mini import world
from agent_evolve.benchmarks.suites.mcp_mini.benchmark import TASKS, McpMiniBenchmark
from agent_evolve.llm.base import Completion, ToolCall
from agent_evolve.registry import benchmark_class, seed_path
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Trajectory


def test_the_suite_is_registered_with_at_least_ten_tasks_whose_facts_are_not_in_the_question() -> None:
    bench = benchmark_class("mcp-mini")()
    tasks = bench.get_tasks("train", None) + bench.get_tasks("test", None)
    assert len(tasks) >= 10 and len({t.id for t in tasks}) == len(TASKS)
    assert seed_path("mcp-mini") == seed_path("mcp")
    for task in TASKS:
        assert not any(fact_found(fact, task.question) for fact in task.facts), task.id


def test_the_expected_facts_are_what_the_world_answers() -> None:
    """Each fact recomputed from the server's own queries, so the suite and the server cannot drift apart."""
    thermos = world.stock_level("TW-114")
    jacket = world.stock_level("HL-207")
    manager = world.find_person("Priya Nandakumar")["manager"]
    [review] = world.search_events("quarterly supplier review", "2026-03-12")
    lantern = world.item_details("BW-052")
    computed = {
        "thermos-stock": (str(sum(thermos.values())),),
        "sku-price": (world.item_details("HL-207")["name"], f"{world.item_details('HL-207')['unit_price']:.2f}"),
        "manager-office": (manager, world.find_person(manager)["office"]),
        "review-room": (review["room"], review["start"]),
        "chest-weight": (f"{world.convert_units(world.stock_level('HL-310')['south'] * world.item_details('HL-310')['weight_lb'], 'lb', 'kg'):.1f}",),
        "dock-closure": ("Dock 7", "2026-04-02"),
        "jacket-warehouse": (max(jacket, key=jacket.__getitem__), str(abs(jacket["south"] - jacket["north"]))),
        "drill-organiser": (world.find_person(world.search_events("safety drill")[0]["organiser"])["email"],),
        "shoot-team": (world.find_person(world.search_events("photo shoot")[0]["organiser"])["team"],),
        "lantern-value": (f"{lantern['unit_price'] * sum(world.stock_level('BW-052').values()):.0f}",),
        "paddle-length": (f"{world.convert_units(world.item_details('DW-880')['length_in'], 'in', 'cm'):.2f}",),
        "supplier-contact": (world.item_details("TW-114")["supplier"], "Ewan Thorsby"),
    }
    assert {task.id: task.facts for task in TASKS} == computed
    assert all(fact_found(fact, world.read_note("Dock 4 closure")) for fact in computed["dock-closure"])
    assert fact_found("Ewan Thorsby", world.read_note(world.search_notes("gullwing")[0]))


@pytest.mark.parametrize(("fact", "answer", "found"), [
    ("65", "There are 65 units.", True),
    ("65", "There are 650 units.", False),
    ("18.40", "It costs EUR 18.4 each.", True),
    ("1008", "Total: 1,008.00 EUR", True),
    ("63.5", "About 63.50 kg", True),
    ("63.5", "About 63 kg", False),
    ("Tomas Rieger", "managed by tomas  rieger", True),
    ("south", "the southern one", False),
])
def test_facts_are_matched_exactly(fact: str, answer: str, found: bool) -> None:
    assert fact_found(fact, answer) is found


def test_a_wrong_answer_is_graded_as_a_failure_naming_the_missing_fact() -> None:
    bench = McpMiniBenchmark()
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "manager-office")
    feedback = bench.evaluate(task, Trajectory(task.id, "Tomas Rieger works in Gdansk."))
    assert not feedback.success and feedback.score == 0.5 and "Rotterdam" in feedback.detail
    assert bench.evaluate(task, Trajectory(task.id, "Tomas Rieger, in Rotterdam.")).success


def _call(tool: str, **arguments: object) -> Completion:
    return Completion("", [ToolCall(f"c-{tool}", tool, dict(arguments))], finish_reason="tool_calls")


def test_the_reference_agent_solves_two_tasks_through_the_real_server(mcp_workspace: Path) -> None:
    pytest.importorskip("mcp")
    bench = McpMiniBenchmark()
    tasks = {t.id: t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None)}
    model = ScriptedLLM([
        _call("harbor__search_items", query="tidewater thermos"),
        _call("harbor__stock_level", sku="TW-114"),
        lambda messages: f"There are {38 + 27} in stock." if '"north": 38' in messages[-1].content else "no data",
        _call("harbor__find_person", name="Priya Nandakumar"),
        lambda messages: _call("harbor__find_person", name="Tomas Rieger")
        if "Tomas Rieger" in messages[-1].content else "unknown",
        lambda messages: "Tomas Rieger, who works in Rotterdam." if "Rotterdam" in messages[-1].content else "?",
    ])
    agent = ReferenceAgent(mcp_workspace, llm=model)
    before = set(server_processes())
    for task_id in ("thermos-stock", "manager-office"):
        trajectory = agent.solve(tasks[task_id])
        calls = [step for step in trajectory.steps if step["type"] == "tool_call"]
        assert calls and all(not step["error"] for step in calls)
        assert bench.evaluate(tasks[task_id], trajectory).success, trajectory.output
        assert set(server_processes()) <= before
    thermos_calls = model.calls[1].messages[-1]
    assert thermos_calls.role == "tool" and "TW-114" in thermos_calls.content
    assert any(spec.name == "harbor__convert_units" for spec in model.calls[0].tools or [])


def test_the_servers_stop_when_the_model_fails_mid_task(mcp_workspace: Path) -> None:
    pytest.importorskip("mcp")
    task = McpMiniBenchmark().get_tasks("train", 1)[0]
    agent = ReferenceAgent(mcp_workspace, llm=ScriptedLLM([_call("harbor__search_items", query="mug")]))
    before = set(server_processes())
    with pytest.raises(Exception, match="has 1 response"):
        agent.solve(task)
    assert set(server_processes()) <= before
