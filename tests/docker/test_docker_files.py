"""The docker backend's file helpers without a daemon: the in-container path resolver (run here by /bin/sh),
archives of one file and of a tree, and listings."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from agent_evolve.environments.docker_task import (
    RESOLVE_SCRIPT,
    archive_of_file,
    archive_of_tree,
    file_from_archive,
    listed_files,
)
from agent_evolve.environments.task_env import EnvironmentPathError


def resolve(root: Path, path: str) -> tuple[int, str]:
    done = subprocess.run(["sh", "-c", RESOLVE_SCRIPT, "sh", str(root), path], capture_output=True, text=True,
                          check=False)
    return done.returncode, done.stdout.strip()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.txt").write_text("a")
    (root / "out").symlink_to(tmp_path)
    (root / "inner").symlink_to(root / "sub")
    (root / "dangling").symlink_to(tmp_path / "nowhere")
    return root


def test_paths_inside_resolve_to_their_real_place(tree: Path) -> None:
    real = str(tree.resolve())
    assert resolve(tree, "sub/a.txt") == (0, f"{real}/sub/a.txt")
    assert resolve(tree, "inner/a.txt") == (0, f"{real}/sub/a.txt"), "a symlink inside the tree is followed"
    assert resolve(tree, "new/deeper/file.txt") == (0, f"{real}/new/deeper/file.txt")
    assert resolve(tree, "sub/new.txt") == (0, f"{real}/sub/new.txt")
    assert resolve(tree, ".") == (0, real)


@pytest.mark.parametrize("path", ["out", "out/x.txt", "out/new/dir/x.txt", "dangling"])
def test_paths_through_symlinks_that_leave_are_refused(tree: Path, path: str) -> None:
    assert resolve(tree, path)[0] == 5


def test_archives_round_trip_and_refuse_what_is_not_a_file(tree: Path) -> None:
    assert file_from_archive(archive_of_file("x.txt", b"data", 0o755), "x.txt") == b"data"
    with tarfile.open(fileobj=io.BytesIO(archive_of_file("x.sh", b"", 0o755))) as tar:
        assert tar.getmembers()[0].mode == 0o755
    folder = archive_of_tree(tree)
    with tarfile.open(fileobj=io.BytesIO(folder)) as tar:
        names = set(tar.getnames())
        assert {"sub", "sub/a.txt", "out"} <= names and tar.getmember("out").issym()
    as_docker_sends_a_folder = io.BytesIO()
    with tarfile.open(fileobj=as_docker_sends_a_folder, mode="w") as tar:
        tar.add(str(tree / "sub"), arcname="sub")
    with pytest.raises(IsADirectoryError):
        file_from_archive(as_docker_sends_a_folder.getvalue(), "sub")
    link = io.BytesIO()
    with tarfile.open(fileobj=link, mode="w") as tar:
        info = tarfile.TarInfo("l")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(info)
    with pytest.raises(EnvironmentPathError, match="not a regular file"):
        file_from_archive(link.getvalue(), "l")


def test_listings_are_relative_sorted_and_skip_version_control() -> None:
    found = "./b.txt\0./.git/config\0./a/.hg/x\0./a/z.py\0"
    assert listed_files(found, ".") == ["a/z.py", "b.txt"]
    assert listed_files("./z.py\0", "pkg") == ["pkg/z.py"]
