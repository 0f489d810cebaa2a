"""Draws, controls that can fail, independent seeds and the dev split."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from lift_fakes import KeywordBenchmark, make_sampling_workspace, make_workspace

import agent_evolve as ae
from agent_evolve.api import RunClients
from agent_evolve.benchmarks.support.splits import dev_tasks
from agent_evolve.engine.records import read_jsonl
from agent_evolve.engine.tasks import plan_tasks
from agent_evolve.lift import LiftPlan, run_lift
from agent_evolve.lift.matched import draw_another, example_passes, majority, matched_agent
from agent_evolve.lift.opening import DrawLayout
from agent_evolve.lift.scoring import score_tasks
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.registry import ENGINE_REGISTRY
from agent_evolve.stats import mean
from agent_evolve.task_order import is_dev
from agent_evolve.types import Task

sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))
from wire_servers import REFERENCE_MANIFEST, WireServer, churning_keyword_model  # noqa: E402 - the llm tests' server

CONFIG = ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1, max_cycles=1, preflight=False,
                         agent_model="openai/fake", agent_base_url="http://127.0.0.1:9/v1")


@pytest.fixture(autouse=True)
def keyword_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")


def sampled_lift(tmp_path: Path, **settings: object) -> dict:
    plan = LiftPlan(str(make_sampling_workspace(tmp_path / "agent")), "keywords", "keyword", seeds=(0,), cycles=1,
                    test_limit=120, **settings)
    return run_lift(plan, KeywordBenchmark(), CONFIG, tmp_path / "out")


def test_two_draws_of_a_sampling_agent_differ_and_both_enter_the_ci(tmp_path: Path) -> None:
    report = sampled_lift(tmp_path, control=False, matched=False)
    arm = report["runs"][0]
    pairings = report["evidence"]["draw_pairings"]
    draws = json.loads((tmp_path / "out" / "evolved" / "seed-0" / "arm.json").read_text())["draw_scores"]
    assert len(pairings) == 4 and len(draws) == 2
    assert sum(draws[0][t] != draws[1][t] for t in draws[0]) > 10, "the arm's two draws differ task by task"
    per_draw = [p["lift"] for p in pairings if p["baseline_draw"] == 0]
    assert arm["lift"] == pytest.approx(mean(per_draw)), "the lift averages the draws, task by task"
    assert any(row["evolved/0"] == 0.5 for row in report["tasks"]), "a task right in one draw only counts half"
    pooled = report["arms"]["evolved"]["pooled"]
    assert pooled["n"] == 120 and pooled["candidate_mean"] == pytest.approx(mean(per_draw) + report["baseline_test"])
    text = (tmp_path / "out" / "lift.md").read_text()
    assert "| 0 | 1 |" in text and "Baseline churn between draws 0 and 1" in text
    layout = DrawLayout(tmp_path / "out", 2)
    caches = {layout.config(dataclasses.replace(CONFIG, llm_cache_dir=str(tmp_path / "r")), d).llm_cache_dir
              for d in (0, 1)}
    assert len(caches) == 2 and layout.sampling_seed(0) != layout.sampling_seed(1), "each draw: own cache and seed"


def test_the_control_is_solved_on_test_in_every_draw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "solves.log"
    monkeypatch.setenv("SOLVE_LOG", str(log))
    agent = make_workspace(tmp_path / "agent")
    plan = LiftPlan(str(agent), "keywords", "keyword", seeds=(0,), cycles=1, test_limit=120, matched=False)
    report = run_lift(plan, KeywordBenchmark(), ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1),
                      tmp_path / "out")
    control = str(tmp_path / "out" / "control" / "seed-0" / "workspace")
    solves = Counter(line.split("\t")[1] for line in log.read_text().splitlines() if line.startswith(control + "\t"))
    assert all(solves[f"s{i}"] == 2 for i in range(120)), "each test task solved by the control once per draw"
    assert report["arms"]["control"]["cost"]["test_solves"] == 240
    assert report["evidence"]["against_controls"]["control"]["mean_difference"] == 0.5


def test_the_compute_matched_control_spends_the_arms_tokens_per_task(tmp_path: Path) -> None:
    report = sampled_lift(tmp_path, control=True)
    [pair] = report["evidence"]["matched_tokens"]
    assert pair["seed"] == 0
    assert "Compute-matched control of seed 0, tokens per test task" in (tmp_path / "out" / "lift.md").read_text()
    for matched, evolved in zip(pair["matched"], pair["evolved"]):
        assert evolved > 2.5 * 10, "the evolved prompt costs the arm about three baseline answers a task"
        assert abs(matched - evolved) <= 0.1 * evolved
    against = report["evidence"]["against_controls"]
    assert set(against) == {"control", "matched"}
    assert report["evidence"]["headline"]["mean_difference"] == min(s["mean_difference"] for s in against.values())
    assert "Headline lift (the smaller against the controls)" in (tmp_path / "out" / "lift.md").read_text()


def test_a_vote_draws_while_another_reply_brings_the_tokens_closer_and_keeps_the_majority() -> None:
    assert draw_another(10, 1, 31) and draw_another(20, 2, 31) and not draw_another(30, 3, 31)
    assert not draw_another(0, 1, 31), "a reply that reports no tokens is not drawn again"
    assert majority(["Answer: 4", "so 5", "Answer: 5"]) == 1 and majority(["a", "b"]) == 0


CODE_PROMPT = 'def double(x: int) -> int:\n    """Twice x.\n    >>> double(2)\n    4\n    >>> double(5)\n    10\n    """\n'
CODE_TASK = Task("code/1", f"Complete it.\n```python\n{CODE_PROMPT}```", {"prompt": CODE_PROMPT, "entry_point": "double"})


def program(body: str) -> str:
    return f"```python\ndef double(x: int) -> int:\n    return {body}\n```"


def test_programs_vote_by_the_examples_they_pass_not_by_their_text() -> None:
    greedy, right, other_right = program("x + 2"), program("2 * x"), program("x * 2")
    outputs = [greedy, "I cannot.", right, other_right]
    passes = example_passes(CODE_TASK, outputs)
    assert passes == [(True, False), (False, False), (True, True), (True, True)]
    assert majority(outputs, passes) == 2, "the first program passing the most examples wins over the greedy reply"
    same_rank = [program("10 if x == 5 else 0"), program("x + 2"), program("x * x")]
    assert majority(same_rank, example_passes(CODE_TASK, same_rank)) == 1, "among equals, the commonest behaviour"
    assert example_passes(Task("n", "2 + 2?", {"answer_kind": "number"}), ["4"]) is None
    assert example_passes(Task("c", "```python\ndef f(x):\n    pass\n```"), ["x"]) is None, "no examples to run"


def test_different_run_seeds_give_different_sampling_seeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "seeds.log"
    monkeypatch.setenv("SEED_LOG", str(log))
    for seed in (0, 1):
        agent = make_sampling_workspace(tmp_path / f"agent-{seed}")
        config = ae.EvolveConfig(**{**CONFIG.to_dict(), "seed": seed})
        ae.Evolver(str(agent), KeywordBenchmark(), config, "keyword", workspace_dir=str(tmp_path / f"ws-{seed}")).run(1)
    assert {line.split("\t")[0] for line in log.read_text().splitlines()} == {"0", "1"}
    roles = [RunClients(ae.EvolveConfig(**{**CONFIG.to_dict(), "seed": s}), UsageLedger()) for s in (3, 4)]
    assert [r("agent").seed for r in roles] == [3, 4] and [r("engine").seed for r in roles] == [3, 4]


def test_seeds_that_converge_are_reported_as_one_measurement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "same", "lift_fakes.SameEditEngine")
    plan = LiftPlan(str(make_workspace(tmp_path / "agent")), "keywords", "same", seeds=(0, 1), cycles=1,
                    test_limit=120, control=False, matched=False, draws=1)
    report = run_lift(plan, KeywordBenchmark(), ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1),
                      tmp_path / "out")
    assert report["evidence"]["convergence"]["sentence"] == "2 of 2 seeds converged to one workspace: one measurement."
    assert "2 of 2 seeds converged to one workspace: one measurement." in (tmp_path / "out" / "lift.md").read_text()


def test_holdout_and_validation_are_never_carved_from_dev() -> None:
    ids = [f"gsm8k/{i}" for i in range(2000)]
    dev = {i for i in ids if is_dev(i)}
    assert 0.1 * len(ids) < len(dev) < 0.2 * len(ids)
    for seed in range(5):
        plan = plan_tasks(ids, 0.2, seed, 400, val_ratio=0.1)
        assert len(plan.holdout_ids) == 400 and not dev & set(plan.holdout_ids) and not dev & set(plan.val_ids)
        assert dev <= set(plan.train_ids), "dev tasks stay in train"
    bench = KeywordBenchmark()
    assert [t.id for t in dev_tasks(bench)] == [t.id for t in bench.get_tasks("train", limit=None) if is_dev(t.id)]


def test_the_matched_vote_draws_fresh_sampled_replies_from_a_real_client(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "prompts").mkdir(parents=True)
    (agent / "prompts" / "system.md").write_text("Answer with the keyword.\n")
    (agent / "manifest.yaml").write_text(REFERENCE_MANIFEST)
    server = WireServer(churning_keyword_model()).start()
    try:
        config = ae.EvolveConfig(concurrency=1, preflight=False, agent_model="openai/test-model",
                                 agent_base_url=f"{server.url}/v1", llm_cache_dir=str(tmp_path / "replies"))
        tasks = KeywordBenchmark().get_tasks("test", limit=6)
        for store in ("first.jsonl", "again.jsonl"):
            score_tasks(agent, KeywordBenchmark(), tasks, tmp_path / store, config, "matched", sampling_seed=7,
                        make_agent=matched_agent(45.0))
            if store == "first.jsonl":
                asked = len(server.requests)
    finally:
        server.stop()
    assert [row["tokens"] for row in read_jsonl(tmp_path / "first.jsonl")] == [45] * 6, "3 replies of 15 tokens"
    temperatures = [request.body.get("temperature", 0) for request in server.requests]
    assert asked == 18 and sorted(temperatures) == [0] * 6 + [0.8] * 12, "one greedy and two sampled per task"
    assert len(server.requests) == asked, "each sampled reply is cached as a draw of its own and replayed"
