"""An unfinished arm carried across machines: its git-ignored working folder packed into a committed
`checkpoint.tar.gz` after each cycle, unpacked in a clone that lacks it so the run resumes from its journal."""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from pathlib import Path

from agent_evolve.errors import WorkspaceError

CHECKPOINT = "checkpoint.tar.gz"
_LEFT_OUT = ("arm.json", CHECKPOINT, "__pycache__")  # committed on their own, or rebuilt


def _keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    parts = Path(info.name).parts
    if any(part in _LEFT_OUT for part in parts) or info.name.endswith((".lock", ".tmp")):
        return None
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def save_checkpoint(folder: Path) -> Path | None:
    """Pack `folder` (one arm of one seed) into `folder/checkpoint.tar.gz`, atomically; None when it has nothing."""
    entries = [p for p in sorted(folder.iterdir()) if p.name not in _LEFT_OUT] if folder.is_dir() else []
    if not entries:
        return None
    target = folder / CHECKPOINT
    fd, tmp = tempfile.mkstemp(prefix=f".{CHECKPOINT}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz", compresslevel=6) as tar:
            for entry in entries:
                tar.add(entry, arcname=entry.name, filter=_keep)
        os.chmod(tmp, 0o644)  # mkstemp's file is private; a checkpoint is as readable as the rest of the folder
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def restore_checkpoint(folder: Path, working: str = "workspace") -> bool:
    """Unpack `folder/checkpoint.tar.gz` when the arm's `working` folder is missing (a fresh clone; one there is
    newer and wins); True if it did."""
    archive = folder / CHECKPOINT
    if (folder / working).exists() or not archive.is_file():
        return False
    staging = Path(tempfile.mkdtemp(prefix=".restore-", dir=folder))
    try:
        try:
            with tarfile.open(archive, "r:gz") as tar:
                tar.extractall(staging, filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise WorkspaceError(f"{archive}: cannot unpack the arm's checkpoint ({exc}); remove it to start the "
                                 "arm again from its first cycle") from None
        for entry in sorted(staging.iterdir()):
            destination = folder / entry.name
            if destination.is_dir():
                shutil.rmtree(destination)
            elif destination.exists():
                destination.unlink()
            entry.rename(destination)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return True
