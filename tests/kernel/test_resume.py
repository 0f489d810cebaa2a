"""kill -9 at any point of a cycle, then rerun: every cycle happens once, nothing is lost or doubled."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace, reference_manifest

import agent_evolve as ae
from agent_evolve.errors import AgentEvolveError
from agent_evolve.testing import ScriptedLLM

HERE = Path(__file__).parent


def run_script(workspace: Path, crash_at: str | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{HERE}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("CRASH_AT", None)
    if crash_at:
        env["CRASH_AT"] = crash_at
    return subprocess.run(
        [sys.executable, str(HERE / "crash_run.py"), str(workspace)], env=env, capture_output=True, text=True, timeout=300
    )


def summary(workspace: Path) -> dict:
    history = ae.EvolutionHistory(workspace)
    records = history.cycle_records()
    journal = [json.loads(line) for line in (workspace / "evolution" / "journal.jsonl").read_text().splitlines()]
    return {
        "cycles": [r["cycle"] for r in records],
        "outcomes": [r["metadata"]["outcome"] for r in records],
        "batch_lines": [len((workspace / r["observation_batch"]).read_text().splitlines()) for r in records],
        "observed": [o.task.id for o in history.get_observations()],
        "steps": (workspace / "evolution" / "engine" / "state" / "steps.log").read_text(),
        "recorded": [e["cycle"] for e in journal if e["phase"] == "recorded"],
        "tags": ae.VersionControl(workspace).list_tags(),
        "prompt": (workspace / "prompts" / "system.md").read_text(),
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    workspace = tmp_path_factory.mktemp("reference") / "ws"
    assert run_script(workspace, None).returncode == 0
    return summary(workspace)


# Solve calls: 1-6 baseline holdout, 7-10 cycle 1 batch, 11-16 its gate, 17-20 cycle 2 batch, 21-26 its gate.
CRASH_POINTS = ["solve#3", "solve#9", "step:1", "after-step:2", "solve#18", "solve#23", "cycle-end:2", "step:3"]


@pytest.mark.parametrize("crash_at", CRASH_POINTS)
def test_kill_9_then_rerun_gives_every_cycle_once(tmp_path: Path, reference: dict, crash_at: str) -> None:
    workspace = tmp_path / "ws"
    crashed = run_script(workspace, crash_at)
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr
    resumed = run_script(workspace, None)
    assert resumed.returncode == 0, resumed.stderr
    assert "completed 3" in resumed.stdout
    assert summary(workspace) == reference
    assert reference["cycles"] == [1, 2, 3] and reference["steps"] == "1\n2\n3\n"
    assert reference["outcomes"] == ["accepted", "accepted", "rejected"]
    assert len(reference["observed"]) == len(set(reference["observed"])) == 12


def test_files_edited_after_the_run_ended_are_kept_before_a_rerun_resets_them(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The next cycle resets the workspace to the accepted version: edits made since the run ended were lost."""
    workspace = make_workspace(tmp_path / "ws")

    def rerun(cycles: int) -> ae.EvolutionResult:
        config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=1)
        return ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, PlanEngine([("noop",)])).run(cycles)

    rerun(1)
    (workspace / "prompts" / "system.md").write_text("my own edit\n")
    (workspace / "notes.md").write_text("new file\n")
    assert rerun(2).cycles_completed == 2
    vc = ae.VersionControl(workspace)
    kept = lambda: vc._git("for-each-ref", "--format=%(refname)", "refs/kept/").split()  # noqa: E731
    [ref] = kept()
    assert vc._git("show", f"{ref}:prompts/system.md") == "my own edit\n"
    assert vc._git("show", f"{ref}:notes.md") == "new file\n"
    assert ref in caplog.text
    assert (workspace / "prompts" / "system.md").read_text() == "baseline\n", "the run went on from evo-0"
    rerun(3)
    assert kept() == [ref], "an untouched workspace keeps nothing"


class Killed(BaseException):
    """Stands for a kill: not an agent failure the solver records, so it ends the run."""


def test_a_run_killed_in_cycle_1_records_the_usage_per_cycle_an_uninterrupted_one_does(tmp_path: Path) -> None:
    """A fresh run's cycle 1 counts the baseline's usage; a run resumed in cycle 1 counted only what followed it."""
    def run(name: str, kill_at: int = 0) -> list[dict]:
        calls = iter(range(1, 1000))

        def answer(messages: list) -> str:
            if next(calls) == kill_at:
                raise Killed
            return "k0"

        workspace = tmp_path / name
        if not workspace.exists():
            make_workspace(workspace, manifest=reference_manifest(name))
        config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=1, preflight=False)
        ae.Evolver(str(workspace), KeywordBenchmark(n=10), config, PlanEngine([("prompt", "k0")]),
                   clients={"agent": ScriptedLLM([answer] * 100)}).run(2)
        return [r["metadata"]["usage"] for r in ae.EvolutionHistory(workspace).cycle_records()]

    reference = run("reference")
    with pytest.raises(Killed):
        run("killed", kill_at=5)  # the baseline's 3 solves are journaled, cycle 1's batch is under way
    assert run("killed") == reference
    assert reference[0]["agent"]["calls"] == 3 + 4 + 3, "baseline, batch and gate"


def test_a_rerun_whose_budget_is_already_spent_stops_without_recording_an_empty_cycle(tmp_path: Path) -> None:
    """Each rerun of a spent workspace recorded one more out_of_budget cycle, using up the cycles asked for."""
    workspace = make_workspace(tmp_path / "ws", manifest=reference_manifest("spent"))

    def run() -> tuple[str, list[int]]:
        config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=1, preflight=False, max_total_tokens=40)
        result = ae.Evolver(str(workspace), KeywordBenchmark(n=10), config, PlanEngine([("prompt", "k0")]),
                            clients={"agent": ScriptedLLM(["k0"] * 100)}).run(5)
        return result.details["stop_reason"], [r["cycle"] for r in ae.EvolutionHistory(workspace).cycle_records()]

    first = run()
    assert first[0] == "out_of_budget" and len(first[1]) < 5
    assert run() == run() == first


def test_a_rerun_on_a_benchmark_that_lost_planned_tasks_names_them_and_how_to_start_fresh(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=1)
    ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(n=20), config, PlanEngine([("noop",)])).run(1)
    with pytest.raises(AgentEvolveError, match=r"no longer has 2 task\(s\) .*\(t18, t19\).*another workspace"):
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(n=18), config, PlanEngine([("noop",)])).run(2)
