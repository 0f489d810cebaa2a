"""Name registries for seed workspaces, benchmarks, engines and engines' commands; plugins join through entry points."""

from __future__ import annotations

import importlib
from importlib import metadata
from importlib.resources import files
from pathlib import Path
from typing import Any

from agent_evolve.errors import UnknownNameError

_SEED_NAMES: dict[str, tuple[str, ...]] = {  # seed folder -> the agent names (benchmarks' names too) that choose it
    "swe": ("swe", "swe-verified", "swe-mini"),
    "terminal": ("terminal", "terminal2", "skill-bench", "terminal-mini"),
    "mcp": ("mcp", "mcp-atlas", "mcp-mini"),
    "arc": ("arc", "arc-agi-3"),
    "gsm8k": ("gsm8k",),
    "humaneval": ("humaneval",),
    "jsonl": ("jsonl",),
    "reasoning": ("reasoning", "reasoning-mini"),
}
AGENT_REGISTRY: dict[str, str] = {name: f"seed_workspaces/{folder}" for folder, names in _SEED_NAMES.items()
                                  for name in names}

BENCHMARK_REGISTRY: dict[str, str] = {
    "swe-verified": "agent_evolve.benchmarks.swe_verified.SweVerifiedBenchmark",
    "mcp-atlas": "agent_evolve.benchmarks.mcp_atlas.McpAtlasBenchmark",
    "mcp-mini": "agent_evolve.benchmarks.suites.mcp_mini.benchmark.McpMiniBenchmark",
    "terminal2": "agent_evolve.benchmarks.terminal2.Terminal2Benchmark",
    "skill-bench": "agent_evolve.benchmarks.skill_bench.SkillBenchBenchmark",
    "swe-mini": "agent_evolve.benchmarks.suites.swe_mini.SweMiniBenchmark",
    "terminal-mini": "agent_evolve.benchmarks.suites.terminal_mini.TerminalMiniBenchmark",
    "arc-agi-3": "agent_evolve.benchmarks.arc_agi3.ArcAgi3Benchmark",
    "gsm8k": "agent_evolve.benchmarks.adapters.gsm8k.GSM8KBenchmark",
    "humaneval": "agent_evolve.benchmarks.adapters.humaneval.HumanEvalBenchmark",
    "jsonl": "agent_evolve.benchmarks.adapters.jsonl.JsonlBenchmark",
    "reasoning-mini": "agent_evolve.benchmarks.suites.reasoning_mini.ReasoningMiniBenchmark",
}

ENGINE_REGISTRY: dict[str, str] = {
    "skillforge": "agent_evolve.algorithms.skillforge.engine.AEvolveEngine",
    "guided_synth": "agent_evolve.algorithms.guided_synth.GuidedSynthesisEngine",
    "adaptive": "agent_evolve.algorithms.adaptive.AdaptiveEvolutionEngine",
    "adaptive_skill": "agent_evolve.algorithms.adaptive_skill.AdaptiveSkillEngine",
    "demos": "agent_evolve.algorithms.demos.DemoSearchEngine",
    "gepa": "agent_evolve.algorithms.gepa.GepaEngine",
    "skillopt": "agent_evolve.algorithms.skillopt.SkillOptEngine",
    "cli": "agent_evolve.algorithms.cli_learner.CliLearnerEngine",
    "codex": "agent_evolve.algorithms.cli_learner.engine.CodexLearnerEngine",
    "claude": "agent_evolve.algorithms.cli_learner.engine.ClaudeLearnerEngine",
    "ratchet": "agent_evolve.algorithms.ratchet.engine.RatchetEngine",
}

ENGINE_COMMANDS: dict[str, str] = {"ratchet": "agent_evolve.algorithms.ratchet.cli.COMMANDS"}
"""Engine name -> its package's list of click commands, added to `agent-evolve` (a plugin's: `commands` below)."""

_ENTRY_POINT_GROUPS = {
    "agent": "agent_evolve.agents",
    "benchmark": "agent_evolve.benchmarks",
    "engine": "agent_evolve.engines",
    "commands": "agent_evolve.commands",
}


def import_object(dotted: str) -> Any:
    """Import `package.module.Name`."""
    module_name, _, attr = dotted.rpartition(".")
    if not module_name:
        raise ImportError(f"{dotted!r} is not a dotted path of the form package.module.Name")
    return getattr(importlib.import_module(module_name), attr)


def _plugins(kind: str) -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=_ENTRY_POINT_GROUPS[kind])}


def known_names(kind: str) -> list[str]:
    builtin = {"agent": AGENT_REGISTRY, "benchmark": BENCHMARK_REGISTRY, "engine": ENGINE_REGISTRY}[kind]
    return sorted({*builtin, *_plugins(kind)})


def _plugin(kind: str, name: str) -> Any:
    """What the plugin registered as `name` gives; UnknownNameError listing the known names when none is."""
    plugins = _plugins(kind)
    if name not in plugins:
        raise UnknownNameError(f"unknown {kind} {name!r}; known {kind}s: {', '.join(known_names(kind))}")
    return plugins[name].load()


def seed_path(name: str) -> Path:
    """The folder of a built-in (or plugin) seed workspace."""
    if name in AGENT_REGISTRY:
        return Path(str(files("agent_evolve").joinpath(AGENT_REGISTRY[name])))
    return Path(_plugin("agent", name))


def is_seed_name(name: str) -> bool:
    return name in AGENT_REGISTRY or name in _plugins("agent")


def _registered_class(kind: str, registry: dict[str, str], name: str) -> type:
    """The class a built-in name points to, else a plugin's; UnknownNameError listing the known names."""
    return import_object(registry[name]) if name in registry else _plugin(kind, name)


def benchmark_class(name: str) -> type:
    """The benchmark adapter class registered as `name`."""
    return _registered_class("benchmark", BENCHMARK_REGISTRY, name)


def engine_class(name: str) -> type:
    """The engine class registered as `name`."""
    return _registered_class("engine", ENGINE_REGISTRY, name)


def engine_commands() -> list[Any]:
    """The command-line commands engines bring: the built-in ones, then each `agent_evolve.commands` entry point's
    (a click command or a list of them)."""
    loaded = [import_object(path) for path in ENGINE_COMMANDS.values()]
    loaded += [entry.load() for entry in _plugins("commands").values()]
    return [command for item in loaded for command in (item if isinstance(item, (list, tuple)) else [item])]
