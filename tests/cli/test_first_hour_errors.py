"""Mistakes caught before they cost (issue 39): each bad input of a user's first hour exits 2 with one line on
stderr, creates nothing and calls no model (the model-client factory raises if anything builds a client)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rich.console import Console

import agent_evolve
from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.adapters.jsonl import JsonlBenchmark
from agent_evolve.cli.main import cli
from agent_evolve.cli.progress import LiveProgress
from agent_evolve.cli.run import describe_plan, holdout_warning, tasks_to_accept
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.records import RunRecords
from agent_evolve.engine.run_estimate import Estimate
from agent_evolve.engine.run_settings import SETTINGS_FILE
from agent_evolve.engine.solving import ProgressEvent
from agent_evolve.errors import ConfigError
from agent_evolve.registry import ENGINE_REGISTRY
from agent_evolve.types import Task, Trajectory

MANIFEST = """name: last-word
version: 0.1.0
contract_version: "1.0"
agent: {type: custom, entrypoint: cli_fakes.LastWordAgent}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""


class ModelCalled(AssertionError):
    """A model client was built: the refused start would have cost model time."""


def no_model(*args: object, **kwargs: object) -> None:
    raise ModelCalled("a model client was constructed")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current folder with a tasks file and a bad config; building a model client fails the test."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("agent_evolve.api.client_from_config", no_model)
    monkeypatch.setitem(ENGINE_REGISTRY, "shout", "cli_fakes.ShoutEngine")
    rows = [{"id": f"q{i}", "input": f"say word{i}", "answer": f"WORD{i}"} for i in range(30)]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path


def files_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


def refused(args: list[str], folder: Path) -> Result:
    """Run the command; assert it exits 2 with one error line and leaves `folder` as it was."""
    before = files_under(folder)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, ModelCalled), "a model client was built"
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("agent-evolve: error:"), result.stderr
    assert files_under(folder) == before, "a refused start created files"
    return result


def run_args(*extra: str) -> list[str]:
    return ["run", "--agent", "jsonl", "--benchmark", "jsonl:tasks.jsonl", "--engine", "skillforge", "-w", "ws",
            "--cycles", "1", *extra]


def test_a_misspelt_config_key_is_refused_naming_the_right_one(home: Path) -> None:
    (home / "evolve.yaml").write_text("batch_sise: 4\n")
    result = refused(run_args("--config", "evolve.yaml"), home)
    assert "batch_sise" in result.stderr and "did you mean 'batch_size'" in result.stderr


@pytest.mark.parametrize("key, value", [("gate_strategy", "lenient"), ("gate_sprt_beta", "2.5")])
def test_a_bad_gate_setting_is_refused_before_the_baseline_naming_the_file(home: Path, key: str, value: str) -> None:
    (home / "evolve.yaml").write_text(f"{key}: {value}\n")
    result = refused(run_args("--config", "evolve.yaml"), home)
    assert "evolve.yaml" in result.stderr and key in result.stderr and value in result.stderr


def test_a_negative_cycle_count_is_a_usage_error(home: Path) -> None:
    result = refused(["run", "--agent", "jsonl", "--benchmark", "jsonl:tasks.jsonl", "--cycles", "-1"], home)
    assert "--cycles" in result.stderr


def test_jsonl_without_a_path_says_how_to_name_it(home: Path) -> None:
    result = refused(["run", "--agent", "jsonl", "--benchmark", "jsonl", "-w", "ws"], home)
    assert "jsonl:PATH" in result.stderr


@pytest.mark.parametrize("option, name", [("--benchmark", "no-such-bench"), ("--engine", "no-such-engine"),
                                          ("--agent", "no-such-agent")])
def test_unknown_names_are_usage_errors_that_leave_no_folder(home: Path, option: str, name: str) -> None:
    args = run_args()
    args[args.index(option) + 1] = name
    result = refused(args, home)
    assert name in result.stderr
    assert not (home / "ws").exists()


def test_an_unknown_grader_option_is_refused(home: Path) -> None:
    (home / "evolve.yaml").write_text("grader_options: {ignore_cas: true}\n")
    result = refused(run_args("--config", "evolve.yaml"), home)
    assert "did you mean 'ignore_case'" in result.stderr


def test_a_valid_start_does_reach_the_model_factory(home: Path) -> None:
    """The control: the factory the refused starts never reached is the one a real start builds clients with."""
    result = CliRunner().invoke(cli, run_args("--holdout-limit", "5"))
    assert isinstance(result.exception, ModelCalled), result.output


@pytest.fixture
def started(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run of one cycle on a model-free agent, started with --seed 0 and --holdout-limit 5."""
    agent = home / "agent"
    (agent / "prompts").mkdir(parents=True)
    (agent / "prompts" / "system.md").write_text("quiet\n")
    (agent / "manifest.yaml").write_text(MANIFEST)
    result = CliRunner().invoke(cli, ["run", "--agent", str(agent), "--benchmark", "jsonl:tasks.jsonl", "--engine",
                                      "shout", "--cycles", "1", "--batch-size", "4", "--holdout-limit", "5"])
    assert result.exit_code == 0, result.output
    return agent


def resume_args(agent: Path, *changed: str) -> list[str]:
    return ["run", "--agent", str(agent), "--benchmark", "jsonl:tasks.jsonl", "--engine", "shout", "--cycles", "2",
            "--batch-size", "4", "--holdout-limit", "5", *changed]


@pytest.mark.parametrize("changed, difference", [
    (["--seed", "1"], "seed: 0 -> 1"),
    (["--holdout-limit", "6"], "holdout_limit: 5 -> 6"),
    (["--engine", "noop"], "engine: 'shout' -> 'noop'"),
])
def test_resuming_with_changed_settings_is_refused_listing_them(
    started: Path, monkeypatch: pytest.MonkeyPatch, changed: list[str], difference: str
) -> None:
    monkeypatch.setitem(ENGINE_REGISTRY, "noop", "cli_fakes.NoopEngine")
    args = resume_args(started)
    if changed[0] in args:
        args = args[: args.index(changed[0])] + args[args.index(changed[0]) + 2:]
    result = refused([*args, *changed], started.parent)
    assert difference in result.stderr and "--force" in result.stderr


def test_force_resumes_with_the_new_settings_and_says_which(started: Path) -> None:
    result = CliRunner().invoke(cli, resume_args(started, "--seed", "1", "--force"))
    assert result.exit_code == 0, result.output
    assert "seed: 0 -> 1" in result.output
    again = CliRunner().invoke(cli, resume_args(started, "--seed", "1", "--cycles", "3"))
    assert again.exit_code == 0, "the forced settings are now the run's own"


def test_resuming_with_the_same_settings_and_more_cycles_continues(started: Path) -> None:
    result = CliRunner().invoke(cli, resume_args(started, "--concurrency", "2"))
    assert result.exit_code == 0, result.output


def test_a_fresh_run_states_its_plan_and_warns_of_a_gate_that_cannot_accept(home: Path) -> None:
    agent_args = ["run", "--agent", "jsonl", "--benchmark", "jsonl:tasks.jsonl", "-w", "ws", "--cycles", "3",
                  "--batch-size", "4", "--holdout-limit", "4"]
    (home / "evolve.yaml").write_text("gate_strategy: paired\n")
    result = CliRunner().invoke(cli, [*agent_args, "--config", "evolve.yaml"])
    assert isinstance(result.exception, ModelCalled), "the plan and the warning come before any model call"
    said = " ".join(result.stdout.split())
    assert "3 cycles" in said and "at most 28 agent solves" in said  # 4 + 3 x (4 + 4)
    assert "can never accept" in result.stderr


def test_one_train_task_is_refused_naming_the_minimum_and_the_way_to_run_without_a_gate(home: Path) -> None:
    """One train task leaves no holdout: a run that would keep every edit unmeasured is refused, not run silently."""
    (home / "one.jsonl").write_text(json.dumps({"id": "q0", "input": "say word0", "answer": "WORD0"}) + "\n")
    result = refused(["run", "--agent", "jsonl", "--benchmark", "jsonl:one.jsonl", "-w", "ws", "--cycles", "1"], home)
    assert "1 train task leaves no holdout" in result.stderr and "at least 2" in result.stderr
    assert "holdout_ratio to 0" in result.stderr


def test_a_run_without_a_gate_says_so_and_counts_its_real_batch(home: Path) -> None:
    """holdout_ratio 0 is the documented no-gate run: the plan and a warning say so; 3 tasks make a batch of 3."""
    rows = [{"id": f"q{i}", "input": f"say word{i}", "answer": f"WORD{i}", "split": "train"} for i in range(3)]
    (home / "three.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = CliRunner().invoke(cli, ["run", "--agent", "jsonl", "--benchmark", "jsonl:three.jsonl", "-w", "ws",
                                      "--cycles", "2", "--holdout-ratio", "0"])
    assert isinstance(result.exception, ModelCalled), "the plan and the warning come before any model call"
    said = " ".join(result.stdout.split())
    assert "each solves 3 train tasks and no gate" in said and "at most 12 agent solves" in said  # 2 x (3 + 3)
    assert "warning: no gate" in result.stderr and "train scores" in result.stderr


def test_the_plan_states_the_train_tasks_that_exist_not_the_batch_size(home: Path) -> None:
    rows = [{"id": f"q{i}", "input": f"say word{i}", "answer": f"WORD{i}", "split": "train"} for i in range(5)]
    (home / "five.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = CliRunner().invoke(cli, ["run", "--agent", "jsonl", "--benchmark", "jsonl:five.jsonl", "-w", "ws",
                                      "--cycles", "1", "--batch-size", "10"])
    said = " ".join(result.stdout.split())
    assert "each solves 4 train tasks and the gate scores each candidate on 1 holdout tasks" in said, said


def test_the_gate_reach_follows_the_acceptance_strategy() -> None:
    assert tasks_to_accept(EvolveConfig(), 2) == 1
    assert tasks_to_accept(EvolveConfig(gate_strategy="min_improvement", gate_min_improvement=0.05), 2) == 1
    assert tasks_to_accept(EvolveConfig(gate_min_improvement=0.5), 2) == 2
    assert tasks_to_accept(EvolveConfig(gate_strategy="paired"), 5) is None
    assert tasks_to_accept(EvolveConfig(gate_strategy="paired"), 8) == 6
    assert "never" in holdout_warning(EvolveConfig(gate_strategy="paired"), 5)
    assert "mostly chance" in holdout_warning(EvolveConfig(), 2)
    assert holdout_warning(EvolveConfig(), 50) == ""


def test_the_plan_counts_the_loops_solves_and_says_the_engines_trials_come_on_top() -> None:
    estimate = Estimate.of(2, 30, EvolveConfig(batch_size=4), 2)
    line = describe_plan(estimate, holdout_size=2, gate_repeats=1, local_model=False, engine="demos")
    assert "at most 14 agent solves for the baseline, batches and gates" in line and "trial solves" in line
    local = describe_plan(estimate, holdout_size=2, gate_repeats=1, local_model=True, engine="demos")
    assert "roughly 5 min at 20 s a solve" in local and "measured after the first cycle" in local


def test_the_time_left_is_said_once_after_the_first_cycle_from_the_speed_measured() -> None:
    out = io.StringIO()
    estimate = Estimate(baseline=4, batch=4, gate=4, cycles=3)
    progress = LiveProgress(Console(file=out, force_terminal=False), 3, estimate=estimate)
    progress.started -= 24.0  # the baseline and cycle 1 took 24 s: 12 solves, 2 s each
    progress(ProgressEvent(1, "recorded", score=0.5, message="accepted: a rule; holdout score 0.500"))
    progress(ProgressEvent(2, "recorded", score=0.5, message="rejected: a rule; holdout score 0.500 kept"))
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("measured 2.0 s per solve; about 32 s for the 2 cycles left"), lines
    assert len(lines) == 3, "said once"


def test_paris_with_a_full_stop_passes_when_the_grader_strips_punctuation(home: Path) -> None:
    (home / "capitals.jsonl").write_text(json.dumps({"id": "fr", "input": "capital of France", "answer": "Paris"}))
    task, answer = Task(id="fr", input="capital of France"), Trajectory(task_id="fr", output="paris.")
    assert not JsonlBenchmark(home / "capitals.jsonl", ignore_case=True).evaluate(task, answer).success
    config = EvolveConfig.from_dict({"grader_options": {"ignore_case": True, "strip_punctuation": True}})
    bench = resolve_benchmark(f"jsonl:{home / 'capitals.jsonl'}", config=config)
    assert bench.evaluate(task, answer).success
    with pytest.raises(ConfigError, match="grader option"):
        resolve_benchmark("gsm8k", config=config)


def test_grader_options_are_settable_from_the_command_line(home: Path) -> None:
    agent = home / "agent"
    (agent / "prompts").mkdir(parents=True)
    (agent / "prompts" / "system.md").write_text("quiet\n")
    (agent / "manifest.yaml").write_text(MANIFEST)
    (home / "capitals.jsonl").write_text(json.dumps({"id": "fr", "input": "say paris.", "answer": "Paris",
                                                     "split": "test"}) + "\n")
    args = ["eval", "-w", str(agent), "--benchmark", "jsonl:capitals.jsonl", "--no-preflight"]
    plain = CliRunner().invoke(cli, args)
    assert plain.exit_code == 0 and "(0/1)" in plain.output, plain.output
    lenient = CliRunner().invoke(cli, [*args, "--ignore-case", "--strip-punctuation"])
    assert lenient.exit_code == 0 and "(1/1)" in lenient.output, lenient.output


def test_the_names_the_config_checks_are_those_the_engine_builds() -> None:
    from agent_evolve import config
    from agent_evolve.engine.acceptance import STRATEGY_NAMES
    from agent_evolve.engine.executors import EXECUTORS

    assert set(config.GATE_STRATEGIES) == set(STRATEGY_NAMES)
    assert set(config.EXECUTORS) == set(EXECUTORS)


def test_a_refused_seed_run_leaves_no_runs_folder(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A start refused after the seed was copied (here: an engine parameter the engine cannot take)."""
    monkeypatch.setattr("agent_evolve.api.client_from_config", lambda *args, **kwargs: object())
    before = files_under(home)
    result = CliRunner().invoke(cli, ["run", "--agent", "jsonl", "--benchmark", "jsonl:tasks.jsonl", "--engine",
                                      "adaptive", "--engine-param", "no_such_param=1", "--cycles", "1"])
    assert result.exit_code == 2, result.output
    assert "no_such_param" in result.stderr
    assert files_under(home) == before and not (home / "runs").exists()


def test_the_same_tasks_file_named_another_way_is_the_same_setting(started: Path) -> None:
    args = resume_args(started)
    args[args.index("jsonl:tasks.jsonl")] = f"jsonl:{started.parent / 'tasks.jsonl'}"
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output


def test_a_grader_and_an_agent_module_in_the_current_folder_are_found(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here_grader.py").write_text("def grade(task, output):\n    return output == task.metadata['answer']\n")
    (tmp_path / "here_agent.py").write_text(
        "import agent_evolve as ae\n\nclass Echo(ae.BaseAgent):\n    def solve(self, task):\n"
        "        return ae.Trajectory(task_id=task.id, output=task.input.split()[-1])\n")
    (tmp_path / "ws" / "prompts").mkdir(parents=True)
    (tmp_path / "ws" / "prompts" / "system.md").write_text("Echo.\n")
    (tmp_path / "ws" / "manifest.yaml").write_text('name: echo\ncontract_version: "1.0"\nagent:\n  entrypoint: '
                                                   "here_agent.Echo\nevolvable_layers: [prompts]\n")
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps({"input": f"say w{i}", "answer": f"w{i}",
                                                              "split": "test"}) + "\n" for i in range(3)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    result = CliRunner().invoke(cli, ["eval", "-w", "ws", "--benchmark", "jsonl:tasks.jsonl", "--grader",
                                      "python:here_grader:grade"])
    assert result.exit_code == 0 and "1.000 (3/3)" in result.output, result.output


def test_a_second_run_on_a_workspace_in_use_is_refused_naming_the_holder_and_keeps_its_settings(started: Path) -> None:
    """Another process holds the run lock: `run --force` with other settings is refused before it records them."""
    src = str(Path(agent_evolve.__file__).parents[1])  # this checkout's package, in the holder too
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(started)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": src})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        settings = RunRecords(started).journal.with_name(SETTINGS_FILE)
        before = settings.read_bytes()
        result = CliRunner().invoke(cli, resume_args(started, "--seed", "1", "--force"))
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 1 and f"pid {holder.pid}" in result.stderr, result.output
    assert settings.read_bytes() == before, "the refused run rewrote the live run's settings"
    again = CliRunner().invoke(cli, resume_args(started))
    assert again.exit_code == 0, "the killed holder's lock is taken over, and the run's own settings still match"


HOLD_LOCK = """import sys, time
from pathlib import Path
from agent_evolve.engine.records import RunRecords, holding_run_lock
with holding_run_lock(RunRecords(Path(sys.argv[1]))):
    print("held", flush=True)
    time.sleep(120)
"""
