"""Limits that count a confined command's whole process tree, and the quota on what it may write.

Memory and process counts come from a cgroup per command; where none can be made (simulated by pointing the
cgroup root at a missing folder) a command run by root is refused unless the user allows it. Writable folders are
overlays on a quota tmpfs whose contents reach the real folder when the command ends.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash
from agent_evolve.environments import (
    Confinement,
    ConfinementUnavailable,
    Limits,
    Mount,
    python_executable,
    run_confined,
)
from agent_evolve.environments import cgroup
from agent_evolve.environments.cgroup import ALLOW_UNBOUNDED_ENV, tree_bounds

MB = 2**20


def _can_make(controller: str) -> bool:
    groups = cgroup.create(64 * MB, 64)
    cgroup.remove(groups)
    return bool(getattr(groups, controller))


needs_memory_cgroup = pytest.mark.skipif(not _can_make("memory"), reason="no writable memory cgroup here (needs "
                                         "root or a delegated cgroup)")
needs_pids_cgroup = pytest.mark.skipif(not _can_make("pids"), reason="no writable pids cgroup here")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="RLIMIT_NPROC bounds non-root users; the refusal is root's")


def py(code: str, limits: Limits, confinement: Confinement | None = None):
    return run_confined([python_executable(), "-I", "-S", "-c", code], confinement or Confinement(), limits)


FOUR_HOLDERS = """
import os
import time
go_read, go_write = os.pipe()
children = []
for _ in range(4):
    ready_read, ready_write = os.pipe()
    if os.fork() == 0:
        os.close(go_write)
        try:
            held = b"x" * (100 * 2**20)
        except MemoryError:
            os._exit(1)
        os.write(ready_write, b"R")
        os.read(go_read, 1)  # returns when the parent closes its end: every survivor still holds its 100 MB
        os.write(1, b"alive\\n")
        os._exit(0)
    os.close(ready_write)
    children.append(ready_read)
os.close(go_read)
for ready in children:
    os.read(ready, 1)  # b"R", or b"" for a child the kernel killed
os.close(go_write)
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
"""


@needs_memory_cgroup
def test_four_children_of_a_256_mb_command_cannot_hold_more_than_256_mb_together() -> None:
    result = py(FOUR_HOLDERS, Limits(timeout_s=30, memory_mb=256, processes=16))
    alive = result.text().split().count("alive")
    assert 1 <= alive <= 2  # each holds 100 MB at once: three would be 300 MB
    assert result.bounds is not None and result.bounds.memory_by == "cgroup" and result.bounds.memory_mb == 256


FORK_STORM = ("import os, time\nn = 0\nfor _ in range(150):\n    try:\n        pid = os.fork()\n"
              "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(3)\n        os._exit(0)\n"
              "    n += 1\nprint(n)")


@needs_pids_cgroup
def test_a_fork_storm_is_bounded_by_the_pids_cgroup() -> None:
    result = py(FORK_STORM, Limits(timeout_s=20, processes=20))
    assert int(result.text().split()[0]) < 20
    assert result.bounds is not None and result.bounds.processes_by == "cgroup"


@needs_root
def test_without_a_cgroup_root_is_refused_and_told_how_to_allow_it(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    monkeypatch.setattr(cgroup, "CGROUP_ROOT", tmp_path / "no-cgroups")
    monkeypatch.delenv(ALLOW_UNBOUNDED_ENV, raising=False)
    with pytest.raises(ConfinementUnavailable, match=f"{ALLOW_UNBOUNDED_ENV}=1"):
        py(FORK_STORM, Limits(timeout_s=20, processes=20))
    monkeypatch.setenv(ALLOW_UNBOUNDED_ENV, "1")
    result = py("print('ran')", Limits(timeout_s=20))
    assert result.text() == "ran\n"
    assert result.bounds is not None and result.bounds.processes_by == "none" and result.bounds.memory_mb is None


def test_the_bounds_that_hold_without_cgroups() -> None:
    limits = Limits(memory_mb=256, processes=20)
    assert tree_bounds(limits, memory_cgroup=True, pids_cgroup=True, as_root=True).memory_mb == 256
    as_user = tree_bounds(limits, memory_cgroup=False, pids_cgroup=False, as_root=False)
    assert (as_user.processes_by, as_user.memory_by, as_user.memory_mb) == ("rlimit", "per-process", 20 * 256)
    as_root = tree_bounds(limits, memory_cgroup=False, pids_cgroup=False, as_root=True)
    assert (as_root.processes_by, as_root.memory_mb) == ("none", None)


def _fake_v2(root: Path, delegated: str) -> Path:
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpu io memory pids\n")
    (root / "cgroup.subtree_control").write_text(delegated)
    return root


def test_cgroup_v2_gets_one_group_with_memory_max_and_pids_max(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    root = _fake_v2(tmp_path / "v2", "memory pids\n")
    own = root / "user.slice" / "session.scope"
    own.mkdir(parents=True)
    (own / "cgroup.subtree_control").write_text("memory pids\n")
    (tmp_path / "self-cgroup").write_text("0::/user.slice/session.scope\n")
    monkeypatch.setattr(cgroup, "OWN_CGROUPS", tmp_path / "self-cgroup")
    groups = cgroup.create(256 * MB, 21, root=root)
    assert groups.memory and groups.pids and len(groups.paths) == 1
    made = groups.paths[0]
    assert made.parent == own  # below our own cgroup, so it also counts against what bounds us
    assert (made / "memory.max").read_text() == str(256 * MB) and (made / "pids.max").read_text() == "21"


def test_cgroup_v2_without_delegated_pids_bounds_memory_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(cgroup, "OWN_CGROUPS", tmp_path / "none")
    groups = cgroup.create(64 * MB, 9, root=_fake_v2(tmp_path / "v2", "memory\n"))
    assert groups.memory and not groups.pids
    assert not (groups.paths[0] / "pids.max").exists()


def test_cgroup_v1_gets_a_memory_and_a_pids_group(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(cgroup, "OWN_CGROUPS", tmp_path / "none")
    for controller in ("memory", "pids"):
        (tmp_path / "v1" / controller).mkdir(parents=True)
    groups = cgroup.create(64 * MB, 9, root=tmp_path / "v1")
    memory, pids = groups.paths
    assert (memory / "memory.limit_in_bytes").read_text() == str(64 * MB) and (pids / "pids.max").read_text() == "9"


def test_no_cgroup_where_the_root_is_missing(tmp_path: Path) -> None:
    assert cgroup.create(64 * MB, 9, root=tmp_path / "missing") == cgroup.TreeCgroups()


@needs_pids_cgroup
def test_the_cgroups_are_removed_after_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[cgroup.TreeCgroups] = []
    create = cgroup.create
    monkeypatch.setattr(cgroup, "create", lambda *args, **kw: made.append(create(*args, **kw)) or made[-1])
    py("import os\nif os.fork() == 0:\n    os.setsid()\n    import time; time.sleep(30)", Limits(timeout_s=10))
    assert made and made[0].paths and not any(path.exists() for path in made[0].paths)


def test_a_writable_folder_cannot_take_more_than_the_quota(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = f"echo small > {work}/small; dd if=/dev/zero of={work}/big bs=1M count=40 2>&1 | grep 'No space'"
    result = run_confined(["sh", "-c", script], Confinement(mounts=(Mount.bind(work, writable=True),)),
                          Limits(timeout_s=20, write_mb=8, file_size_mb=64))
    assert "No space left" in result.text()
    assert (work / "big").stat().st_size <= 8 * MB
    assert (work / "small").read_text() == "small\n"


def test_the_shell_cannot_write_more_than_its_quota(tmp_path: Path) -> None:
    layer = tmp_path / "ws" / "memory"
    layer.mkdir(parents=True)
    quota = Limits().write_mb
    out = ConfinedBash(tmp_path / "ws", timeout_s=30, layers=("memory",)).run(
        "for i in $(seq 20); do head -c 15M /dev/zero > memory/part$i || break; done")
    written = sum(path.stat().st_size for path in layer.iterdir())
    assert written <= quota * MB < 20 * 15 * MB and "No space left" in out
    assert written > 0  # what fitted reached the workspace


def test_deletions_renames_and_links_reach_the_real_folder_and_fifos_do_not(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "old").mkdir(parents=True)
    (work / "old" / "kept.txt").write_text("kept\n")
    (work / "gone.txt").write_text("gone\n")
    (work / "link").symlink_to(tmp_path / "outside.txt")
    (work / "remade").mkdir()
    (work / "remade" / "stale.txt").write_text("stale\n")
    script = (f"cd {work} && rm gone.txt && mv old new && mkfifo pipe && rm link && echo inside > link "
              "&& ln -s new/kept.txt alias && rm -r remade && mkdir remade && echo fresh > remade/fresh.txt")
    result = run_confined(["sh", "-c", script], Confinement(mounts=(Mount.bind(work, writable=True),)),
                          Limits(timeout_s=10))
    assert result.exit_code == 0, result.text("stderr")
    assert sorted(p.name for p in work.iterdir()) == ["alias", "link", "new", "remade"]
    assert [p.name for p in (work / "remade").iterdir()] == ["fresh.txt"]  # a folder made anew hides the old one
    assert (work / "new" / "kept.txt").read_text() == "kept\n" and os.readlink(work / "alias") == "new/kept.txt"
    assert (work / "link").read_text() == "inside\n" and not (tmp_path / "outside.txt").exists()


def test_a_timed_out_command_keeps_what_it_wrote_and_leaves_no_process(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = f"echo partial > {work}/f; (sleep 3; echo late > {work}/late) & setsid sleep 30 & sleep 30"
    result = run_confined(["sh", "-c", script], Confinement(mounts=(Mount.bind(work, writable=True),)),
                          Limits(timeout_s=1))
    assert result.timed_out and result.exit_code is None
    assert (work / "f").read_text() == "partial\n"
    time.sleep(3)
    assert not (work / "late").exists()
