"""The experiment's shared reply cache: an arm that asks what the baseline asked gets the baseline's reply, so a
model whose repeated answers churn cannot put wins and losses into a lift its edits did not make."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from lift_fakes import KeywordBenchmark

import agent_evolve as ae
from agent_evolve.lift import LiftPlan, run_lift
from agent_evolve.registry import ENGINE_REGISTRY

sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))
from wire_servers import REFERENCE_MANIFEST, WireServer, churning_server  # noqa: E402 - the llm tests' loopback server


server = pytest.fixture(churning_server)


def lift_of_a_note(tmp_path: Path, server: WireServer, monkeypatch: pytest.MonkeyPatch, **settings: object) -> tuple[dict, int]:
    """The report of an experiment whose engine only writes a note the agent never reads (kept, so the evolved
    workspace is scored on test anew); the requests it made."""
    monkeypatch.setitem(ENGINE_REGISTRY, "note", "lift_fakes.NoteEngine")
    agent = tmp_path / "agent"
    (agent / "prompts").mkdir(parents=True)
    (agent / "prompts" / "system.md").write_text("Answer with the keyword.\n")
    (agent / "manifest.yaml").write_text(REFERENCE_MANIFEST)
    config = ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1, preflight=False, gate_strategy="keep",
                             agent_model="openai/test-model", agent_base_url=f"{server.url}/v1", **settings)
    plan = LiftPlan(str(agent), "keywords", "note", seeds=(0,), cycles=1, test_limit=120, control=False,
                    draws=1, matched=False)
    before = len(server.requests)
    report = run_lift(plan, KeywordBenchmark(), config, tmp_path / "out")
    return report, len(server.requests) - before


def test_an_arm_that_asks_what_the_baseline_asked_gets_its_replies(tmp_path, server, monkeypatch) -> None:
    report, requests = lift_of_a_note(tmp_path, server, monkeypatch)
    assert report["mean_lift"] == 0.0 and all(row["evolved/0"] == row["baseline"] for row in report["tasks"])
    # The test draw keeps its replies in a namespace of its own: the evolution asks its 10 train questions (6
    # holdout, 4 batch) anew, and the arm's test scoring asks nothing new: it gets the baseline's 120 replies.
    assert requests == 120 + 10
    assert list((tmp_path / "out" / "replies").rglob("replies.sqlite")), "the cache is the experiment's, in its folder"


def test_without_the_shared_cache_the_churn_shows_up_as_wins_and_losses(tmp_path, server, monkeypatch) -> None:
    report, requests = lift_of_a_note(tmp_path, server, monkeypatch, llm_cache=False)
    assert requests > 120 + 120
    assert any(row["evolved/0"] != row["baseline"] for row in report["tasks"])
