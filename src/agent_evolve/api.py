"""ae.Evolver: resolve an agent, a benchmark, a config and an engine, then run the evolution loop."""

from __future__ import annotations

import inspect
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.manifest import load_manifest
from agent_evolve.contract.paths import RECORDS_DIR
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EvolutionEngine
from agent_evolve.engine.loop import EvolutionLoop, ProgressEvent
from agent_evolve.errors import ConfigError, WorkspaceError
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.registry import (
    AGENT_REGISTRY,
    BENCHMARK_REGISTRY,
    ENGINE_REGISTRY,
    benchmark_class,
    engine_class,
    import_object,
    is_seed_name,
    seed_path,
)
from agent_evolve.types import EvolutionResult

__all__ = ["AGENT_REGISTRY", "BENCHMARK_REGISTRY", "ENGINE_REGISTRY", "Evolver", "resolve_benchmark", "resolve_engine"]

DEFAULT_ENGINE = "skillforge"
_COPY_IGNORE = shutil.ignore_patterns(".git", RECORDS_DIR, "__pycache__")


class Evolver:
    """Main entry point: `ae.Evolver(agent, benchmark, config, engine).run()`."""

    def __init__(
        self,
        agent: str | BaseAgent,
        benchmark: str | BenchmarkAdapter,
        config: EvolveConfig | str | None = None,
        engine: EvolutionEngine | str | None = None,
        workspace_dir: str | None = None,
        *,
        progress: Callable[[ProgressEvent], None] | None = None,
    ):
        self.config = resolve_config(config)
        self.benchmark = resolve_benchmark(benchmark)
        self.agent, self.agent_factory = resolve_agent(agent, self.config, workspace_dir)
        self.engine = resolve_engine(engine if engine is not None else DEFAULT_ENGINE, self.config)
        self.workspace = AgentWorkspace(self.agent.workspace.path)
        self.progress = progress

    def run(self, cycles: int | None = None) -> EvolutionResult:
        """Evolve until the workspace has `cycles` cycles (default config.max_cycles); resumes an interrupted run."""
        loop = EvolutionLoop(
            self.agent,
            self.benchmark,
            self.engine,
            self.config,
            self.workspace,
            agent_factory=self.agent_factory,
            progress=self.progress,
        )
        return loop.run(cycles)


def resolve_config(config: EvolveConfig | str | Path | None) -> EvolveConfig:
    if config is None:
        return EvolveConfig()
    if isinstance(config, EvolveConfig):
        return config
    if isinstance(config, (str, Path)):
        return EvolveConfig.from_yaml(config)
    raise ConfigError(f"config must be an EvolveConfig or a YAML path, got {type(config).__name__}")


def resolve_benchmark(benchmark: str | BenchmarkAdapter, **kwargs: Any) -> BenchmarkAdapter:
    """A registry name (optionally `name:argument`, e.g. `jsonl:tasks.jsonl`) or an adapter instance."""
    if isinstance(benchmark, BenchmarkAdapter):
        return benchmark
    if not isinstance(benchmark, str):
        raise ConfigError(f"benchmark must be a name or a BenchmarkAdapter, got {type(benchmark).__name__}")
    name, _, argument = benchmark.partition(":")
    cls = benchmark_class(name)
    return cls(argument, **kwargs) if argument else cls(**kwargs)


def resolve_engine(engine: str | EvolutionEngine, config: EvolveConfig) -> EvolutionEngine:
    if isinstance(engine, EvolutionEngine):
        return engine
    if not isinstance(engine, str):
        raise ConfigError(f"engine must be a name or an EvolutionEngine, got {type(engine).__name__}")
    return _construct(engine_class(engine), config=config)


def resolve_agent(
    agent: str | BaseAgent, config: EvolveConfig, workspace_dir: str | None
) -> tuple[BaseAgent, Callable[[Path], BaseAgent]]:
    """Seed names are copied to a working directory; paths are used in place unless `workspace_dir` is given."""
    if isinstance(agent, BaseAgent):
        cls = type(agent)
        return agent, lambda path: _construct(cls, path, config=config)
    if not isinstance(agent, str):
        raise ConfigError(f"agent must be a seed name, a workspace path or a BaseAgent, got {type(agent).__name__}")
    if is_seed_name(agent) and not Path(agent).exists():
        source = seed_path(agent)
        target = Path(workspace_dir) if workspace_dir else Path.cwd() / "runs" / agent
    else:
        source = Path(agent)
        if not source.is_dir():
            raise WorkspaceError(f"{agent}: not a built-in seed name and not a workspace directory")
        target = Path(workspace_dir) if workspace_dir else source
    if target.resolve() != source.resolve() and not (target / "manifest.yaml").exists():
        if target.exists() and any(target.iterdir()):
            raise WorkspaceError(f"{target}: exists, is not empty and has no manifest.yaml; refusing to overwrite it")
        shutil.copytree(source, target, ignore=_COPY_IGNORE, dirs_exist_ok=True)
    return agent_from_workspace(target, config)


def agent_from_workspace(path: Path, config: EvolveConfig) -> tuple[BaseAgent, Callable[[Path], BaseAgent]]:
    """Build the agent named by the manifest's entrypoint (validation writes nothing)."""
    manifest = load_manifest(path)
    try:
        cls = import_object(manifest.entrypoint)
    except (ImportError, AttributeError) as exc:
        raise WorkspaceError(f"{path / 'manifest.yaml'}: agent.entrypoint {manifest.entrypoint!r}: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, BaseAgent)):
        raise WorkspaceError(f"{path / 'manifest.yaml'}: agent.entrypoint {manifest.entrypoint!r} is not a BaseAgent")

    def factory(workspace: Path) -> BaseAgent:
        return _construct(cls, workspace, config=config)

    return factory(path), factory


def _construct(cls: type, *args: Any, config: EvolveConfig) -> Any:
    """Call `cls(*args)`, passing `config=` when the constructor accepts it."""
    accepts_config = "config" in inspect.signature(cls).parameters
    return cls(*args, config=config) if accepts_config else cls(*args)
