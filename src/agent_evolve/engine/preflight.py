"""Pre-flight: before the baseline, one tiny call per model role and the benchmark's readiness check.

A run that cannot work (no key, a model not installed, credentials refused, no Docker, no data) stops here with
every problem named at once, before anything is recorded as a task result.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import LLMClient, Message

PROBE = [Message("user", "Reply with OK.")]


class PreflightError(AgentEvolveError):
    """A model role or the benchmark is not usable; the message names what to set, install or start."""

    fatal = True


def role_problem(role: str, client: LLMClient) -> str | None:
    """None when one one-token call through the role's client succeeds (for a local model: it loads)."""
    try:
        client.complete(PROBE, max_tokens=1)
    except AgentEvolveError as exc:
        return f"{role} model {client.model}: {exc}"
    return None


def benchmark_problem(benchmark: BenchmarkAdapter) -> str | None:
    """None when the benchmark's readiness check passes."""
    try:
        benchmark.check_ready()
    except AgentEvolveError as exc:
        return f"benchmark {benchmark.name or type(benchmark).__name__}: {exc}"
    return None


def preflight(clients: Mapping[str, LLMClient], benchmark: BenchmarkAdapter) -> None:
    """Check every role's client and the benchmark; PreflightError listing every problem found."""
    problems = [p for role, client in clients.items() if (p := role_problem(role, client)) is not None]
    problem = benchmark_problem(benchmark)
    if problem is not None:
        problems.append(problem)
    _raise(problems)


def benchmark_preflight(benchmark: BenchmarkAdapter) -> None:
    """The benchmark's part alone, for a caller that must read its tasks before the models are probed."""
    problem = benchmark_problem(benchmark)
    _raise([problem] if problem is not None else [])


def _raise(problems: list[str]) -> None:
    if problems:
        raise PreflightError("pre-flight failed (nothing was run or recorded): " + "; ".join(problems))
