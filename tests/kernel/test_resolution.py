"""Evolver resolution: seed names, paths and instances; concurrent solving keeps task order."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from kernel_fakes import KeywordAgent, KeywordBenchmark, make_workspace

import agent_evolve as ae
from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.engine.solving import solve_all
from agent_evolve.errors import WorkspaceError
from agent_evolve.registry import seed_path
from agent_evolve.types import Task, Trajectory


def test_seed_name_is_copied_to_the_working_directory(tmp_path: Path) -> None:
    seed_files = sorted(p.relative_to(seed_path("gsm8k")) for p in seed_path("gsm8k").rglob("*"))
    evolver = ae.Evolver("gsm8k", "gsm8k", workspace_dir=str(tmp_path / "w"))
    assert isinstance(evolver.agent, ReferenceAgent)
    assert Path(evolver.workspace.path) == (tmp_path / "w").resolve()
    assert (tmp_path / "w" / "prompts" / "system.md").read_text() == (seed_path("gsm8k") / "prompts" / "system.md").read_text()
    assert sorted(p.relative_to(seed_path("gsm8k")) for p in seed_path("gsm8k").rglob("*")) == seed_files
    assert type(evolver.engine).__name__ == "DemoSearchEngine"  # the default with the embedded model


def test_workspace_path_is_used_in_place_and_a_second_evolver_reuses_it(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    first = ae.Evolver(str(workspace), KeywordBenchmark(), engine="adaptive")
    assert Path(first.workspace.path) == workspace.resolve() and isinstance(first.agent, KeywordAgent)
    copy = ae.Evolver(str(workspace), KeywordBenchmark(), engine="adaptive", workspace_dir=str(tmp_path / "copy"))
    assert (tmp_path / "copy" / "manifest.yaml").exists() and Path(copy.workspace.path) == (tmp_path / "copy").resolve()


def test_a_non_empty_foreign_directory_is_never_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("keep me")
    with pytest.raises(WorkspaceError, match="refusing to overwrite"):
        ae.Evolver("gsm8k", "gsm8k", workspace_dir=str(target))
    assert (target / "notes.txt").read_text() == "keep me"


def test_config_may_be_a_yaml_path(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("batch_size: 3\n")
    evolver = ae.Evolver(KeywordAgent(make_workspace(tmp_path / "ws")), KeywordBenchmark(), str(tmp_path / "c.yaml"), "adaptive")
    assert evolver.config.batch_size == 3


def test_concurrent_solving_respects_the_limit_and_keeps_task_order(tmp_path: Path) -> None:
    in_flight, peak, lock = [0], [0], threading.Lock()

    class Slow(KeywordAgent):
        def solve(self, task: Task) -> Trajectory:
            with lock:
                in_flight[0] += 1
                peak[0] = max(peak[0], in_flight[0])
            time.sleep(0.01 * (int(task.id[1:]) % 3))
            with lock:
                in_flight[0] -= 1
            return Trajectory(task_id=task.id, output=task.id)

    tasks = KeywordBenchmark(n=24).get_tasks("train", limit=24)
    observations = solve_all(Slow(make_workspace(tmp_path / "ws")), KeywordBenchmark(n=24), tasks, concurrency=4)
    assert [o.task.id for o in observations] == [t.id for t in tasks]
    assert [o.trajectory.output for o in observations] == [t.id for t in tasks]
    assert 1 < peak[0] <= 4
