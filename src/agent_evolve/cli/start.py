"""What `agent-evolve run` checks before it creates a folder or calls a model, and what it says it will do; its only
write is removing a folder a refused start created."""

from __future__ import annotations

import inspect
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.acceptance import strategy_from_config
from agent_evolve.engine.records import RunRecords
from agent_evolve.engine.run_estimate import LOCAL_SECONDS_PER_SOLVE, Estimate, duration
from agent_evolve.errors import ConfigError
from agent_evolve.registry import benchmark_class, engine_class, is_seed_name, known_names
from agent_evolve.stats import PairedTable

RESUME_HINT = ("run it with the same options, pass --force to continue with the new ones, or start a new run in "
               "another --workspace")  # the CLI's way out
SMALL_HOLDOUT = 10  # below this many tasks one holdout task moves the gate's score by more than 0.1


def check_names(agent: str, benchmark: str, engine: str) -> None:
    """ConfigError or UnknownNameError for a name the run cannot resolve, before anything is built."""
    if not is_seed_name(agent) and not Path(agent).is_dir():
        raise ConfigError(f"--agent {agent!r}: not a workspace folder and not a seed name "
                          f"(seeds: {', '.join(known_names('agent'))})")
    name, _, argument = benchmark.partition(":")
    missing = [p.name for p in inspect.signature(benchmark_class(name)).parameters.values()
               if p.default is inspect.Parameter.empty and p.kind is p.POSITIONAL_OR_KEYWORD]
    if missing and not argument:
        raise ConfigError(f"--benchmark {name} needs its {missing[0]}: --benchmark {name}:{missing[0].upper()}")
    engine_class(engine)


@contextmanager
def removed_unless_started(workspace: Path) -> Iterator[None]:
    """Remove `workspace` (and its sealed records) when they did not exist before and the block fails before the
    run journaled anything: a refused start leaves nothing behind; a started run stays resumable."""
    records = RunRecords(workspace)
    created = [_first_missing(p) for p in (workspace, records.sealed) if not p.exists()]
    try:
        yield
    except BaseException:
        if not records.journal.exists():
            for path in created:
                shutil.rmtree(path, ignore_errors=True)
        raise


def _first_missing(path: Path) -> Path:
    """The outermost folder of `path` that does not exist yet (`runs/` when ./runs/gsm8k is made)."""
    path = path.absolute()
    while not path.parent.exists():
        path = path.parent
    return path


def tasks_to_accept(config: EvolveConfig, holdout_size: int) -> int | None:
    """The fewest holdout tasks a candidate must newly solve for the configured gate to accept it (0/1 scores,
    nothing else changed), or None when no number of the `holdout_size` tasks is enough (pure)."""
    strategy = strategy_from_config(config)
    incumbent = {f"t{i}": 0.0 for i in range(holdout_size)}
    for solved in range(1, holdout_size + 1):
        candidate = {f"t{i}": float(i < solved) for i in range(holdout_size)}
        if strategy.decide(PairedTable.pair(incumbent, candidate), best_so_far=None).accepted:
            return solved
    return None


def holdout_warning(config: EvolveConfig, holdout_size: int) -> str:
    """A warning when the run has no gate, or its gate on `holdout_size` tasks can never, or hardly, accept a change;
    "" when it can."""
    if holdout_size == 0:
        return ("no gate (holdout_ratio 0): every valid edit is kept without a held-out score, and the scores "
                "reported are train scores; set holdout_ratio above 0 to gate edits on held-out tasks")
    needed = tasks_to_accept(config, holdout_size)
    how = f"gate_strategy {config.gate_strategy} on {holdout_size} holdout tasks"
    fix = "use more tasks, or raise holdout_ratio / holdout_limit"
    if needed is None:
        return f"the gate can never accept a change ({how}: even solving all of them is not enough); {fix}"
    if needed > holdout_size / 2:
        return f"the gate accepts only a candidate that solves {needed} more of the {holdout_size} tasks ({how}); {fix}"
    if holdout_size < SMALL_HOLDOUT:
        return (f"the gate decides on {holdout_size} holdout tasks: one task moves its score by "
                f"{1 / holdout_size:.2f}, so what it accepts is mostly chance; {fix}")
    return ""


def describe_plan(estimate: Estimate, holdout_size: int, gate_repeats: int, local_model: bool, engine: str) -> str:
    """What a run will do, stated before it spends: what each cycle solves, how its edit is judged, the agent solves
    in all and, on the embedded model, a time."""
    gate = (f"the gate scores each candidate on {holdout_size} holdout tasks" + (
        f" x{gate_repeats}" if gate_repeats > 1 else "")) if holdout_size else (
        "no gate (holdout_ratio 0): every valid edit is kept, scored only on the train tasks it learned from")
    cycles = f"{estimate.cycles} cycle{'s' if estimate.cycles != 1 else ''}"
    tasks = f"{estimate.batch} train task{'s' if estimate.batch != 1 else ''}"
    line = (f"plan: {cycles} of {engine}; each solves {tasks} and {gate}: "
            f"at most {estimate.total:,} agent solves for the baseline, batches and gates, plus the engine's "
            "own trial solves and model calls")
    if local_model:
        line += (f"; on the embedded local model roughly {duration(estimate.total * LOCAL_SECONDS_PER_SOLVE)} "
                 f"at {LOCAL_SECONDS_PER_SOLVE} s a solve (short answers take less; the time left is measured "
                 "after the first cycle); fewer --cycles or a smaller --holdout-limit cost less")
    return line
