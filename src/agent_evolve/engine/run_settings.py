"""What a resumed run must share with the run it continues, and the one check of it: every way in (`Evolver.run`, the
CLI, `ae.evolve`) compares the same settings record before the run spends anything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.records import RunRecords, read_json, write_json_atomic
from agent_evolve.errors import ConfigError, WorkspaceError

SETTINGS_FILE = "settings.json"  # beside the run's journal
# Keys a resumed run may change: how long it runs, how fast, where it sends its calls, when it stops.
RESUMABLE_KEYS = frozenset({
    "max_cycles", "max_total_tokens", "max_cost_usd", "concurrency", "executor", "ray_address", "agent_timeout_s",
    "evolver_timeout_s", "llm_timeout_s", "llm_max_retries", "preflight", "llm_cache", "llm_cache_dir", "prices",
    "patience", "egl_threshold", "egl_window", "allow_early_stop",
})


def benchmark_source(spec: str) -> str:
    """A benchmark named `name` or `name:argument` as a run records it: a file argument by its absolute path, so the
    same file named from another folder is the same benchmark."""
    name, sep, argument = spec.partition(":")
    if sep and Path(argument).exists():
        return f"{name}:{Path(argument).resolve()}"
    return spec


def engine_label(engine: object, registered_as: str = "") -> str:
    """The name a run records for its engine (a registry name, an engine or its class): its `name`, else the name it
    is built by, else its class's name, as `EvolutionEngine.engine_name` of an engine built by `resolve_engine`."""
    if isinstance(engine, str):
        return engine
    return (getattr(engine, "name", "") or registered_as
            or (engine if isinstance(engine, type) else type(engine)).__name__)


def run_settings(config: EvolveConfig, benchmark: str, engine: str) -> dict[str, Any]:
    """The settings record: the benchmark (`BenchmarkAdapter.identity`), the engine's name and every config key
    that changes what is measured (not `RESUMABLE_KEYS`)."""
    kept = {k: v for k, v in config.to_dict().items() if k not in RESUMABLE_KEYS}
    return json.loads(json.dumps({"benchmark": benchmark, "engine": engine, **kept}, default=str))


def check_resume(workspace: Path, current: dict[str, Any], force: bool, hint: str) -> list[str]:
    """The differences (`key: was -> now`) between a started run's settings and `current`; ConfigError listing them
    and `hint` unless `force`. A workspace with no started run (or none recorded) has none."""
    records = RunRecords(workspace)
    saved_file = records.journal.with_name(SETTINGS_FILE)
    saved = read_json(saved_file, None)
    if not records.journal.exists() or saved is None:  # a run started before runs recorded their settings
        return []
    if not isinstance(saved, dict):
        raise WorkspaceError(f"{saved_file}: {saved!r:.60} is not a settings record; the record is damaged (remove "
                             "it to resume without comparing settings)")
    differences = [f"{key}: {saved.get(key)!r} -> {current.get(key)!r}"
                   for key in sorted(set(saved) | set(current)) if saved.get(key) != current.get(key)]
    if differences and not force:
        raise ConfigError(f"{workspace}: this run was started with other settings "
                          f"({'; '.join(differences)}); {hint}")
    return differences


def record_settings(records: RunRecords, config: EvolveConfig, benchmark: BenchmarkAdapter, engine: object,
                    force: bool, hint: str) -> list[str]:
    """Check the run's settings against its started run's (`check_resume`), record them when new, forced or never
    recorded, and return the differences it continues with. The caller holds the run lock."""
    current = run_settings(config, benchmark.identity(), engine_label(engine))
    changed = check_resume(records.workspace, current, force, hint)
    saved_file = records.journal.with_name(SETTINGS_FILE)
    if changed or not records.journal.exists() or not saved_file.exists():
        write_json_atomic(saved_file, current)
    return changed
