"""End to end on a model-free agent: the lift experiment's report, and a kill mid-way resumed without re-solving."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from lift_fakes import KeywordBenchmark, make_workspace

import agent_evolve as ae
from agent_evolve.engine.loop import ARM_PHASE, TEST_PHASE, ProgressEvent
from agent_evolve.errors import ConfigError, WorkspaceError
from agent_evolve.lift import LiftPlan, run_lift
from agent_evolve.lift.ledger import CLAIM, LEDGER_FILE, read_rows
from agent_evolve.registry import ENGINE_REGISTRY

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"
CONFIG = ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1, max_cycles=2)
SCRIPT = """
import sys
from pathlib import Path
import agent_evolve as ae
from agent_evolve.lift import LiftPlan, run_lift
from agent_evolve.registry import ENGINE_REGISTRY
from lift_fakes import KeywordBenchmark
ENGINE_REGISTRY["keyword"] = "lift_fakes.KeywordEngine"
plan = LiftPlan(sys.argv[1], "keywords", "keyword", seeds=(0,), cycles=2, test_limit=120, draws=1, matched=False)
config = ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1, max_cycles=2)
run_lift(plan, KeywordBenchmark(), config, Path(sys.argv[2]))
"""


def experiment(agent: Path, out: Path, log: Path, **crash: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{HERE}", "SOLVE_LOG": str(log), **crash}
    return subprocess.run([sys.executable, "-c", SCRIPT, str(agent), str(out)], env=env, capture_output=True,
                          text=True, timeout=300)


def test_report_has_lift_ci_control_and_cost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")
    agent = make_workspace(tmp_path / "agent")
    plan = LiftPlan(str(agent), "keywords", "keyword", seeds=(0, 1), cycles=2, test_limit=120, draws=1,
                    matched=False)
    report = run_lift(plan, KeywordBenchmark(), CONFIG, tmp_path / "out")
    evolved = report["arms"]["evolved"]
    assert report["test_tasks"] == 120 and report["baseline_test"] == 0.0
    assert [r["lift"] for r in report["runs"]] == [0.5, 0.5] and evolved["mean_lift"] == 0.5
    assert evolved["pooled"]["n"] == 120 and evolved["pooled"]["ci_low"] > 0 and evolved["pooled"]["p_value"] < 1e-9
    assert report["control_exact"] and [r["lift"] for r in report["control"]] == [0.0, 0.0]
    assert all(r["identical_to_baseline"] for r in report["control"])
    assert evolved["spread"]["stdev"] == 0.0
    cost = evolved["cost"]
    assert cost["test_solves"] == 240 and cost["solves"] == cost["evolution_solves"] + 240
    assert report["arms"]["control"]["cost"]["test_solves"] == 240, "the control is solved, never read from a file"
    assert report["baseline_cost"]["solves"] == 120
    assert report["tasks"][0] == {"task_id": "s0", "baseline": 0.0, "evolved/0": 1.0, "control/0": 0.0,
                                  "evolved/1": 1.0, "control/1": 0.0}
    text = (tmp_path / "out" / "lift.md").read_text()
    assert "| 0 | 0.000 | 0.500 | +0.500 |" in text and "**yes**" in text
    assert (agent / "prompts" / "system.md").read_text() == "baseline\n", "the source workspace is untouched"


def test_progress_names_each_arm_and_counts_its_test_solves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")
    plan = LiftPlan(str(make_workspace(tmp_path / "agent")), "keywords", "keyword", seeds=(0,), cycles=1,
                    test_limit=120, draws=1, matched=False)
    events: list[ProgressEvent] = []
    run_lift(plan, KeywordBenchmark(), CONFIG, tmp_path / "out", progress=events.append)
    arms = [e.message for e in events if e.phase == ARM_PHASE]
    assert arms[0].startswith("plan ") and arms[1:] == ["baseline", "evolved seed 0", "control seed 0"]
    tested = [(e.done, e.total) for e in events if e.phase == TEST_PHASE]
    assert tested == [(n, 120) for n in range(121)] * 3, "baseline, evolved and control solve 120 each"
    evolved_at = events.index(next(e for e in events if e.message == "evolved seed 0"))
    assert any(e.phase == "gate" for e in events[evolved_at:]), "the arm's loop events follow its name"


def test_a_killed_experiment_resumes_without_resolving_finished_test_tasks(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    out, log = tmp_path / "out", tmp_path / "solves.log"
    killed = experiment(agent, out, log, CRASH_IN="evolved/seed-0", CRASH_AT="30")
    assert killed.returncode == -9, killed.stderr
    first = Counter(log.read_text().splitlines())
    log.unlink()
    finished = experiment(agent, out, log)
    assert finished.returncode == 0, finished.stderr
    second = Counter(log.read_text().splitlines())
    evolved = str(out / "evolved" / "seed-0" / "workspace")
    test_solves = lambda c, ws: {k.split("\t")[1] for k in c if k.startswith(ws + "\t") and "\ts" in k}  # noqa: E731
    assert len(test_solves(first, evolved)) == 29 and len(test_solves(second, evolved)) == 91
    assert not test_solves(first, evolved) & test_solves(second, evolved), "no finished test task is solved again"
    assert not any(k.startswith(str(out / "baseline")) for k in second), "the finished baseline is not solved again"
    report = json.loads((out / "lift.json").read_text())
    assert report["mean_lift"] == 0.5 and report["control_exact"]
    assert all(row["evolved/0"] == float(int(row["task_id"][1:]) % 2 == 0) for row in report["tasks"])
    assert report["arms"]["evolved"]["cost"]["test_solves"] == 120, "both sittings' test solves count"


def test_a_small_or_touched_test_split_is_refused(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    with pytest.raises(ConfigError, match="fewer than 120"):
        run_lift(LiftPlan(str(agent), "k", "keyword", test_limit=50), KeywordBenchmark(), CONFIG, tmp_path / "o")

    class Leaky(KeywordBenchmark):
        def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[ae.types.Task]:
            return super().get_tasks("train", limit)

    with pytest.raises(ConfigError, match="shares"):
        run_lift(LiftPlan(str(agent), "k", "keyword", allow_small_test=True), Leaky(), CONFIG, tmp_path / "o")


def test_resuming_into_a_folder_of_another_experiment_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")
    agent = make_workspace(tmp_path / "agent")
    plan = LiftPlan(str(agent), "keywords", "keyword", seeds=(0,), cycles=1, test_limit=120, control=False)
    run_lift(plan, KeywordBenchmark(), CONFIG, tmp_path / "out")
    with pytest.raises(ConfigError, match="another experiment"):
        run_lift(LiftPlan(str(agent), "keywords", "keyword", seeds=(5,), cycles=1), KeywordBenchmark(), CONFIG,
                 tmp_path / "out")


def test_a_folder_made_before_a_setting_existed_resumes_while_that_setting_keeps_its_default(tmp_path: Path,
                                                                                            monkeypatch) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")
    agent = make_workspace(tmp_path / "agent")
    plan = LiftPlan(str(agent), "keywords", "keyword", seeds=(0,), cycles=1, test_limit=120, control=False)
    run_lift(plan, KeywordBenchmark(), CONFIG, tmp_path / "out")
    saved = json.loads((tmp_path / "out" / "plan.json").read_text())
    del saved["config"]["llm_cache"]
    (tmp_path / "out" / "plan.json").write_text(json.dumps(saved))
    assert run_lift(plan, KeywordBenchmark(), CONFIG, tmp_path / "out")["mean_lift"] == 0.5
    with pytest.raises(ConfigError, match="another experiment"):
        run_lift(plan, KeywordBenchmark(), dataclasses.replace(CONFIG, llm_cache=False), tmp_path / "out")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def test_a_committed_experiment_folder_resumes_in_a_fresh_clone_without_solving(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    repo, log = tmp_path / "repo", tmp_path / "solves.log"
    assert experiment(agent, repo / "out", log).returncode == 0
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "experiment")
    kept = git(repo, "ls-files").split()
    assert "out/evolved/seed-0/arm.json" in kept and "out/plan.json" in kept and "out/lift.json" in kept
    assert any(k.startswith("out/scores/") for k in kept) and "out/baseline/workspace/prompts/system.md" in kept
    arms = [k for k in kept if "/seed-" in k]
    assert arms and all(k.endswith(("/arm.json", "/checkpoint.tar.gz")) for k in arms), \
        "the arms' working folders and costs stay out (the checkpoint carries them)"
    git(tmp_path, "clone", "-q", str(repo), "clone")
    again = tmp_path / "again.log"
    assert experiment(agent, tmp_path / "clone" / "out", again).returncode == 0
    assert not again.exists() or not again.read_text().strip(), "every finished arm and score is read back"
    report = lambda root: json.loads((root / "out" / "lift.json").read_text())["arms"]  # noqa: E731
    assert report(tmp_path / "clone") == report(repo)


def evolution_solves(log: Path, workspace: Path) -> int:
    """Train-task solves (evolution's: batches and gate) logged for one arm's workspace."""
    lines = log.read_text().splitlines() if log.exists() else []
    return sum(line.startswith(f"{workspace}\tt") for line in lines)


def test_an_unfinished_arm_resumes_in_a_fresh_clone_from_its_checkpoint(tmp_path: Path) -> None:
    agent = make_workspace(tmp_path / "agent")
    whole, whole_log = tmp_path / "whole", tmp_path / "whole.log"
    assert experiment(agent, whole / "out", whole_log).returncode == 0
    repo, log = tmp_path / "repo", tmp_path / "solves.log"
    # 6 holdout baseline solves and cycle 1 (4 batch, 6 gate) finish; the first solve of cycle 2 kills the run.
    killed = experiment(agent, repo / "out", log, CRASH_IN="evolved/seed-0", CRASH_TASKS="t", CRASH_AT="17")
    assert killed.returncode == -9, killed.stderr
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "half an experiment")
    kept = git(repo, "ls-files").split()
    assert "out/evolved/seed-0/checkpoint.tar.gz" in kept
    assert not any("/seed-0/workspace" in k for k in kept), "the working folder itself stays out of git"
    git(tmp_path, "clone", "-q", str(repo), "clone")
    again = tmp_path / "again.log"
    assert experiment(agent, tmp_path / "clone" / "out", again).returncode == 0
    before = evolution_solves(log, repo / "out" / "evolved" / "seed-0" / "workspace")
    after = evolution_solves(again, tmp_path / "clone" / "out" / "evolved" / "seed-0" / "workspace")
    assert before == 16, "the kill came at the first solve of cycle 2"
    assert before + after == evolution_solves(whole_log, whole / "out" / "evolved" / "seed-0" / "workspace"), \
        "the clone went on from cycle 2: nothing of cycle 1 was solved again"
    arms = lambda root: json.loads((root / "out" / "lift.json").read_text())["runs"]  # noqa: E731
    strip = lambda runs: [{k: v for k, v in r.items() if k not in ("cost", "workspace")} for r in runs]  # noqa: E731
    assert strip(arms(tmp_path / "clone")) == strip(arms(whole))


def test_a_damaged_checkpoint_is_refused_naming_the_file(tmp_path: Path) -> None:
    from agent_evolve.errors import WorkspaceError
    from agent_evolve.lift.opening import CHECKPOINT, restore_checkpoint

    folder = tmp_path / "evolved" / "seed-0"
    folder.mkdir(parents=True)
    (folder / CHECKPOINT).write_bytes(b"\x1f\x8b not a tarball")
    with pytest.raises(WorkspaceError, match=f"{CHECKPOINT}: cannot unpack"):
        restore_checkpoint(folder)
    assert (folder / CHECKPOINT).read_bytes().startswith(b"\x1f\x8b"), "the file is left as it was"
    assert sorted(p.name for p in folder.iterdir()) == [CHECKPOINT], "nothing half-unpacked is left behind"


def test_an_arm_whose_last_test_task_failed_for_infrastructure_solves_it_on_resume(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")

    class FlakyGrader(KeywordBenchmark):
        down = {"s119"}  # the last test task: every scoring ends with an infrastructure failure

        def evaluate(self, task: ae.types.Task, trajectory: ae.types.Trajectory) -> ae.types.Feedback:
            if task.id in self.down:
                raise RuntimeError("grader down")
            return super().evaluate(task, trajectory)

    plan = LiftPlan(str(make_workspace(tmp_path / "agent")), "keywords", "keyword", seeds=(0,), cycles=1,
                    test_limit=120, draws=1, control=False, matched=False)
    out, log, bench = tmp_path / "out", tmp_path / "solves.log", FlakyGrader()
    arm = lambda: json.loads((out / "evolved" / "seed-0" / "arm.json").read_text())  # noqa: E731
    views = lambda: [(r["who"], len(r["task_ids"])) for r in read_rows(out / LEDGER_FILE)]  # noqa: E731
    run_lift(plan, bench, CONFIG, out)
    first = arm()
    assert "s119" not in first["test_scores"] and len(first["test_scores"]) == 119 and views() == [(CLAIM, 120)]
    assert "**Incomplete**" in (out / "lift.md").read_text() and "evolved 119" in (out / "lift.md").read_text()
    bench.down = set()
    monkeypatch.setenv("SOLVE_LOG", str(log))
    report = run_lift(plan, bench, CONFIG, out)
    solved = sorted(line.split("\t")[1] for line in log.read_text().splitlines())
    assert solved == ["s119", "s119"], "the baseline and the arm solve only the task they lack; no evolution again"
    again = arm()
    assert len(again["test_scores"]) == 120 and again["test_scores"]["s119"] == 0.0
    assert {k: again[k] for k in ("accepted", "cycles", "score_curve")} == {
        k: first[k] for k in ("accepted", "cycles", "score_curve")}
    assert sorted(views()) == [("baseline", 120), (CLAIM, 120), ("evolved/seed-0", 120)] and report["mean_lift"] == 0.5
    assert "Incomplete" not in (out / "lift.md").read_text()


def test_a_second_process_on_an_experiment_folder_in_use_is_refused_before_it_scores(tmp_path: Path,
                                                                                      monkeypatch) -> None:
    """Two processes on one folder scored every test task twice and counted both in the arms' cost."""
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")
    agent, out = make_workspace(tmp_path / "agent"), tmp_path / "out"
    hold = ("import sys, time\nfrom pathlib import Path\nfrom agent_evolve.lift.opening import experiment_lock\n"
            "with experiment_lock(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(120)\n")
    holder = subprocess.Popen([sys.executable, "-c", hold, str(out)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(SRC)})
    plan = LiftPlan(str(agent), "keywords", "keyword", seeds=(0,), cycles=1, test_limit=120, draws=1, matched=False)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(WorkspaceError, match=f"pid {holder.pid}"):
            run_lift(plan, KeywordBenchmark(), CONFIG, out)
    finally:
        holder.kill()
        holder.wait()
    assert not (out / LEDGER_FILE).exists(), "nothing was scored"
    assert run_lift(plan, KeywordBenchmark(), CONFIG, out)["mean_lift"] == 0.5, "a dead holder's lock is taken over"
