"""Recovery at start: stale git locks, a cut-short git init and torn JSONL tails never stop a rerun."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent_evolve.contract.jsonl import read_jsonl
from agent_evolve.engine.versioning import is_half_initialised, recover_git, stale_git_locks
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.errors import WorkspaceError

HERE = Path(__file__).parent
LOCKS = (".git/index.lock", ".git/HEAD.lock", ".git/refs/heads/main.lock", ".git/refs/tags/evo-1.lock")


def run(workspace: Path, crash_at: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CRASH_AT"}
    if crash_at:
        env["CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, str(HERE / "kill_loop.py"), "run", str(workspace)], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    done = run(tmp_path_factory.mktemp("reference") / "ws")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_rerun_after_a_kill_removes_stale_git_locks_and_torn_lines(tmp_path: Path, reference: dict) -> None:
    workspace = tmp_path / "ws"
    crashed = run(workspace, crash_at="step:2")
    assert crashed.returncode == -signal.SIGKILL
    for lock in LOCKS:
        (workspace / lock).parent.mkdir(parents=True, exist_ok=True)
        (workspace / lock).write_text("")
    records = workspace / "evolution"
    with open(records / "journal.jsonl", "a") as handle:
        handle.write('{"cycle": 2, "phase": "ste')
    with open(records / "history.jsonl", "a") as handle:
        handle.write('{"cycle": 9')
    resumed = run(workspace)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout) == reference
    assert not any((workspace / lock).exists() for lock in LOCKS)
    assert all(line.endswith("}") for line in (records / "journal.jsonl").read_text().splitlines())


def test_a_corrupt_middle_line_stops_the_rerun_naming_file_and_line(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    assert run(workspace, crash_at="step:2").returncode == -signal.SIGKILL
    journal = workspace / "evolution" / "journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text(lines[0] + "{garbage\n" + "".join(lines[1:]))
    before = journal.read_bytes()
    resumed = run(workspace)
    assert resumed.returncode != 0
    assert f"{journal}:2: not valid JSON" in resumed.stderr
    assert journal.read_bytes() == before


def test_stale_locks_are_found_and_removed(tmp_path: Path) -> None:
    vc = VersionControl(tmp_path)
    vc.init()
    vc.commit("first", tag="evo-0")
    for lock in LOCKS:
        (tmp_path / lock).write_text("")
    assert [str(p.relative_to(tmp_path)) for p in stale_git_locks(tmp_path / ".git")] == sorted(LOCKS)
    vc.init()
    assert stale_git_locks(tmp_path / ".git") == []
    vc.commit("second", tag="evo-1")
    assert vc.list_tags() == ["evo-0", "evo-1"]


def test_a_cut_short_git_init_is_redone_but_a_real_repository_is_kept(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("")
    assert is_half_initialised(tmp_path / ".git")
    vc = VersionControl(tmp_path)
    vc.init()
    vc.commit("first")
    assert vc.has_commits()
    (tmp_path / ".git" / "HEAD").unlink()
    assert not is_half_initialised(tmp_path / ".git")  # it holds objects: never deleted
    recover_git(tmp_path)
    assert any((tmp_path / ".git" / "objects").rglob("*"))
    with pytest.raises(WorkspaceError):
        vc.head()


def test_reading_skips_only_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n{"a": 2')
    assert read_jsonl(path) == [{"a": 1}]
    path.write_text('{"a": 1}\n{"a": 2\n')
    with pytest.raises(WorkspaceError, match=r"r.jsonl:2: not valid JSON"):
        read_jsonl(path)
