"""Load benchmark records from a local file or folder (JSON, JSONL, CSV, parquet) or the `datasets` library."""

from __future__ import annotations

import csv
import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.support.common import resolve_path
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.io.safe_json import parse_json

SUFFIXES: tuple[str, ...] = (".json", ".jsonl", ".csv", ".parquet")


@dataclass(frozen=True)
class DataSource:
    """Where a benchmark's records come from and how to tell the user what is missing."""

    benchmark: str
    env_var: str
    data_path: str | None
    hf_name: str | None = None
    hf_split: str = "test"
    hint: str = ""

    def describe_missing(self) -> str:
        """The sentence that says how to provide the data."""
        text = (f"No data for {self.benchmark}: pass data_path=... or set {self.env_var} to a local "
                f"{'/'.join(s.lstrip('.').upper() for s in SUFFIXES)} file or a folder of them")
        if self.hf_name:
            text += f", or `pip install datasets` to load {self.hf_name!r} (split {self.hf_split!r})"
        return f"{text}. {self.hint}".strip()


def load_records(source: DataSource) -> list[dict[str, Any]]:
    """Records from the local path if one is given (one data file, or every supported file of a folder in name
    order), else from the Hugging Face hub via `datasets`."""
    given = resolve_path(source.data_path, source.env_var)
    if not given:
        if source.hf_name is None:
            raise MissingDependencyError(source.describe_missing())
        return _load_hf(source)
    path = Path(given)
    if not path.exists():
        raise MissingDependencyError(f"{source.benchmark}: data path {str(path)!r} does not exist. "
                                     + source.describe_missing())
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in SUFFIXES)
        if not files:
            raise MissingDependencyError(f"{source.benchmark}: folder {str(path)!r} holds no "
                                         f"{', '.join(SUFFIXES)} file. " + source.describe_missing())
        return [record for file in files for record in read_file(file)]
    return read_file(path)


def read_file(path: Path) -> list[dict[str, Any]]:
    """Records of one file, by its suffix; text that is not UTF-8 or a record that is not a mapping is a
    ConfigError naming the file."""
    try:
        records = _read_records(path)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    odd = next((n for n, record in enumerate(records, 1) if not isinstance(record, dict)), None)
    if odd is not None:
        raise ConfigError(f"{path}: record {odd} is {type(records[odd - 1]).__name__}, not a mapping of fields")
    return records


def _read_records(path: Path) -> list[Any]:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        with path.open(encoding="utf-8") as f:
            return [parse_json(line, f"{path}:{n}", ConfigError) for n, line in enumerate(f, 1) if line.strip()]
    if suffix == ".json":
        data = parse_json(path.read_text(encoding="utf-8"), str(path), ConfigError)
        if isinstance(data, dict):
            data = data.get("data", data.get("instances", [data]))
        if not isinstance(data, list):
            raise ConfigError(f"{path}: expected a JSON list of records")
        return data
    if suffix == ".csv":
        csv.field_size_limit(sys.maxsize)
        with path.open(encoding="utf-8", newline="") as f:
            return [dict(row) for row in csv.DictReader(f)]
    if suffix != ".parquet":
        raise ConfigError(f"{path}: unsupported data file; use one of {', '.join(SUFFIXES)}")
    try:  # pyarrow, imported only here
        pq = importlib.import_module("pyarrow.parquet")
    except ImportError as exc:
        raise MissingDependencyError(
            f"Reading {path.name} needs pyarrow: `pip install pyarrow`, or convert the file to JSONL.") from exc
    return list(pq.read_table(str(path)).to_pylist())


def _load_hf(source: DataSource) -> list[dict[str, Any]]:
    """Load a split from the hub; HF_DATASETS_OFFLINE=1 restricts this to the local cache."""
    try:
        datasets = importlib.import_module("datasets")
    except ImportError as exc:
        raise MissingDependencyError(source.describe_missing()) from exc
    try:
        dataset = datasets.load_dataset(source.hf_name, split=source.hf_split)
    except Exception as exc:  # the library raises many types for a missing network or cache
        offline = os.environ.get("HF_DATASETS_OFFLINE", "").lower() in ("1", "true", "yes")
        why = ("HF_DATASETS_OFFLINE is set, so the dataset must already be in the Hugging Face cache"
               if offline else "the download failed (is the network reachable?)")
        raise MissingDependencyError(
            f"{source.benchmark}: could not load {source.hf_name!r} with `datasets`: {why}: "
            f"{type(exc).__name__}: {exc}. Alternatively pass data_path=... or set {source.env_var}."
        ) from exc
    return [dict(row) for row in dataset]
