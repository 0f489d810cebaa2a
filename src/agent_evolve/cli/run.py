"""`agent-evolve run` (with `--track` trackers; what it checks before it makes a folder or calls a model, and what
it says it will do), `eval` (score a workspace on a split) and `hard-subset` (tasks a baseline misses at times)."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from agent_evolve.api import (Evolver, RunClients, agent_from_workspace, default_engine, named_target,
                              resolve_benchmark, resolve_config)
from agent_evolve.algorithms.ratchet.settings import ratchet_params, ratchet_run_options, round_config
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.benchmarks.support.hard_subset import Solver, select_hard_subset, write_subset
from agent_evolve.cli.progress import LiveProgress, learned_note, summary_table
from agent_evolve.config import GRADER_OPTIONS, EvolveConfig
from agent_evolve.engine.acceptance import strategy_from_config
from agent_evolve.engine.executors import EXECUTORS
from agent_evolve.engine.loop import pool_ids
from agent_evolve.engine.preflight import benchmark_preflight, preflight
from agent_evolve.engine.records import RunRecords, holding_run_lock, write_json_atomic
from agent_evolve.engine.run_estimate import LOCAL_SECONDS_PER_SOLVE, Estimate, duration
from agent_evolve.engine.run_settings import benchmark_source, check_resume, engine_label, run_settings
from agent_evolve.engine.solving import mean_score, solve_all
from agent_evolve.engine.tasks import plan_tasks
from agent_evolve.errors import ConfigError
from agent_evolve.io.safe_yaml import load_yaml
from agent_evolve.lift.ledger import record_eval
from agent_evolve.llm.factory import apply_config_limits
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.registry import benchmark_class, engine_class, import_object, is_seed_name, known_names, seed_path
from agent_evolve.stats import PairedTable
from agent_evolve.tracking.run import RunTracker, run_tracked

# Command-line option -> EvolveConfig key; a given option beats the YAML file, which beats the defaults.
_OVERRIDES = {
    **{key: key for key in ("evolver_model", "evolver_base_url", "agent_max_tokens", "evolver_max_tokens",
                            "agent_temperature", "grader", "answer_kind", "batch_size", "holdout_ratio",
                            "holdout_limit", "seed", "concurrency", "executor", "ray_address")},
    "model": "agent_model", "base_url": "llm_base_url", "agent_timeout": "agent_timeout_s",
    "evolver_timeout": "evolver_timeout_s", "max_tokens_budget": "max_total_tokens", "max_cost": "max_cost_usd",
}
RESUME_HINT = ("run it with the same options, pass --force to continue with the new ones, or start a new run in "
               "another --workspace")  # the CLI's way out
SMALL_HOLDOUT = 10  # below this many tasks one holdout task moves the gate's score by more than 0.1
TRACKERS = {"mlflow": "agent_evolve.tracking.mlflow_logger.MlflowTracker",
            "wandb": "agent_evolve.tracking.wandb_logger.WandbTracker"}  # imported only when named (optional extras)


def trackers_from(specs: Sequence[str]) -> list[RunTracker]:
    """Build the trackers named by `kind=target` specs (MLflow tracking URI, W&B offline directory)."""
    found: list[RunTracker] = []
    for spec in specs:
        kind, _, target = spec.partition("=")
        if kind not in TRACKERS or not target:
            raise ConfigError(f"--track {spec!r}: use mlflow=TRACKING_URI or wandb=DIRECTORY")
        found.append(import_object(TRACKERS[kind])(target))
    return found


def parse_engine_params(pairs: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """`key=value` pairs, each value read as a YAML scalar (`4` is an int, `true` a bool, `a b` a string)."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--engine-param {pair!r}: expected key=value")
        params[key.strip()] = load_yaml(raw, f"--engine-param {pair!r}", ConfigError) if raw.strip() else ""
    return params


def build_config(config_path: str | None, **options: Any) -> EvolveConfig:
    """The YAML config (or defaults) with every command-line option that was given laid on top."""
    config = resolve_config(config_path)
    changes = {_OVERRIDES[k]: v for k, v in options.items() if k in _OVERRIDES and v is not None}
    if params := {**parse_engine_params(options.get("engine_param") or ()), **ratchet_params(options)}:
        changes["engine_params"] = {**config.engine_params, **params}
    if options.get("no_preflight"):
        changes["preflight"] = False
    if graded := {key: True for key in GRADER_OPTIONS if options.get(key)}:  # each option is a flag
        changes["grader_options"] = {**config.grader_options, **graded}
    changes = {**round_config(options), **changes}
    try:
        return dataclasses.replace(config, **changes)
    except ConfigError as exc:
        raise ConfigError(f"command line: {exc}") from None


def benchmark_from_options(name: str, options: dict[str, Any], config: EvolveConfig) -> BenchmarkAdapter:
    """The named benchmark with the config's grader, narrowed to a subset file when --subset was given."""
    return resolve_benchmark(name, subset=options.get("subset"), grader=config.grader, config=config)


def output_file(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A file written after the command's model work: refused before that work when it cannot be written there."""
    if value is not None:
        folder = next(p for p in Path(value).absolute().parents if p.exists())
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise click.BadParameter(f"{value}: cannot be written ({folder} is not a writable folder)")
    return value


def stacked(*options: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """One decorator applying `options` as if stacked on the command in this order."""
    def apply(func: Any) -> Any:
        for option in reversed(options):
            func = option(func)
        return func
    return apply


model_options = stacked(  # shared by every command that runs an agent
    click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False), help="EvolveConfig YAML."),
    click.option("--model", help="Agent model, e.g. local/qwen2.5-coder-1.5b or openai/gpt-4.1-mini."),
    click.option("--base-url", help="The agent's OpenAI-compatible server (vLLM, Ollama, llama.cpp); not the engine's."),
    click.option("--agent-timeout", type=float, help="Seconds per agent model call (default llm_timeout_s)."),
    click.option("--agent-max-tokens", type=int, help="Output token limit of each agent answer (beats the manifest)."),
    click.option("--agent-temperature", type=float, help="Agent sampling temperature (beats the manifest)."),
    click.option("--concurrency", type=int, help="Tasks (and model calls) in flight at once."),
    click.option("--grader", help="jsonl:PATH grader: exact, regex, numeric or python:module:function."),
    click.option("--answer-kind", help="jsonl:PATH: what every answer is: number, text, choice, code, free or "
                                        "actions (default: inferred, docs/answer-kinds.md)."),
    click.option("--ignore-case", is_flag=True, help="Grader: compare answers ignoring case (exact, regex)."),
    click.option("--strip-punctuation", is_flag=True,
                 help="Exact grader: ignore punctuation at the answer's ends ('Paris.' matches 'Paris')."),
    click.option("--subset", type=click.Path(exists=True, dir_okay=False), help="Benchmark subset file (hard-subset)."),
    click.option("--no-preflight", is_flag=True, help="Skip the check of model roles and benchmark before starting."),
)
engine_options = stacked(  # of the commands that run an evolution engine
    click.option("--evolver-model", help="Engine model (default: the embedded local model)."),
    click.option("--evolver-base-url", help="The engine's OpenAI-compatible server (--base-url is the agent's)."),
    click.option("--evolver-timeout", type=float, help="Seconds per engine model call (default llm_timeout_s)."),
    click.option("--evolver-max-tokens", type=int, help="Output token limit of each engine call."),
    click.option("--engine-param", multiple=True, metavar="KEY=VALUE",
                 help="Engine constructor parameter (repeatable; values are YAML scalars)."),
)


@click.command("run")
@click.option("--agent", default="gsm8k", show_default=True, help="Seed workspace name or workspace path.")
@click.option("--benchmark", default="gsm8k", show_default=True, help="Benchmark name (or jsonl:PATH).")
@click.option("--engine", help="Evolution engine name (default: demos with the embedded model, else skillforge).")
@click.option("--cycles", "--rounds", "cycles", type=click.IntRange(min=1),
              help="Total cycles for the workspace (default: config max_cycles); --rounds is Ratchet's name.")
@click.option("-w", "--workspace", type=click.Path(file_okay=False), help="Working directory of the evolved workspace.")
@click.option("--batch-size", type=int)
@click.option("--holdout-ratio", type=float)
@click.option("--holdout-limit", type=int, help="At most this many holdout tasks for the gate.")
@click.option("--executor", type=click.Choice(EXECUTORS), help="Where rollouts run (default: threads).")
@click.option("--ray-address", help="Ray cluster to join with --executor ray (default: start a local one).")
@click.option("--seed", type=int)
@click.option("--max-tokens-budget", type=int, help="Stop cleanly once this many tokens are spent.")
@click.option("--max-cost", type=float, help="Stop cleanly once this many US dollars are spent.")
@click.option("--force", is_flag=True, help="Resume a run even though its settings differ from those it started with.")
@ratchet_run_options
@engine_options
@model_options
@click.option("--track", multiple=True, metavar="KIND=TARGET",
              help="Log metrics per cycle and the report: mlflow=TRACKING_URI or wandb=DIR (offline). Repeatable.")
def run_command(agent: str, benchmark: str, engine: str | None, cycles: int | None, workspace: str | None, force: bool,
                **options: Any) -> None:
    """Evolve an agent on a benchmark (resumes an interrupted run in the same workspace; its settings must be those
    it started with unless --force). Everything is checked before a folder is made or a model is called."""
    console = Console()
    trackers = trackers_from(options.pop("track"))
    config = build_config(options.pop("config_path"), **options)
    engine = engine or default_engine(config.evolver_model)
    check_names(agent, benchmark, engine)
    target = named_target(agent, workspace)
    current = run_settings(config, benchmark_source(benchmark), engine_label(engine_class(engine), engine))
    changed = check_resume(target, current, force, RESUME_HINT)
    adapter = benchmark_from_options(benchmark, options, config)
    total = cycles if cycles is not None else config.max_cycles
    resumed = RunRecords(target).journal.exists()
    estimate = None if resumed else _state_the_plan(console, config, adapter, engine, total)
    with removed_unless_started(target):
        evolver = Evolver(agent, adapter, config, engine, workspace_dir=workspace)
        with holding_run_lock(RunRecords(Path(evolver.workspace.path))):  # a refused run leaves the settings alone
            if changed:
                console.print(f"continuing with changed settings (--force): {'; '.join(changed)}", markup=False)
            console.print(f"workspace: {evolver.workspace.path}  agent model: {config.agent_model}  engine: {engine}",
                          markup=False, highlight=False, soft_wrap=True)
            started = time.monotonic()
            with LiveProgress(console, total, evolver.ledger, estimate) as progress:
                evolver.progress = progress
                result = run_tracked(evolver, trackers, cycles, force=force)
    console.print(summary_table(result, time.monotonic() - started, evolver.ledger))
    if (note := learned_note(result)) is not None:
        console.print(note, markup=False, soft_wrap=True)


def _state_the_plan(console: Console, config: EvolveConfig, adapter: BenchmarkAdapter, engine: str,
                    cycles: int) -> Estimate:
    """Before a fresh run spends anything: what it will do, and a warning when its gate cannot judge (tasks are read
    only once the benchmark passes its readiness check, so that is what an error names); the estimate it stated."""
    if config.preflight:
        benchmark_preflight(adapter)
    pool = pool_ids(adapter.get_tasks("train", limit=config.task_pool_limit), type(adapter).__name__)
    plan = plan_tasks(pool, config.holdout_ratio, config.seed, config.holdout_limit, config.val_ratio, config.val_limit)
    holdout = len(plan.holdout_ids)
    estimate = Estimate.of(holdout, len(plan.train_ids), config, cycles)
    local = config.agent_model.startswith("local/")
    console.print(describe_plan(estimate, holdout, config.gate_repeats, local, engine),
                  markup=False, highlight=False, soft_wrap=True)
    warning = holdout_warning(config, holdout)
    if warning:
        click.echo(f"agent-evolve: warning: {warning}", err=True)
    return estimate


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
        return (f"the gate accepts only a candidate that solves {needed} more of the {holdout_size} tasks ({how}); "
                f"{fix}")
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


@click.command("eval")
@click.option("-w", "--workspace", required=True, type=click.Path(exists=True, file_okay=False), help="Workspace to score.")
@click.option("--benchmark", required=True, help="Benchmark name (or jsonl:PATH).")
@click.option("--split", default="test", show_default=True, type=click.Choice(["train", "test"]))
@click.option("--limit", type=int, default=100_000, help="Score at most this many tasks.")
@click.option("--output", type=click.Path(dir_okay=False), callback=output_file,
              help="Write per-task results as JSON here (folders created).")
@model_options
def eval_command(workspace: str, benchmark: str, split: str, limit: int, output: str | None, **options: Any) -> None:
    """Score a workspace on a benchmark split without changing it."""
    console = Console()
    config = build_config(options.pop("config_path"), **options)
    roles = RunClients(config, apply_config_limits(config, UsageLedger()))
    agent, _ = agent_from_workspace(Path(workspace), config, roles)
    adapter = benchmark_from_options(benchmark, options, config)
    if config.preflight:
        preflight(roles.clients, adapter)
    tasks = adapter.get_tasks(split, limit=limit)
    with console.status(f"scoring {len(tasks)} {split} tasks") as status:
        done = itertools.count(1)
        observations = solve_all(agent, adapter, tasks, config.in_flight,
                                 lambda _: status.update(f"scoring {split} tasks: {next(done)}/{len(tasks)}"))
    score = mean_score(observations)
    if split == "test":
        record_eval(adapter, Path(workspace), config, observations)
    console.print(f"{benchmark} {split}: {score:.3f} ({sum(o.feedback.success for o in observations)}/{len(observations)})")
    if output:
        rows = [{"task_id": o.task.id, "score": o.feedback.score, "success": o.feedback.success, "detail": o.feedback.detail, "output": o.trajectory.output} for o in observations]
        write_json_atomic(Path(output), {"benchmark": benchmark, "split": split, "score": score, "tasks": rows})


DEFAULT_PROBE_TEMPERATURE = 0.7


def probe_solvers(workspace: Path, config: EvolveConfig, k: int, seed: int, temperature: float) -> list[Solver]:
    """k baseline agents sharing one ledger, each with its own sampling seed; with k > 1 they sample at
    `temperature` unless the config sets agent_temperature, so the probes differ."""
    ledger = apply_config_limits(config, UsageLedger())
    if k > 1 and config.agent_temperature is None:
        config = dataclasses.replace(config, agent_temperature=temperature)
    solvers: list[Solver] = []
    for probe in range(k):
        agent, _ = agent_from_workspace(workspace, config, RunClients(config, ledger, seed=seed * k + probe))
        solvers.append(agent.solve)
    return solvers


@click.command("hard-subset")
@click.option("--agent", default="gsm8k", show_default=True, help="Seed workspace name or path (the baseline).")
@click.option("--benchmark", default="gsm8k", show_default=True)
@click.option("-k", "k", type=int, default=3, show_default=True, help="Probes per task.")
@click.option("--n-train", type=int, help="Hard train tasks to keep (default: all found).")
@click.option("--n-test", type=int, help="Hard test tasks to keep (default: all found).")
@click.option("--seed", type=int, default=0, show_default=True, help="Probe order and the probes' sampling seeds.")
@click.option("--probe-temperature", type=float, default=DEFAULT_PROBE_TEMPERATURE, show_default=True,
              help="Agent temperature of the probes when k > 1 (--agent-temperature overrides it).")
@click.option("--drop-never-solved", is_flag=True, help="Also drop tasks the baseline never solves.")
@click.option("--out", required=True, type=click.Path(dir_okay=False), callback=output_file,
              help="Subset JSON to write.")
@model_options
def hard_subset_command(
    agent: str, benchmark: str, k: int, n_train: int | None, n_test: int | None, seed: int,
    probe_temperature: float, drop_never_solved: bool, out: str, **options: Any,
) -> None:
    """Probe the baseline k times per task (each probe its own agent and sampling seed, at --probe-temperature) and
    keep the tasks it does not always solve; pass the file to any benchmark with `--subset`."""
    config = build_config(options.pop("config_path"), **options)
    workspace = seed_path(agent) if is_seed_name(agent) else Path(agent)
    solvers = probe_solvers(workspace, config, k, seed, probe_temperature)
    subset = select_hard_subset(
        solvers, benchmark_from_options(benchmark, {}, config), k=k, n_train=n_train, n_test=n_test, seed=seed,
        drop_never_solved=drop_never_solved, workers=config.in_flight,
    )
    write_subset(out, subset)
    click.echo(json.dumps({"train": len(subset["train"]), "test": len(subset["test"]), "written": out}))
