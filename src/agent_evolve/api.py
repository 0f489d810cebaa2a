"""ae.Evolver: resolve an agent, a benchmark, a config and an engine, then run the evolution loop."""

from __future__ import annotations

import inspect
import json
import logging
import os
import shutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.benchmarks.adapters.subset_view import SubsetView
from agent_evolve.config import EvolveConfig, with_reply_cache
from agent_evolve.contract.manifest import load_manifest
from agent_evolve.contract.paths import RECORDS_DIR, REPLIES_DIR
from agent_evolve.contract.regular_files import copy_tree
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EvolutionEngine
from agent_evolve.engine.executors.remote import worker_ledger
from agent_evolve.engine.loop import EvolutionLoop, ProgressEvent
from agent_evolve.engine.preflight import preflight
from agent_evolve.engine.run_settings import benchmark_source
from agent_evolve.errors import ConfigError, WorkspaceError
from agent_evolve.llm.base import LLMClient
from agent_evolve.llm.factory import client_from_config, metered_on
from agent_evolve.llm.models import parse_model
from agent_evolve.llm.usage import UsageLedger, require_prices
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.registry import (AGENT_REGISTRY, BENCHMARK_REGISTRY, ENGINE_REGISTRY, benchmark_class, engine_class,
                                   import_object, is_seed_name, seed_path)
from agent_evolve.types import EvolutionResult

__all__ = [
    "AGENT_REGISTRY", "BENCHMARK_REGISTRY", "ENGINE_REGISTRY", "Evolver", "RunClients", "default_engine",
    "resolve_benchmark", "resolve_engine",
]

log = logging.getLogger(__name__)

REMOTE_DEFAULT_ENGINE = "skillforge"  # the API page's default, AEvolveEngine: a model that edits files with tools
EMBEDDED_DEFAULT_ENGINE = "demos"  # provisional until the README engine table names its best; a test ties the two
COPY_IGNORE = shutil.ignore_patterns(".git", RECORDS_DIR, "__pycache__")


def default_engine(evolver_model: str) -> str:
    """The engine of a run that names none: with the embedded model the best measured (a small model cannot drive a
    file-editing engine), else the API page's default."""
    return EMBEDDED_DEFAULT_ENGINE if parse_model(evolver_model).provider == "local" else REMOTE_DEFAULT_ENGINE


class Evolver:
    """Main entry point: `ae.Evolver(agent, benchmark, config, engine).run()`, metering every role's client
    (`clients`: your own for "agent", "engine", "judge") into its `UsageLedger` (`ledger=`: yours) and budgets."""

    def __init__(
        self, agent: str | BaseAgent, benchmark: str | BenchmarkAdapter, config: EvolveConfig | str | None = None,
        engine: EvolutionEngine | str | None = None, workspace_dir: str | None = None, *,
        progress: Callable[[ProgressEvent], None] | None = None, ledger: UsageLedger | None = None,
        clients: Mapping[str, LLMClient] | None = None,
    ):
        target = workspace_target(agent, workspace_dir)  # the run keeps its replies with its records
        replies = target / RECORDS_DIR / REPLIES_DIR if target is not None else None
        self.config = with_reply_cache(resolve_config(config), replies)
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.ledger.set_budget(self.config.max_total_tokens, self.config.max_cost_usd)
        roles = RunClients(self.config, self.ledger, given=clients)
        self.agent, self.agent_factory = resolve_agent(agent, self.config, workspace_dir, roles)
        self.engine = resolve_engine(engine if engine is not None else default_engine(self.config.evolver_model),
                                     self.config, roles)
        grader = self.config.grader if isinstance(benchmark, str) else None  # an instance has its grader
        self.benchmark = resolve_benchmark(benchmark, grader=grader, config=self.config)
        self.clients: dict[str, LLMClient] = roles.clients
        if self.config.max_cost_usd is not None:
            require_prices([client.model for client in self.clients.values()], self.config.prices)
        self.workspace = AgentWorkspace(self.agent.workspace.path)
        self.progress = progress
        self.loop: EvolutionLoop | None = None

    def cancel(self) -> None:
        """Ask a running `run()` (from another thread) to stop after its current cycle, as a controlled stop."""
        if self.loop is not None:
            self.loop.cancel()

    def run(self, cycles: int | None = None, *, force: bool = False) -> EvolutionResult:
        """Evolve until the workspace has `cycles` cycles (default config.max_cycles), resuming an interrupted run
        of the same settings (else ConfigError, unless `force`); `config.preflight` checks roles and benchmark."""
        if cycles is not None and (isinstance(cycles, bool) or not isinstance(cycles, int) or cycles < 0):
            raise ConfigError(f"cycles must be a whole number >= 0 or None (config.max_cycles), got {cycles!r}")
        if self.config.preflight:
            preflight(self.clients, self.benchmark)
        self.loop = EvolutionLoop(self.agent, self.benchmark, self.engine, self.config, self.workspace,
                                  agent_factory=self.agent_factory, progress=self.progress, ledger=self.ledger)
        return self.loop.run(cycles, force=force)


RoleClient = Callable[[str], LLMClient]


class RunClients:
    """A run's model-role clients, each built once from the config into one ledger (`given` ones metered into it as
    they are), sampling with `seed` (default `config.seed`) so runs of other seeds draw other replies."""

    def __init__(self, config: EvolveConfig, ledger: UsageLedger, *, seed: int | None = None,
                 given: Mapping[str, LLMClient] | None = None) -> None:
        self.config = config
        self.ledger = ledger
        self.seed = config.seed if seed is None else seed
        self.given = dict(given or {})
        self.clients: dict[str, LLMClient] = {}

    def __call__(self, role: str) -> LLMClient:
        if role not in self.clients:
            given = self.given.get(role)
            self.clients[role] = metered_on(given, role, self.ledger, self.config.prices) if given is not None \
                else client_from_config(self.config, role, ledger=self.ledger, seed=self.seed)
        return self.clients[role]


def resolve_config(config: EvolveConfig | str | Path | None) -> EvolveConfig:
    if config is None:
        return EvolveConfig()
    if isinstance(config, EvolveConfig):
        return config
    if isinstance(config, (str, Path)):
        return EvolveConfig.from_yaml(config)
    raise ConfigError(f"config must be an EvolveConfig or a YAML path, got {type(config).__name__}")


def resolve_benchmark(
    benchmark: str | BenchmarkAdapter, *, subset: str | None = None, grader: str | None = None,
    config: EvolveConfig | None = None, **kwargs: Any
) -> BenchmarkAdapter:
    """A registry name (optionally `name:argument`, e.g. `jsonl:tasks.jsonl`) or an adapter instance; `subset`
    narrows it to a subset file, `grader` goes to benchmarks that take one (`jsonl`) and is refused by others."""
    if isinstance(benchmark, BenchmarkAdapter):
        if grader is not None:
            raise ConfigError(f"grader {grader!r} applies to a benchmark built by name, not to an instance")
        return SubsetView(benchmark, subset) if subset else benchmark
    if not isinstance(benchmark, str):
        raise ConfigError(f"benchmark must be a name or a BenchmarkAdapter, got {type(benchmark).__name__}")
    name, _, argument = benchmark.partition(":")
    cls = benchmark_class(name)
    refusals = {"grader": f"takes no grader (grader {grader!r}); graders apply to jsonl:PATH",
                "answer_kind": "declares its own answer kinds; answer_kind applies to jsonl:PATH"}
    given = {"grader": grader, "answer_kind": config.answer_kind if config is not None else None,
             **(config.grader_options if config is not None else {})}
    for option, value in given.items():
        if value is not None and not _accepts(cls, option):
            why = refusals.get(option, f"takes no grader option {option!r}; grader options apply to jsonl:PATH")
            raise ConfigError(f"benchmark {name!r} {why}")
        if value is not None:
            kwargs[option] = value
    if config is not None and _accepts(cls, "config"):
        kwargs["config"] = config  # benchmarks with a model of their own (a judge) default to the run's models
    native_subset = subset is not None and _accepts(cls, "subset")
    if native_subset:
        kwargs["subset"] = subset
    adapter = cls(argument, **kwargs) if argument else cls(**kwargs)
    built = SubsetView(adapter, subset) if subset and not native_subset else adapter
    built.built_from = benchmark_source(benchmark)
    return built


def resolve_engine(
    engine: str | EvolutionEngine, config: EvolveConfig, role_client: RoleClient | None = None
) -> EvolutionEngine:
    """An engine instance as is, or a named engine built with `config`, the run's engine client and engine_params."""
    if isinstance(engine, EvolutionEngine):
        if config.engine_params:
            raise ConfigError(
                f"engine_params {sorted(config.engine_params)} apply to an engine built by name; "
                f"pass them to {type(engine).__name__}(...) yourself"
            )
        return engine
    if not isinstance(engine, str):
        raise ConfigError(f"engine must be a name or an EvolutionEngine, got {type(engine).__name__}")
    cls = engine_class(engine)
    signature = inspect.signature(cls).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.values()):  # else it checks its own
        accepted = sorted(set(signature) - {"config", "llm"})
        unknown = sorted(set(config.engine_params) - set(accepted))
        if unknown:
            raise ConfigError(f"engine {engine!r}: unknown engine_params {unknown}; accepted: {accepted or 'none'}")
    llm = role_client("engine") if role_client is not None and _accepts(cls, "llm") else None
    built = _construct(cls, config=config, llm=llm, **config.engine_params)
    if not built.name:  # a class registered under a name of yours is called by it
        built.name = engine
    return built


def resolve_agent(
    agent: str | BaseAgent, config: EvolveConfig, workspace_dir: str | None, role_client: RoleClient | None = None
) -> tuple[BaseAgent, Callable[[Path], BaseAgent]]:
    """Seed names (matched first: `swe` is the seed even beside a folder `./swe`) are copied to a working directory;
    paths are used in place unless `workspace_dir` is given; an instance evolves its own workspace."""
    if isinstance(agent, BaseAgent):
        _check_instance_workspace(agent, workspace_dir)
        return agent, AgentBuilder(type(agent), config)
    if not isinstance(agent, str):
        raise ConfigError(f"agent must be a seed name, a workspace path or a BaseAgent, got {type(agent).__name__}")
    if is_seed_name(agent) and Path(agent).exists():
        log.warning("%r names the built-in seed; the folder ./%s is not used (pass ./%s for it)", agent, agent, agent)
    source = seed_path(agent) if is_seed_name(agent) else Path(agent)
    if not source.is_dir():
        raise WorkspaceError(f"{agent}: not a built-in seed name and not a workspace directory")
    target = named_target(agent, workspace_dir)
    if target.resolve() != source.resolve() and not (target / "manifest.yaml").exists():
        if target.exists() and any(target.iterdir()):
            raise WorkspaceError(f"{target}: exists, is not empty and has no manifest.yaml; refusing to overwrite it")
        copy_tree(source, target, ignore=COPY_IGNORE, dirs_exist_ok=True)
    return agent_from_workspace(target, config, role_client)


def _check_instance_workspace(agent: BaseAgent, workspace_dir: str | None) -> None:
    """ConfigError when `workspace_dir` names a folder other than the agent instance's own workspace."""
    if workspace_dir is None:
        return
    own = Path(agent.workspace.path).resolve()
    if Path(workspace_dir).resolve() != own:
        raise ConfigError(
            f"workspace_dir {workspace_dir!r} applies to a seed name or a workspace path; the {type(agent).__name__} "
            f"instance evolves its own workspace {own}: build the agent on {workspace_dir!r} instead, or drop "
            "workspace_dir")


def workspace_target(agent: str | BaseAgent, workspace_dir: str | None) -> Path | None:
    """Where the run's workspace lives: an instance's own (None when it has none), else `named_target`."""
    if isinstance(agent, str):
        return named_target(agent, workspace_dir)
    workspace = getattr(agent, "workspace", None)
    return Path(workspace.path) if workspace is not None else None


def named_target(agent: str, workspace_dir: str | None) -> Path:
    """`workspace_dir` when given; else ./runs/<name> for a seed name and the folder itself for a path."""
    if workspace_dir:
        return Path(workspace_dir)
    return Path.cwd() / "runs" / agent if is_seed_name(agent) else Path(agent)


def agent_from_workspace(
    path: Path, config: EvolveConfig, role_client: RoleClient | None = None
) -> tuple[BaseAgent, Callable[[Path], BaseAgent]]:
    """Build the agent named by the manifest's entrypoint; a class taking `llm=` gets `role_client("agent")`, shared
    by every agent the factory builds."""
    manifest = load_manifest(path)
    try:
        cls = import_object(manifest.entrypoint)
    except (ImportError, AttributeError) as exc:
        raise WorkspaceError(f"{path / 'manifest.yaml'}: agent.entrypoint {manifest.entrypoint!r}: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, BaseAgent)):
        raise WorkspaceError(f"{path / 'manifest.yaml'}: agent.entrypoint {manifest.entrypoint!r} is not a BaseAgent")
    wants_llm = role_client is not None and _accepts(cls, "llm")
    factory = AgentBuilder(cls, config, role_client("agent") if wants_llm and role_client else None, wants_llm)
    return factory(path), factory


@dataclass
class AgentBuilder:
    """A run's agent factory, one that travels to workers: in its own process every agent shares `llm`; a copy in
    another process (forked or pickled; the client never is) builds one client per process from `config`."""

    cls: type[BaseAgent]
    config: EvolveConfig
    llm: LLMClient | None = None
    wants_llm: bool = False
    origin_pid: int = field(default_factory=os.getpid)

    def __call__(self, workspace: Path) -> BaseAgent:
        llm = self.llm if os.getpid() == self.origin_pid else None  # a client never crosses processes
        if llm is None and self.wants_llm:
            llm = _worker_client(self.config)
        return _construct(self.cls, workspace, config=self.config, llm=llm)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "llm": None}


_worker_clients: dict[tuple[str, int], LLMClient] = {}
_worker_clients_lock = threading.Lock()


def _worker_client(config: EvolveConfig) -> LLMClient:
    """This process's agent client for `config` (a model loaded once per worker, not once per version)."""
    ledger = worker_ledger()
    key = (json.dumps(config.to_dict(), sort_keys=True, default=str), id(ledger))
    with _worker_clients_lock:
        if key not in _worker_clients:
            _worker_clients[key] = client_from_config(config, "agent", ledger=ledger, seed=config.seed)
        return _worker_clients[key]


def _accepts(cls: type, name: str) -> bool:
    """True when `cls(...)` has a parameter called `name` (not merely **kwargs)."""
    parameter = inspect.signature(cls).parameters.get(name)
    return parameter is not None and parameter.kind is not inspect.Parameter.VAR_KEYWORD


def _construct(cls: type, *args: Any, config: EvolveConfig, llm: LLMClient | None = None, **params: Any) -> Any:
    """Call `cls(*args, **params)`, adding `config=` and (when given) `llm=` if the constructor takes them."""
    if _accepts(cls, "config"):
        params["config"] = config
    if llm is not None and _accepts(cls, "llm"):
        params["llm"] = llm
    return cls(*args, **params)
