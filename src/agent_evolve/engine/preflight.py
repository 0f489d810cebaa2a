"""Pre-flight: before the baseline, one tiny call per model role and the benchmark's readiness check, so a run
that cannot work (no key, no model, no Docker, no data) stops with every problem named before anything is recorded."""

from __future__ import annotations

from collections.abc import Mapping

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import LLMClient, Message

PROBE = [Message("user", "Reply with OK.")]


class PreflightError(AgentEvolveError):
    """A model role or the benchmark is not usable; the message names what to set, install or start."""

    fatal = True


def preflight(clients: Mapping[str, LLMClient], benchmark: BenchmarkAdapter) -> None:
    """Check every role's client (one one-token call) and the benchmark; PreflightError listing every problem, each
    naming its model once (model errors already start with the model's name)."""
    problems = []
    for role, client in clients.items():
        try:
            client.complete(PROBE, max_tokens=1)
        except AgentEvolveError as exc:
            problems.append(f"{role} model {client.model}: {str(exc).removeprefix(f'{client.model}: ')}")
    _raise([*problems, *_benchmark_problem(benchmark)])


def benchmark_preflight(benchmark: BenchmarkAdapter) -> None:
    """The benchmark's part alone, for a caller that must read its tasks before the models are probed."""
    _raise(_benchmark_problem(benchmark))


def _benchmark_problem(benchmark: BenchmarkAdapter) -> list[str]:
    try:
        benchmark.check_ready()
    except AgentEvolveError as exc:
        return [f"benchmark {benchmark.name or type(benchmark).__name__}: {exc}"]
    return []


def _raise(problems: list[str]) -> None:
    if problems:
        raise PreflightError("pre-flight failed (nothing was run or recorded): " + "; ".join(problems))
