"""git as a tool: a workspace's hooks and fsmonitor never run, packed refs and a concurrent `pack-refs` are read
correctly, a lock another git holds is waited for briefly, and `rollback` clears a stale `index.lock` like `run`."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from kernel_fakes import make_workspace

from agent_evolve.engine.versioning import VersionControl, accepted_tag
from agent_evolve.userview.rollback import rollback

sys.path.insert(0, str(Path(__file__).parents[1] / "userview"))

from userview_fakes import make_run  # noqa: E402

HOOKS = ("pre-commit", "post-commit", "commit-msg", "reference-transaction", "post-checkout", "post-index-change")


def repo(tmp_path: Path) -> VersionControl:
    vc = VersionControl(make_workspace(tmp_path / "ws"))
    vc.init()
    vc.commit("start", tag=accepted_tag(0))
    return vc


def marker_script(path: Path, marker: Path) -> Path:
    path.write_text(f"#!/bin/sh\necho ran >> '{marker}'\n")
    path.chmod(0o755)
    return path


def git(vc: VersionControl, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=vc.path, capture_output=True, text=True, check=True).stdout


def release_on_first_wait(lock: Path, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Make the first backoff wait remove `lock` (another git finishing), so the test depends on no clock."""
    waits: list[float] = []

    def wait(seconds: float) -> None:
        waits.append(seconds)
        lock.unlink(missing_ok=True)

    monkeypatch.setattr(time, "sleep", wait)
    return waits


def test_hooks_fsmonitor_and_an_external_diff_of_the_workspace_never_run(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    ran = tmp_path / "ran"
    for hook in HOOKS:
        marker_script(vc.path / ".git" / "hooks" / hook, ran)
    monitor = marker_script(tmp_path / "fsmonitor.sh", ran)
    git(vc, "config", "core.fsmonitor", str(monitor))
    git(vc, "config", "diff.external", str(monitor))
    (vc.path / "prompts" / "system.md").write_text("changed\n")
    vc.commit("changed", tag=accepted_tag(1))
    vc.tag_many({"cand-1": "HEAD~1", "nested/name": "HEAD"})
    (vc.path / "prompts" / "system.md").write_text("again\n")
    assert vc.changed_paths(accepted_tag(1)) == ["prompts/system.md"]
    VersionControl(vc.path).reset_to(accepted_tag(0))
    vc.restore_paths(accepted_tag(1), ["prompts/system.md"])
    assert "+changed" in vc.get_diff(accepted_tag(0), accepted_tag(1))
    assert vc.list_tags() == [accepted_tag(0), accepted_tag(1)]
    assert not ran.exists(), ran.read_text()


def test_a_git_environment_of_the_caller_cannot_redirect_commands(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    other = repo(tmp_path / "other")
    vc = repo(tmp_path)
    monkeypatch.setenv("GIT_DIR", str(other.path / ".git"))
    (vc.path / "prompts" / "system.md").write_text("mine\n")
    vc.commit("mine", tag=accepted_tag(1))
    monkeypatch.delenv("GIT_DIR")
    assert git(vc, "show", f"{accepted_tag(1)}:prompts/system.md") == "mine\n"
    assert git(other, "tag", "--list").split() == [accepted_tag(0)]


def test_tags_are_read_from_packed_refs(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    head = vc.head()
    vc.tag_many({"cand-1": head, "pre-evo-1": head})
    git(vc, "pack-refs", "--all", "--prune")
    assert not (vc.path / ".git" / "refs" / "tags" / "cand-1").exists()
    fresh = VersionControl(vc.path)
    assert fresh.resolve("cand-1") == head and not fresh.has_ref("missing")
    assert vc.commit_if_changed("same tree", accepted_tag(1)) == head
    assert fresh.list_tags() == [accepted_tag(0), accepted_tag(1)]


def test_ref_reads_and_tag_writes_survive_a_concurrent_pack_refs_loop(tmp_path: Path) -> None:
    vc = repo(tmp_path)
    head = vc.head()
    stop = threading.Event()

    def pack_forever() -> None:
        while not stop.is_set():
            subprocess.run(["git", "pack-refs", "--all", "--prune"], cwd=vc.path, capture_output=True)

    packer = threading.Thread(target=pack_forever, daemon=True)
    packer.start()
    try:
        for round_ in range(40):
            names = [f"cand-{round_}-{i}" for i in range(8)]
            vc.tag_many({name: head for name in names})
            assert [vc.resolve(name) for name in names] == [head] * 8
            assert vc.resolve(accepted_tag(0)) == head
    finally:
        stop.set()
        packer.join()
    assert len(vc.list_tags("cand-")) == 320


def test_a_held_tag_lock_is_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vc = repo(tmp_path)
    lock = vc.path / ".git" / "refs" / "tags" / "cand-1.lock"
    lock.write_text("held by a pack-refs\n")
    waits = release_on_first_wait(lock, monkeypatch)
    vc.tag_many({"cand-1": "HEAD"})
    assert waits and vc.resolve("cand-1") == vc.head()


def test_a_held_index_lock_is_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vc = repo(tmp_path)
    lock = vc.path / ".git" / "index.lock"
    lock.write_text("")
    waits = release_on_first_wait(lock, monkeypatch)
    (vc.path / "prompts" / "system.md").write_text("changed\n")
    vc.commit("changed", tag=accepted_tag(1))
    assert waits and git(vc, "show", f"{accepted_tag(1)}:prompts/system.md") == "changed\n"


def test_rollback_clears_a_stale_index_lock_like_run_does(tmp_path: Path) -> None:
    workspace = make_run(tmp_path / "ws", cycles=1)
    (workspace / ".git" / "index.lock").write_text("")
    done = rollback(workspace, accepted_tag(0), force=True)
    assert done.accepted == accepted_tag(0)
    assert not (workspace / ".git" / "index.lock").exists()
    assert VersionControl(workspace).changed_paths(accepted_tag(0)) == []
