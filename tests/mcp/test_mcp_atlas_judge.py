"""mcp-atlas: claim coverage judged by a model (scripted here), its fallback, and tasks that start their servers."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml
from mcp_helpers import SERVER_MODULE, server_processes

from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.support.claim_judge import (
    JudgeError,
    judge_claims,
    parse_verdicts,
)
from agent_evolve.benchmarks.adapters.mcp_atlas import McpAtlasBenchmark
from agent_evolve.config import EvolveConfig
from agent_evolve.llm.base import Completion, ToolCall
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Trajectory

CLAIMS = ["The thermos has 38 units in the north warehouse.", "The thermos has 27 units in the south warehouse."]


@pytest.mark.parametrize(("reply", "verdicts"), [
    ('{"verdicts": [{"claim": 1, "covered": true}, {"claim": 2, "covered": false}]}', {1: True, 2: False}),
    ('Sure:\n```json\n[true, "not covered"]\n```', {1: True, 2: False}),
    ("1: covered\n2. NOT covered", {1: True, 2: False}),
    ("Claim 2 - yes", {2: True}),
    ('{"verdicts": [{"claim": 7, "covered": true}]}', {}),
])
def test_verdicts_are_read_from_json_or_lines(reply: str, verdicts: dict[int, bool]) -> None:
    assert parse_verdicts(reply, 2) == verdicts


def test_a_reply_missing_a_verdict_gets_one_repair_request() -> None:
    judge = ScriptedLLM(["1: covered", '{"verdicts": [{"claim": 2, "covered": true}]}'])
    assert judge_claims(judge, "q?", "38 north, 27 south", CLAIMS) == [(claim, True) for claim in CLAIMS]
    assert "no verdict for claim(s) [2]" in judge.calls[1].messages[-1].content


def test_unreadable_verdicts_are_a_clear_error_not_a_score() -> None:
    with pytest.raises(JudgeError, match=r"gave no verdict for claim\(s\) \[1, 2\] of 2 after one repair"):
        judge_claims(ScriptedLLM(["I think it is fine.", "Looks good!"]), "q?", "answer", CLAIMS)


def _atlas_csv(tmp_path: Path) -> str:
    path = tmp_path / "atlas.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["TASK", "ENABLED_TOOLS", "PROMPT", "GTFA_CLAIMS"])
        writer.writerow(["thermos", json.dumps(["harbor_search_items", "harbor_stock_level"]),
                         "How many Tidewater thermoses are in each warehouse?", json.dumps(CLAIMS)])
        writer.writerow(["other", json.dumps(["harbor_find_person"]), "Who is Priya's manager?",
                         json.dumps(["Priya's manager is Tomas Rieger."])])
    return str(path)


def test_without_a_judge_or_a_config_the_lexical_check_is_the_fallback(tmp_path: Path) -> None:
    bench = McpAtlasBenchmark(data_path=_atlas_csv(tmp_path))
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "thermos")
    feedback = bench.evaluate(task, Trajectory(task.id, "North warehouse: 38 units; south warehouse: 27 units."))
    assert feedback.success and feedback.raw["grader"] == "lexical" and bench.judge is None


def test_a_run_config_makes_the_agent_model_the_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    config = EvolveConfig(agent_model="openai/gpt-4.1-mini")
    bench = resolve_benchmark(f"mcp-atlas:{_atlas_csv(tmp_path)}", config=config)
    assert isinstance(bench, McpAtlasBenchmark) and bench.judge is not None
    assert bench.judge.model == "openai/gpt-4.1-mini"
    assert McpAtlasBenchmark(data_path="x.csv", judge="lexical", config=config).judge is None


def test_a_task_starts_its_own_servers_offers_only_its_tools_and_is_judged(tmp_path: Path,
                                                                            mcp_workspace: Path) -> None:
    pytest.importorskip("mcp")
    manifest = mcp_workspace / "manifest.yaml"
    data = yaml.safe_load(manifest.read_text())
    del data["mcp_servers"]
    manifest.write_text(yaml.safe_dump(data))
    judge = ScriptedLLM(['{"verdicts": [{"claim": 1, "covered": true}, {"claim": 2, "covered": true}]}'])
    servers = {"harbor": {"command": "python", "args": ["-m", SERVER_MODULE]}}
    bench = McpAtlasBenchmark(data_path=_atlas_csv(tmp_path), judge=judge, mcp_config=servers)
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "thermos")
    model = ScriptedLLM([
        Completion("", [ToolCall("c1", "harbor__stock_level", {"sku": "TW-114"})], finish_reason="tool_calls"),
        lambda messages: "North: 38, south: 27." if '"south": 27' in messages[-1].content else "unknown",
    ])
    before = set(server_processes())
    trajectory = ReferenceAgent(mcp_workspace, llm=model).solve(task)
    assert set(server_processes()) <= before
    offered = sorted(spec.name for spec in model.calls[0].tools or [])
    assert offered == ["harbor__search_items", "harbor__stock_level"]
    [call] = [step for step in trajectory.steps if step["type"] == "tool_call"]
    assert call["name"] == "harbor__stock_level" and '"north": 38' in call["output"]
    feedback = bench.evaluate(task, trajectory)
    assert feedback.success and feedback.score == 1.0 and "North: 38, south: 27." in judge.calls[0].messages[-1].content
