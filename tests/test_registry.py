"""Every registry name resolves to something real; missing prerequisites give the documented error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import agent_evolve as ae
from agent_evolve.api import resolve_benchmark, resolve_engine
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.contract import validate_workspace
from agent_evolve.errors import MissingDependencyError, UnknownNameError
from agent_evolve.registry import benchmark_class, engine_class, known_names, seed_path

EXTERNAL = {
    "swe-verified": "AGENT_EVOLVE_SWE_VERIFIED_DATA",
    "mcp-atlas": "AGENT_EVOLVE_MCP_ATLAS_DATA",
    "terminal2": "AGENT_EVOLVE_TERMINAL2_DATA",
    "skill-bench": "AGENT_EVOLVE_SKILL_BENCH_DATA",
    "arc-agi-3": "ARC_API_KEY",
}


@pytest.mark.parametrize("name", sorted(ae.BENCHMARK_REGISTRY))
def test_every_benchmark_name_resolves_to_an_adapter_class(name: str) -> None:
    cls = benchmark_class(name)
    assert isinstance(cls, type) and issubclass(cls, BenchmarkAdapter)


@pytest.mark.parametrize("name", sorted(ae.AGENT_REGISTRY))
def test_every_seed_name_is_a_valid_workspace(name: str) -> None:
    path = seed_path(name)
    assert (path / "manifest.yaml").is_file()
    assert validate_workspace(path) == []


def fake_learner_clis(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put stand-ins of the learner CLIs (`claude`, `codex`) on PATH: their engines check for them when built."""
    for executable in ("claude", "codex"):
        stand_in = folder / executable
        stand_in.write_text("#!/bin/sh\nexit 0\n")
        stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")


@pytest.mark.parametrize("name", sorted(ae.ENGINE_REGISTRY))
def test_every_engine_name_resolves_and_constructs(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_learner_clis(tmp_path, monkeypatch)
    engine = resolve_engine(name, ae.EvolveConfig())
    assert isinstance(engine, engine_class(name)) and isinstance(engine, ae.EvolutionEngine)


def test_the_page_names_are_registered() -> None:
    assert {"swe", "terminal", "mcp", "arc"} <= set(ae.AGENT_REGISTRY)
    assert {"swe-verified", "mcp-atlas", "terminal2", "skill-bench", "arc-agi-3"} <= set(ae.BENCHMARK_REGISTRY)
    assert {"skillforge", "guided_synth", "adaptive", "adaptive_skill"} <= set(ae.ENGINE_REGISTRY)


@pytest.mark.parametrize("name", ["codex", "claude"])
def test_hermit_learner_names_are_the_cli_engine_with_their_preset(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_learner_clis(tmp_path, monkeypatch)
    engine = resolve_engine(name, ae.EvolveConfig())
    assert isinstance(engine, engine_class("cli")) and engine.params["preset"] == name
    assert engine._argv()[0] == str(tmp_path / name)


@pytest.mark.parametrize("name", sorted(EXTERNAL))
def test_external_benchmark_without_data_names_what_is_needed(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in (*EXTERNAL.values(), "AGENT_EVOLVE_ARC_DATA"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    adapter = resolve_benchmark(name)
    with pytest.raises(MissingDependencyError, match=EXTERNAL[name]):
        adapter.get_tasks("train", limit=1)


def test_unknown_names_list_the_known_ones() -> None:
    for kind, lookup in (("benchmark", benchmark_class), ("engine", engine_class), ("agent", seed_path)):
        with pytest.raises(UnknownNameError) as info:
            lookup("nope")
        assert all(n in str(info.value) for n in known_names(kind))
