"""Rollout executors: where `solve_all` runs its tasks (threads by default, a process pool, or a Ray cluster)."""

from __future__ import annotations

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.executors.base import AgentFactory, Executor
from agent_evolve.engine.executors.processes import ProcessExecutor
from agent_evolve.engine.executors.threads import ThreadExecutor
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.llm.usage import UsageLedger

EXECUTORS = ("threads", "processes", "ray")

__all__ = ["EXECUTORS", "Executor", "ProcessExecutor", "ThreadExecutor", "make_executor"]


def make_executor(config: EvolveConfig, agent_factory: AgentFactory, ledger: UsageLedger | None = None) -> Executor:
    """The executor `config.executor` names, with `config.in_flight` tasks in flight; remote usage goes to `ledger`."""
    if config.executor == "threads":
        return ThreadExecutor(config.in_flight)
    if config.executor == "processes":
        return ProcessExecutor(config.in_flight, agent_factory, ledger)
    if config.executor == "ray":
        try:
            from agent_evolve.engine.executors.ray_cluster import RayExecutor
        except ImportError as exc:
            raise MissingDependencyError(
                f"executor 'ray' needs Ray ({exc}): pip install 'agent-evolve[ray]'"
            ) from exc
        return RayExecutor(config.in_flight, agent_factory, config.ray_address, ledger)
    raise ConfigError(f"executor must be one of {', '.join(EXECUTORS)}, got {config.executor!r}")
