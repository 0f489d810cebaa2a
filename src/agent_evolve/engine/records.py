"""Where a run's records live and how they are written safely.

The workspace's ignored `evolution/` folder holds what an engine may read (train observations, history, the
journal of aggregate decisions). Everything derived from holdout tasks (the holdout ids, per-task gate tables)
is sealed in a sibling folder `<workspace>.sealed/`, outside every path an engine is given.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import RECORDS_DIR, atomic_write
from agent_evolve.errors import WorkspaceError


@dataclass(frozen=True)
class RunRecords:
    """Paths of every run record; none of them is ever inside a git snapshot."""

    workspace: Path

    @property
    def root(self) -> Path:
        return self.workspace / RECORDS_DIR

    @property
    def sealed(self) -> Path:
        """Holdout records: outside the workspace, so no engine channel (files included) reaches them."""
        return self.workspace.parent / f"{self.workspace.name}.sealed"

    @property
    def observations(self) -> Path:
        return self.root / "observations"

    @property
    def history(self) -> Path:
        return self.root / "history.jsonl"

    @property
    def metrics(self) -> Path:
        return self.root / "metrics.json"

    @property
    def journal(self) -> Path:
        return self.root / "journal.jsonl"

    @property
    def run_plan(self) -> Path:
        return self.root / "run.json"

    @property
    def gate(self) -> Path:
        return self.sealed / "gate"

    @property
    def holdout_plan(self) -> Path:
        return self.sealed / "holdout.json"

    def holdout_table(self, tag: str) -> Path:
        """Per-task holdout scores of the version tagged `tag` (the gate's cached incumbent)."""
        return self.sealed / "tables" / f"{tag}.json"

    @property
    def engine(self) -> Path:
        return self.root / "engine"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    def batch_file(self, label: str) -> Path:
        return self.observations / f"batch_{label}.jsonl"


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON through a temporary file and a rename, so a crash never leaves half a file."""
    atomic_write(path, json.dumps(data, indent=2, sort_keys=True, default=str))


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line and fsync it, so a completed record survives a kill -9."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True, default=str) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL record file; a torn last line (a crash mid-append) is ignored, any other bad line is an error."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break
            raise WorkspaceError(f"{path}:{number}: not valid JSON: {exc.msg}") from exc
    return records


def read_jsonl_from(path: Path, offset: int) -> tuple[list[dict[str, Any]], int]:
    """Complete JSON lines after byte `offset`, and the offset after the last complete line (for tailing).

    A line without its newline yet (a torn or in-progress append) is left for the next call.
    """
    if not path.exists():
        return [], offset
    with path.open("rb") as handle:
        handle.seek(offset)
        data = handle.read()
    end = data.rfind(b"\n") + 1
    records = []
    for number, line in enumerate(data[:end].splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise WorkspaceError(f"{path}: line {number} after byte {offset}: not valid JSON: {exc.msg}") from exc
    return records, offset + end


def read_json(path: Path, default: Any) -> Any:
    if not path.exists():
        return default
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise WorkspaceError(f"{path}: not valid JSON: {exc.msg}") from exc
