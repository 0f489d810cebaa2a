"""Files in and out of a container: work-tree paths checked by text, then inside the container (`RESOLVE_SCRIPT`,
symlinks followed), tar archives built and read, the diff baseline."""

from __future__ import annotations

import io
import posixpath
import tarfile
from pathlib import Path

from agent_evolve.environments.task_env import EnvironmentPathError

VCS_DIRS: tuple[str, ...] = (".git", ".hg", ".svn")
BASELINE_GIT = "baseline.git"
DIFF_EXCLUDES: tuple[str, ...] = ("__pycache__/", "*.py[cod]", ".pytest_cache/")
"""Left out of every diff (the baseline repository's info/exclude): what running Python and its tests leave."""
GIT_IDENTITY = ("-c", "user.name=agent-evolve", "-c", "user.email=agent-evolve@localhost", "-c", "core.autocrlf=false",
                "-c", "commit.gpgsign=false", "-c", "safe.directory=*")
"""The options of every git call on a task's tree (here and in `local_task_git`): a fixed identity, no signing."""

RESOLVE_SCRIPT = r"""
cd -P -- "$1" || exit 3
root=$(pwd -P)
target="$2"
while [ ! -e "$target" ] && [ ! -L "$target" ]; do
  case "$target" in */*) target="${target%/*}" ;; *) target=. ; break ;; esac
done
real=$(readlink -f -- "$target") || exit 4
case "$real/" in "$root"/*) ;; *) echo "$real"; exit 5 ;; esac
if [ "$target" = "$2" ]; then echo "$real"
elif [ "$target" = . ]; then echo "$real/$2"
else echo "$real/${2#"$target"/}"; fi
"""
"""`sh -c RESOLVE_SCRIPT sh WORKDIR PATH`: prints PATH's real absolute place, exit 5 when it is outside WORKDIR.

A path that does not exist yet is judged by its deepest existing ancestor (what `mkdir -p` would extend).
"""


def archive_of_file(name: str, content: bytes, mode: int = 0o644) -> bytes:
    """A tar archive holding one regular file `name`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(content), mode
        tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def archive_of_tree(root: Path) -> bytes:
    """A tar archive of the contents of `root` (names relative to it, symlinks kept as links)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for child in sorted(root.iterdir()):
            tar.add(str(child), arcname=child.name)
    return buffer.getvalue()


def file_from_archive(chunks: bytes, path: str) -> bytes:
    """The content of the one regular file in a `get_archive` stream; EnvironmentPathError when it is not one."""
    with tarfile.open(fileobj=io.BytesIO(chunks), mode="r") as tar:
        members = tar.getmembers()
        if members and members[0].isdir():
            raise IsADirectoryError(f"{path!r} is a folder of the work tree, not a file")
        if len(members) != 1 or not members[0].isfile():
            raise EnvironmentPathError(f"{path!r} is not a regular file of the work tree")
        extracted = tar.extractfile(members[0])
        assert extracted is not None
        return extracted.read()


def listed_files(output: str, base: str) -> list[str]:
    """Work-tree paths from `find . -type f -print0` run in `base`, sorted, version-control folders left out."""
    paths = (posixpath.normpath(posixpath.join(base, name)) for name in output.split("\0") if name)
    return sorted(path for path in paths if not any(part in VCS_DIRS for part in path.split("/")))


def git_argv(state_dir: str, workdir: str, *args: str) -> list[str]:
    """A git command on the baseline repository kept in `state_dir`, whose work tree is the task's."""
    return ["git", f"--git-dir={state_dir}/{BASELINE_GIT}", f"--work-tree={workdir}", *GIT_IDENTITY, *args]
