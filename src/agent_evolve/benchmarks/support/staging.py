"""Folders built once and shared, made beside their target and moved into place so concurrent builders never see a
half-made one."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

STAGING_ROOT = Path(tempfile.gettempdir()) / f"agent-evolve-staging-{os.getuid()}"
"""Where built folders live by default (one private folder per user), named by what they were built from."""


def digest_of(folders: Iterable[Path]) -> str:
    """A short content hash of every file under `folders` (paths and bytes)."""
    hasher = hashlib.sha256()
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            hasher.update(str(path.relative_to(folder.parent)).encode())
            hasher.update(path.read_bytes())
    return hasher.hexdigest()[:16]


def build_once(target: Path, build: Callable[[Path], None], done: Callable[[Path], bool] | None = None) -> Path:
    """`target`, built by `build(scratch_folder)` unless it exists (or `done(target)` says it is complete)."""
    complete = done or Path.is_dir
    if complete(target):
        return target
    if target.is_relative_to(STAGING_ROOT):
        STAGING_ROOT.mkdir(mode=0o700, exist_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        build(scratch)
        try:
            scratch.rename(target)
        except OSError:
            if not complete(target):
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target
