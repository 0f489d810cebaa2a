"""Paths a model gives to a task environment's file methods: relative, no `..`, and resolving inside the tree."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from agent_evolve.environments.task_env import EnvironmentPathError


def checked_relative(path: str) -> PurePosixPath:
    """`path` as a relative POSIX path; EnvironmentPathError for an absolute path, a `..` part or a NUL byte."""
    if not isinstance(path, str) or not path.strip():
        raise EnvironmentPathError(f"path {path!r} refused: give a non-empty path relative to the work tree")
    if "\x00" in path:
        raise EnvironmentPathError(f"path {path!r} refused: it contains a NUL byte")
    pure = PurePosixPath(path)
    if pure.is_absolute():
        raise EnvironmentPathError(f"path {path!r} refused: absolute paths are not allowed; give it relative to "
                                   "the work tree")
    if ".." in pure.parts:
        raise EnvironmentPathError(f"path {path!r} refused: '..' is not allowed")
    return pure


def resolve_inside(root: Path, path: str) -> Path:
    """The real path of `path` under `root` (which need not exist); refused where a symlink leads out of `root`."""
    relative = checked_relative(path)
    base = Path(os.path.realpath(root))
    target = Path(os.path.realpath(base.joinpath(*relative.parts)))
    if target != base and not target.is_relative_to(base):
        raise EnvironmentPathError(f"path {path!r} refused: it resolves outside the work tree (through a symlink)")
    return target
