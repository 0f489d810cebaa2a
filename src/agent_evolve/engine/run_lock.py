"""The run lock: an exclusive flock on the records' `.lock` file, held by a run and by anything changing its records."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from agent_evolve.contract.regular_files import open_regular
from agent_evolve.engine.records import RunRecords
from agent_evolve.errors import WorkspaceError


def run_is_live(records: RunRecords) -> bool:
    """Probe the run lock without creating or changing anything; a held lock means a run is in progress."""
    if not records.lock.exists():
        return False
    with os.fdopen(open_regular(records.lock), "r") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


LOCK_GRACE_S = 3.0  # a SIGKILLed run's forked, not yet exec'd git child may hold the lock a moment after it died


@contextmanager
def holding_run_lock(records: RunRecords) -> Iterator[None]:
    """Hold the run lock (a run, or a change to its records), refusing when another holder has it."""
    records.root.mkdir(parents=True, exist_ok=True)
    with os.fdopen(open_regular(records.lock, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "a") as handle:
        deadline = time.monotonic() + LOCK_GRACE_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError as exc:
                if time.monotonic() >= deadline:
                    raise WorkspaceError(f"{records.workspace}: another evolution run is using this workspace") from exc
                time.sleep(0.05)
        yield
