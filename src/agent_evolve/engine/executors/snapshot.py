"""A committed workspace version shipped to workers as a tar archive, never the driver's live tree."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.engine.versioning import VersionControl
from agent_evolve.errors import WorkspaceError

SNAPSHOT_ROOT = Path(tempfile.gettempdir()) / "agent-evolve-snapshots"
_SAFE = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python 3.11.4+ refuses unsafe members


@dataclass(frozen=True)
class WorkspaceSnapshot:
    """The tree of one commit (`key` names it uniquely for a run) as tar bytes."""

    key: str
    archive: bytes

    @classmethod
    def of(cls, workspace: str | Path, run_token: str) -> WorkspaceSnapshot:
        """The workspace's HEAD commit; in the loop that is the accepted version or the candidate under gate."""
        vc = VersionControl(workspace)
        if not vc.is_repo() or not vc.has_commits():
            raise WorkspaceError(f"{workspace}: remote executors ship a committed version; this is not a git repository")
        sha = vc.head()
        return cls(f"{run_token}-{sha}", vc.archive(sha))

    def materialize(self) -> Path:
        """Unpack into a folder of this process (atomically, so a crash never leaves a half-written one)."""
        target = SNAPSHOT_ROOT / f"{self.key}-{os.getpid()}"
        if target.is_dir():
            return target
        SNAPSHOT_ROOT.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=SNAPSHOT_ROOT))
        with tarfile.open(fileobj=io.BytesIO(self.archive)) as tar:
            tar.extractall(staging, **_SAFE)
        staging.rename(target)
        return target

    def discard(self) -> None:
        shutil.rmtree(SNAPSHOT_ROOT / f"{self.key}-{os.getpid()}", ignore_errors=True)
