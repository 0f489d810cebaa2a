"""Where a run's records live and how they are written safely: the engine may read `evolution/`; holdout-derived (and
under trajectory_only all score-bearing) records are sealed in `<workspace>.sealed/`; the run lock is a flock."""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.contract.jsonl import FieldCheck, append_line, read_jsonl
from agent_evolve.contract.paths import RECORDS_DIR, atomic_write
from agent_evolve.contract.regular_files import open_regular, read_text_if_present
from agent_evolve.contract.settings_rules import is_int, is_number
from agent_evolve.errors import WorkspaceError
from agent_evolve.io.safe_json import parse_json

__all__ = ["RUN_RECORD_FIELDS", "RunRecords", "append_jsonl", "read_json", "read_jsonl", "write_json_atomic"]


@dataclass(frozen=True)
class RunRecords:
    """Paths of every run record; none of them is ever inside a git snapshot."""

    workspace: Path

    @property
    def root(self) -> Path:
        return self.workspace / RECORDS_DIR

    @property
    def scored(self) -> Path:
        """Where score-bearing records live: sealed away once a trajectory_only run sealed them, else `root`."""
        hidden = self.sealed / RECORDS_DIR
        return hidden if hidden.is_dir() else self.root

    def seal_scores(self) -> None:
        """Start keeping score-bearing records outside the workspace (a fresh trajectory_only run)."""
        (self.sealed / RECORDS_DIR).mkdir(parents=True, exist_ok=True)

    @property
    def sealed(self) -> Path:
        """Holdout records: outside the workspace, so no engine channel (files included) reaches them."""
        return self.workspace.parent / f"{self.workspace.name}.sealed"

    @property
    def observations(self) -> Path:
        return self.scored / "observations"

    @property
    def history(self) -> Path:
        return self.scored / "history.jsonl"

    @property
    def metrics(self) -> Path:
        return self.scored / "metrics.json"

    @property
    def journal(self) -> Path:
        return self.scored / "journal.jsonl"

    @property
    def run_plan(self) -> Path:
        return self.scored / "run.json"

    @property
    def gate(self) -> Path:
        return self.sealed / "gate"

    @property
    def holdout_plan(self) -> Path:
        return self.sealed / "holdout.json"

    def holdout_table(self, tag: str) -> Path:
        """Per-task holdout scores of the version tagged `tag` (the gate's cached incumbent)."""
        return self.sealed / "tables" / f"{tag}.json"

    def holdout_cost(self, tag: str) -> Path:
        """Model calls and tokens per holdout solve of the version tagged `tag` (beside its cached table)."""
        return self.sealed / "tables" / f"{tag}.cost.json"

    @property
    def engine(self) -> Path:
        return self.root / "engine"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    def batch_file(self, label: str) -> Path:
        return self.observations / f"batch_{label}.jsonl"


def write_json_atomic(path: Path, data: Any, *, durable: bool = False) -> None:
    """Write JSON through a temporary file and a rename, so a crash never leaves half a file."""
    atomic_write(path, json.dumps(data, indent=2, sort_keys=True, default=str), durable=durable)


def append_jsonl(path: Path, record: dict[str, Any], *, durable: bool = False) -> None:
    """Append one record line (a torn tail repaired first); ``durable`` for the journal only."""
    append_line(path, record, durable=durable, records=True)


def read_jsonl_from(path: Path, offset: int) -> tuple[list[dict[str, Any]], int]:
    """Complete JSON lines after byte `offset`, and the offset after the last of them (for tailing); a line
    without its newline yet (a torn or in-progress append) is left for the next call."""
    try:
        handle = os.fdopen(open_regular(path), "rb")
    except FileNotFoundError:
        return [], offset
    with handle:
        handle.seek(offset)
        data = handle.read()
    end = data.rfind(b"\n") + 1
    lines = enumerate(data[:end].splitlines(), start=1)
    records = [parse_json(line, f"{path}: line {number} after byte {offset}") for number, line in lines if line.strip()]
    return records, offset + end


def _numbers(value: Any) -> bool:
    """A number, or a mapping whose values all are (usage totals)."""
    return all(_numbers(item) for item in value.values()) if isinstance(value, dict) else is_number(value)


_WHOLE: FieldCheck = ("a whole number", is_int)
_SCORE: FieldCheck = ("a number", lambda v: v is None or is_number(v))
_STRING: FieldCheck = ("a string", lambda v: isinstance(v, str))
_OBJECT: FieldCheck = ("an object", lambda v: isinstance(v, dict))
_USAGE: FieldCheck = ("an object of numbers", lambda v: isinstance(v, dict) and _numbers(v))
_STRINGS: FieldCheck = ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v))
RUN_RECORD_FIELDS: dict[str, FieldCheck] = {  # what the readers of history and journal rely on, where a row has it
    "cycle": _WHOLE, "cursor": _WHOLE, "accepted_cycle": _WHOLE, "accepted_count": _WHOLE,
    "score": _SCORE, "accepted_score": _SCORE, "baseline_score": _SCORE,
    "phase": _STRING, "accepted_tag": _STRING, "observation_batch": _STRING,
    "usage": _USAGE, "charged_usage": _USAGE, "metadata": _OBJECT, "metadata.usage": _USAGE,
    "metadata.changed_paths": _STRINGS, "metadata.step_metadata": _OBJECT, "metadata.step_metadata.edits": _OBJECT,
    "metadata.step_metadata.edits.proposed": _WHOLE, "metadata.step_metadata.edits.valid": _WHOLE,
}


def read_json(path: Path, default: Any) -> Any:
    """A JSON record file, or ``default`` when it does not exist; a damaged one is a WorkspaceError naming it."""
    text = read_text_if_present(path)
    return default if text is None else parse_json(text, str(path))


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
_held = threading.local()  # the locks this thread holds: a nested hold (the CLI around its run) is the same hold


@contextmanager
def holding_run_lock(records: RunRecords) -> Iterator[None]:
    """Hold the run lock (a run, or a change to its records), refusing while another holder has it."""
    with holding_lock(records.lock, records.workspace):
        yield


@contextmanager
def holding_lock(lock: Path, what: Path) -> Iterator[None]:
    """Hold an exclusive flock on `lock` (re-entrant in one thread) while the lock file names its holder; refused,
    naming the holder's pid and command, while another holder has it (`what` is the folder the lock guards)."""
    held: set[Path] = _held.__dict__.setdefault("locks", set())
    key = lock.resolve()
    if key in held:
        yield
        return
    lock.parent.mkdir(parents=True, exist_ok=True)
    with os.fdopen(open_regular(lock, os.O_RDWR | os.O_APPEND | os.O_CREAT), "a+") as handle:
        deadline = time.monotonic() + LOCK_GRACE_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError as exc:
                if time.monotonic() >= deadline:
                    handle.seek(0)
                    holder = handle.read().strip() or "a process that has not named itself yet"
                    raise WorkspaceError(f"{what}: another run is using it ({holder}); wait for it to finish or "
                                         "stop it") from exc
                time.sleep(0.05)
        handle.truncate(0)
        handle.write(f"pid {os.getpid()} since {time.strftime('%Y-%m-%d %H:%M:%S')}: {shlex.join(sys.argv)}\n")
        handle.flush()
        held.add(key)
        try:
            yield
        finally:
            held.discard(key)
            handle.truncate(0)
