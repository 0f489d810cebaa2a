"""A run's own response cache: the gate scores a candidate on the replies the incumbent got wherever both ask the
same thing, so a model that answers a repeated question differently (greedy decoding is not bit-stable across
batches) cannot make an edit look better or worse than it is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from kernel_fakes import KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae
from agent_evolve.config import with_reply_cache

sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))
from wire_servers import REFERENCE_MANIFEST, WireServer, churning_server  # noqa: E402 - the llm tests' loopback server


server = pytest.fixture(churning_server)


def evolve_once(workspace: Path, server: WireServer, **settings: object) -> tuple[list[dict], int]:
    """One cycle whose edit is a file the agent never reads; the cycle's gate record and the requests made."""
    make_workspace(workspace, manifest=REFERENCE_MANIFEST)
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.5, holdout_limit=8, concurrency=1, preflight=False,
                             agent_model="openai/test-model", agent_base_url=f"{server.url}/v1", **settings)
    before = len(server.requests)
    ae.Evolver(str(workspace), KeywordBenchmark(n=16), config, PlanEngine([("file", "prompts/notes.md", "x")])).run(1)
    records = ae.EvolutionHistory(workspace).cycle_records()
    return records, len(server.requests) - before


def test_an_edit_that_changes_no_request_is_scored_on_the_incumbents_replies(tmp_path: Path, server: WireServer) -> None:
    records, requests = evolve_once(tmp_path / "cached", server, gate_curtail=False)  # every holdout task scored
    gate = records[-1]["metadata"]["gate"]
    assert gate["statistic"]["ties"] == 8 and gate["candidate_score"] == gate["incumbent_score"], gate
    assert requests == 8 + 4, "the holdout and the batch are asked once; the candidate's gate asks nothing"
    assert list((tmp_path / "cached" / "evolution" / "replies").rglob("replies.sqlite")), "the cache is the run's own"


def test_without_the_cache_the_candidate_asks_again(tmp_path: Path, server: WireServer) -> None:
    records, requests = evolve_once(tmp_path / "uncached", server, llm_cache=False, gate_curtail=False)
    assert requests == 8 + 4 + 8
    assert records[-1]["metadata"]["gate"]["statistic"]["ties"] < 8, "the churn shows up as wins and losses"
    assert not (tmp_path / "uncached" / "evolution" / "replies").exists()


def test_a_named_cache_folder_is_kept_and_caching_can_be_turned_off(tmp_path: Path) -> None:
    assert with_reply_cache(ae.EvolveConfig(), tmp_path / "r").llm_cache_dir == str(tmp_path.resolve() / "r")
    assert with_reply_cache(ae.EvolveConfig(llm_cache_dir="/x"), tmp_path).llm_cache_dir == "/x"
    assert with_reply_cache(ae.EvolveConfig(llm_cache=False), tmp_path).llm_cache_dir is None
    assert with_reply_cache(ae.EvolveConfig(), None).llm_cache_dir is None
