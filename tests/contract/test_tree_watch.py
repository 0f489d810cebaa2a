"""The kernel watch proves a tree unchanged only when it is: every kind of change moves the mark."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent_evolve.contract import tree_watch as tw
from agent_evolve.contract.paths import atomic_write
from agent_evolve.contract.skill_bank import scan_bank

pytestmark = pytest.mark.skipif(tw.INotify is None, reason="inotify is Linux only (inotify-simple)")

SKILL = "---\nname: {name}\ndescription: {description}\n---\nBody.\n"


def tree(root: Path) -> Path:
    (root / "skills" / "alpha").mkdir(parents=True)
    (root / "skills" / "alpha" / "SKILL.md").write_text(SKILL.format(name="alpha", description="First."))
    (root / "prompts").mkdir()
    (root / "prompts" / "system.md").write_text("base\n")
    (root / "evolution").mkdir()
    return root


@pytest.mark.parametrize("change", [
    "modify", "append", "chmod", "delete", "new file", "new folder with a file", "rename", "atomic replace",
    "touch mtime only", "folder removed",
])
def test_every_change_moves_the_mark(tmp_path: Path, change: str) -> None:
    root = tree(tmp_path / "ws")
    watch = tw.TreeWatch(str(root), ("evolution",), (".pyc",))
    before = watch.mark()
    assert before is not None and watch.mark() == before  # nothing changed: the same mark
    prompt = root / "prompts" / "system.md"
    if change == "modify":
        prompt.write_text("edit\n")
    elif change == "append":
        with prompt.open("a") as handle:
            handle.write("more\n")
    elif change == "chmod":
        prompt.chmod(0o755)
    elif change == "delete":
        prompt.unlink()
    elif change == "new file":
        (root / "prompts" / "extra.md").write_text("x")
    elif change == "new folder with a file":
        (root / "skills" / "beta").mkdir()
        (root / "skills" / "beta" / "SKILL.md").write_text("x")
    elif change == "rename":
        prompt.rename(root / "prompts" / "renamed.md")
    elif change == "atomic replace":
        atomic_write(prompt, "replaced\n")
    elif change == "touch mtime only":
        os.utime(prompt, ns=(1, 1))
    elif change == "folder removed":
        shutil.rmtree(root / "skills" / "alpha")
    assert watch.mark() != before


def test_skipped_folders_and_suffixes_do_not_move_it(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    watch = tw.TreeWatch(str(root), ("evolution", "__pycache__"), (".pyc",))
    before = watch.mark()
    (root / "evolution" / "journal.jsonl").write_text("{}\n")
    (root / "evolution" / "deep").mkdir()
    (root / "evolution" / "deep" / "x").write_text("x")
    (root / "prompts" / "cache.pyc").write_bytes(b"\0")
    (root / "prompts" / "__pycache__").mkdir()
    (root / "prompts" / "__pycache__" / "m.cpython.pyc").write_bytes(b"\0")
    assert watch.mark() == before


def test_a_folder_made_after_the_watch_is_watched_too(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    watch = tw.TreeWatch(str(root))
    (root / "skills" / "beta" / "scripts").mkdir(parents=True)
    settled = watch.mark()
    (root / "skills" / "beta" / "scripts" / "run.sh").write_text("echo\n")
    assert watch.mark() != settled
    assert "skills/beta/scripts/run.sh" in watch.paths()


def test_paths_follow_creations_and_removals_and_a_replace_adds_nothing(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    watch = tw.TreeWatch(str(root), ("evolution",))
    start = watch.paths()
    assert start == {"skills/alpha/SKILL.md", "prompts/system.md"}
    atomic_write(root / "prompts" / "system.md", "new\n")  # a temporary file, then a rename over the old one
    assert watch.paths() == start
    (root / "notes.md").write_text("n")
    assert watch.paths() == start | {"notes.md"}
    (root / "notes.md").unlink()
    shutil.rmtree(root / "skills" / "alpha")
    assert watch.paths() == {"prompts/system.md"}


def test_a_moved_folder_or_a_removed_root_cannot_be_vouched_for(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    watch = tw.TreeWatch(str(root))
    before = watch.mark()
    (root / "skills" / "alpha").rename(root / "skills" / "gamma")  # paths under a moved folder are stale: reopen
    after = watch.mark()
    assert after is not None and after.epoch != before.epoch
    assert "skills/gamma/SKILL.md" in watch.paths()
    shutil.rmtree(root)
    assert watch.mark() is None


def test_links_are_noted_not_followed(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    outside = tmp_path / "outside"
    outside.mkdir()
    watch = tw.TreeWatch(str(root))
    assert not (watch.mark() and watch.has_links)
    (root / "skills" / "linked").symlink_to(outside)
    watch.mark()
    assert watch.has_links


def test_a_forked_child_reads_none_of_its_parents_events(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    watch = tw.tree_watch(root)
    before = watch.mark()
    (root / "prompts" / "system.md").write_text("changed before the fork\n")
    pid = os.fork()
    if pid == 0:  # the child: the parent's watch answers None and leaves the queue alone
        code = 0 if watch.mark() is None and tw.tree_watch(root) is not watch else 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert watch.mark() != before


def test_scan_bank_reuses_an_unchanged_scan_and_sees_an_edit(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    first = scan_bank(root)
    assert scan_bank(root) is first
    skill = root / "skills" / "alpha" / "SKILL.md"
    skill.write_text(SKILL.format(name="alpha", description="Edited."))
    edited = scan_bank(root)
    assert edited is not first and edited[0].skill.description == "Edited."
    (root / "skills" / "beta").mkdir()
    (root / "skills" / "beta" / "SKILL.md").write_text(SKILL.format(name="beta", description="Second."))
    assert [e.folder for e in scan_bank(root)] == ["alpha", "beta"]


def test_scan_bank_never_trusts_the_watch_over_a_linked_skill(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    elsewhere = root / "library" / "shared"  # inside the workspace, outside the watched skills/ folder
    elsewhere.mkdir(parents=True)
    (elsewhere / "SKILL.md").write_text(SKILL.format(name="shared", description="Outside."))
    (root / "skills" / "shared").symlink_to(elsewhere)
    scan_bank(root)
    (elsewhere / "SKILL.md").write_text(SKILL.format(name="shared", description="Changed outside."))
    found = {e.folder: e for e in scan_bank(root)}
    assert found["shared"].skill.description == "Changed outside."
