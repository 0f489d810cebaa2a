"""Whether a run holds a workspace (the loop keeps an exclusive flock on `evolution/.lock` while it runs)."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager

from agent_evolve.engine.records import RunRecords
from agent_evolve.errors import WorkspaceError


def run_is_live(records: RunRecords) -> bool:
    """Probe the run lock without creating or changing anything; a held lock means a run is in progress."""
    if not records.lock.exists():
        return False
    with records.lock.open("r") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


@contextmanager
def holding_run_lock(records: RunRecords) -> Iterator[None]:
    """Hold the run lock for a change to the run's records, so no run starts halfway through it."""
    records.root.mkdir(parents=True, exist_ok=True)
    with records.lock.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise WorkspaceError(f"{records.workspace}: a run is in progress; stop it first") from exc
        yield
