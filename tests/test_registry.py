"""Every registry name resolves to something real; missing prerequisites give the documented error."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

import agent_evolve as ae
from agent_evolve.api import resolve_benchmark, resolve_engine
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.cli.main import cli
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


PLUGIN = '''
from pathlib import Path

import agent_evolve as ae

SEED = str(Path(__file__).parent / "seed")


class MyAgent(ae.BaseAgent):
    def solve(self, task):
        n = int(task.input)
        return ae.Trajectory(task_id=task.id, output=str(n + 1 if "add one" in self.system_prompt else n))


class MyBenchmark(ae.BenchmarkAdapter):
    def __init__(self, size="12"):
        self.size = int(size)

    def get_tasks(self, split="train", limit=10):
        return [ae.Task(id=f"{split}-{i}", input=str(i)) for i in range(self.size)][:limit]

    def evaluate(self, task, trajectory):
        ok = trajectory.output == str(int(task.input) + 1)
        return ae.Feedback(success=ok, score=float(ok))


class MyEngine(ae.EvolutionEngine):
    def __init__(self, phrase="add one"):
        self.phrase = phrase

    def step(self, workspace, observations, history, trial=None):
        workspace.write_prompt(self.phrase)
        return ae.StepResult(mutated=True, summary=self.phrase)
'''


def installed_plugin(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`my_plugin` on sys.path with a dist-info holding the entry points of docs/concepts.md's pyproject block."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "concepts.md").read_text(encoding="utf-8")
    pyproject = tomllib.loads(re.search(r"```toml\n(.*?)```", page, flags=re.S).group(1))
    (folder / "my_plugin" / "seed" / "prompts").mkdir(parents=True)
    (folder / "my_plugin" / "__init__.py").write_text(PLUGIN)
    (folder / "my_plugin" / "seed" / "prompts" / "system.md").write_text("Answer the number.\n")
    (folder / "my_plugin" / "seed" / "manifest.yaml").write_text(
        'name: my-agent\ncontract_version: "1.0"\nagent:\n  type: custom\n  entrypoint: my_plugin.MyAgent\n'
        "evolvable_layers: [prompts]\n")
    info = folder / "my_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in entries.items())
        for group, entries in pyproject["project"]["entry-points"].items()))
    monkeypatch.syspath_prepend(str(folder))


def test_a_plugin_installed_as_the_docs_show_runs_by_name_from_the_cli_and_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed_plugin(tmp_path / "site", monkeypatch)
    monkeypatch.chdir(tmp_path)
    assert {"my-agent", "my-bench", "my-engine"} <= {*known_names("agent"), *known_names("benchmark"),
                                                     *known_names("engine")}
    shown = CliRunner().invoke(cli, ["run", "--agent", "my-agent", "--benchmark", "my-bench:10", "--engine",
                                     "my-engine", "--engine-param", "phrase=please add one", "--cycles", "1"])
    assert shown.exit_code == 0, shown.output
    assert (tmp_path / "runs" / "my-agent" / "prompts" / "system.md").read_text() == "please add one"

    result = ae.Evolver("my-agent", "my-bench", ae.EvolveConfig(batch_size=4), "my-engine", "python-run").run(1)
    assert (result.details["baseline_score"], result.final_score) == (0.0, 1.0)
    refused = CliRunner().invoke(cli, ["run", "--agent", "my-agent", "--benchmark", "my-bench", "--engine",
                                       "my-engine", "--engine-param", "tone=2", "-w", "other", "--cycles", "1"])
    assert refused.exit_code == 2 and "unknown engine_params ['tone']; accepted: ['phrase']" in refused.output
