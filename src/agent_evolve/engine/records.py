"""Where a run's records live (the workspace's ignored `evolution/` folder) and how they are written safely."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import atomic_write
from agent_evolve.errors import WorkspaceError


@dataclass(frozen=True)
class RunRecords:
    """Paths of every run record; none of them is ever inside a git snapshot."""

    workspace: Path

    @property
    def root(self) -> Path:
        return self.workspace / "evolution"

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
        return self.root / "gate"

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


def read_json(path: Path, default: Any) -> Any:
    if not path.exists():
        return default
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise WorkspaceError(f"{path}: not valid JSON: {exc.msg}") from exc
