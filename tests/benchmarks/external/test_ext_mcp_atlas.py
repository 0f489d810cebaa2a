"""MCP-Atlas: CSV tasks in the released format, claim parsing and coverage, the judge, server checks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent_evolve.benchmarks.adapters.mcp_atlas import (
    McpAtlasBenchmark,
    claim_outcome,
    parse_claims,
    parse_tools,
    score_claims,
    server_of,
    server_problems,
)
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task, Trajectory

PET = "5c6d7e8f9a0b1c2d3e4f5a6b"
MOVIE = "8d9eaf0b1c2d3e4f5a6b7c8d"
GOOD = ("The first five weeks averaged a profit of $6,446.20 per week and the last five weeks averaged "
        "$6,786.60, so the difference is $340.40.")


@pytest.fixture
def data(fixtures: Path) -> str:
    return str(fixtures / "mcp_atlas" / "sample_tasks.csv")


def _all(bench: McpAtlasBenchmark) -> dict[str, Task]:
    return {t.id: t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None)}


def test_tasks_from_the_sample_csv(data: str) -> None:
    tasks = _all(McpAtlasBenchmark(data_path=data))
    assert set(tasks) == {PET, MOVIE, "0a1b2c3d4e5f6a7b8c9d0e1f"}
    pet = tasks[PET]
    assert pet.input.startswith("Please check the files on my pc")
    assert pet.metadata["servers"] == ["calculator", "filesystem", "wikipedia"]
    assert "calculator_calculate" in pet.metadata["enabled_tools"]
    assert "6,446.20" not in json.dumps(pet.metadata) + pet.input
    assert tasks["0a1b2c3d4e5f6a7b8c9d0e1f"].metadata["servers"] == ["brave-search", "calculator", "osm-mcp-server"]


def test_claim_formats() -> None:
    assert parse_claims("['A claim here.', 'Another one.']") == ["A claim here.", "Another one."]
    assert parse_claims('[{"claim": "Object claim.", "essential": "yes"}]') == ["Object claim."]
    assert parse_claims("1. First fact.\n2. Second fact.") == ["First fact.", "Second fact."]
    assert parse_claims("- bullet fact one\n- bullet fact two") == ["bullet fact one", "bullet fact two"]
    assert parse_claims(None) == [] and parse_claims("  ") == []


def test_tools_and_servers() -> None:
    assert parse_tools('["notion_API-retrieve-a-database", "ddg-search_search"]') == [
        "notion_API-retrieve-a-database", "ddg-search_search"]
    assert server_of("brave-search_brave_web_search") == "brave-search"


def test_full_answer_passes(data: str) -> None:
    bench = McpAtlasBenchmark(data_path=data)
    feedback = bench.evaluate(Task(id=PET, input=""), Trajectory(task_id=PET, output=GOOD))
    assert feedback.success and feedback.score == 1.0
    assert [c["outcome"] for c in feedback.raw["per_claim"]] == ["fulfilled"] * 3


def test_missing_claim_lowers_the_score_below_the_pass_line(data: str) -> None:
    bench = McpAtlasBenchmark(data_path=data)
    output = "The first five weeks averaged 6446.2 and the last five weeks 6786.6."
    feedback = bench.evaluate(Task(id=PET, input=""), Trajectory(task_id=PET, output=output))
    assert not feedback.success and feedback.score == pytest.approx(0.667)
    assert "missing: The difference in profit" in feedback.detail


def test_wrong_facts_score_zero(data: str) -> None:
    bench = McpAtlasBenchmark(data_path=data)
    feedback = bench.evaluate(Task(id=MOVIE, input=""),
                              Trajectory(task_id=MOVIE, output="It is Gladiator, directed by Ridley Scott."))
    assert feedback.score == 0.0 and not feedback.success


def test_numbers_match_up_to_rounding_but_not_beyond() -> None:
    claim = "The distance between the towers is about 3.2 km."
    assert claim_outcome(claim, "They are 3.2 kilometres apart; the distance between the towers is short.") == \
        "fulfilled"
    assert claim_outcome(claim, "The distance between the towers is 3.21 km.") == "fulfilled"
    assert claim_outcome(claim, "The distance between the towers is 4.5 km.") == "not_fulfilled"
    assert claim_outcome(claim, "They are 3.2 km apart.") == "partially_fulfilled"
    assert claim_outcome("It was founded in 2023.", "It was founded in 2024.") != "fulfilled"


def test_scoring_without_claims_is_an_error() -> None:
    with pytest.raises(ValueError, match="no expected claims"):
        score_claims([], "anything")


def test_the_judge_sees_the_claims_but_the_agent_does_not(data: str) -> None:
    judge = ScriptedLLM(['{"verdicts": [{"claim": 1, "covered": true}, {"claim": 2, "covered": false}]}'])
    bench = McpAtlasBenchmark(data_path=data, judge=judge)
    task = _all(bench)[MOVIE]
    assert "claims" not in task.metadata
    feedback = bench.evaluate(task, Trajectory(task_id=MOVIE, output="The Matrix"))
    assert not feedback.success and feedback.score == 0.5 and feedback.raw["grader"] == "judge:scripted/fake"
    assert "not covered: The Matrix was directed by" in feedback.detail
    asked = judge.calls[0].messages[-1].content
    assert "The Matrix" in asked and "1. The lowest ranked action movie is The Matrix, rated 8.2." in asked


@pytest.mark.parametrize("row, problem", [({"TASK": "t1", "PROMPT": "p"}, "a record lacks ['GTFA_CLAIMS']"),
                                          ({"TASK": "t1", "PROMPT": "p", "GTFA_CLAIMS": "c",
                                            "ENABLED_TOOLS": "5"}, "task 't1': ENABLED_TOOLS")])
def test_a_bad_record_is_a_config_error_naming_it(tmp_path: Path, row: dict, problem: str) -> None:
    """A traceback before, not an error the command line reports."""
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(ConfigError, match=re.escape(problem)):
        McpAtlasBenchmark(data_path=str(tmp_path / "tasks.jsonl")).get_tasks("train", None)


def test_server_config_names_missing_servers_and_commands(data: str, fixtures: Path) -> None:
    tasks = list(_all(McpAtlasBenchmark(data_path=data)).values())
    bench = McpAtlasBenchmark(data_path=data, mcp_config=str(fixtures / "mcp_atlas" / "mcp_servers.json"))
    with pytest.raises(MissingDependencyError) as err:
        bench.check_servers(tasks)
    message = str(err.value)
    assert "command 'wikipedia-mcp-server-not-installed' not found" in message
    assert "'notion' is not configured" in message and "'osm-mcp-server' is not configured" in message
    with pytest.raises(MissingDependencyError, match="wikipedia"):
        bench.get_tasks("train", None) + bench.get_tasks("test", None)


def test_server_problems_in_detail(fixtures: Path) -> None:
    config = json.loads((fixtures / "mcp_atlas" / "mcp_servers.json").read_text())["mcpServers"]
    problems = server_problems(["filesystem", "wikipedia", "notion", "brave-search"], config)
    assert problems[0].startswith("MCP server 'wikipedia': command 'wikipedia-mcp-server-not-installed' not found")
    assert problems[1:] == ["MCP server 'notion' is not configured (add it under mcpServers)",
                            ("mcp_config: MCP server 'brave-search': has a `url`; only stdio servers (a `command`) "
                             "are supported")]


def test_configured_servers_are_passed_to_the_agent(data: str, monkeypatch: pytest.MonkeyPatch) -> None:
    config = {"mcpServers": {name: {"command": "python3"} for name in ("filesystem", "calculator", "wikipedia",
                                                                       "notion", "ddg-search", "osm-mcp-server",
                                                                       "brave-search")}}
    tasks = _all(McpAtlasBenchmark(data_path=data, mcp_config=config))
    assert tasks[PET].metadata["mcp_servers"]["calculator"] == {"command": "python3"}
    assert "calculator__calculate" in tasks[PET].metadata["mcp_enabled_tools"]
    monkeypatch.setenv("AGENT_EVOLVE_MCP_ATLAS_SERVERS", "/no/such/config.json")
    with pytest.raises(FileNotFoundError):
        McpAtlasBenchmark(data_path=data)


def test_missing_data_names_the_env_var(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_MCP_ATLAS_DATA", raising=False)
    with pytest.raises(MissingDependencyError, match="AGENT_EVOLVE_MCP_ATLAS_DATA"):
        McpAtlasBenchmark(data_path=str(tmp_path / "absent.csv")).get_tasks()
