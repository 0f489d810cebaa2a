"""The ten-line Python API: an in-memory task list and a metric function in, progress out, an evolved agent to call.

The model is a scripted fake: it knows the capitals of `EASY` countries, and every capital once its prompt shows
worked examples, so the demos engine's candidate (two of the solved tasks as demonstrations) wins the gate.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import pytest

import agent_evolve as ae
from agent_evolve.agents.answering.program import PROGRAM_CLOSING
from agent_evolve.benchmarks.adapters.task_list import TaskList
from agent_evolve.errors import ConfigError, WorkspaceError
from agent_evolve.llm.base import Message
from agent_evolve.engine.run_estimate import estimate_solves
from agent_evolve.quick.evolve import estimate_line, run_config
from agent_evolve.testing import ScriptedLLM

CAPITALS = {"France": "Paris", "Japan": "Tokyo", "Italy": "Rome", "Spain": "Madrid", "Kenya": "Nairobi",
            "Peru": "Lima", "Egypt": "Cairo", "Chile": "Santiago", "Cuba": "Havana", "Iran": "Tehran",
            "Nepal": "Kathmandu", "Ghana": "Accra", "Norway": "Oslo", "Qatar": "Doha"}
EASY = {"France", "Japan", "Italy", "Spain", "Kenya", "Peru", "Egypt"}


def capital_of(question: str) -> str:
    return next(country for country in CAPITALS if country in question)


def fake_model(messages: list[Message]) -> str:
    """NONE to the skill router and to what it does not know; a capital when it knows it."""
    question = messages[-1].content
    if "Which one skill helps most" in question or "Reply with OK" in question:
        return "NONE"
    country = capital_of(question)
    knows = country in EASY or "## Example" in messages[0].content
    return CAPITALS[country] if knows else "I am not sure."


def scripted() -> ScriptedLLM:
    return ScriptedLLM([fake_model] * 2000)


def test_the_ten_line_api_shows_progress_and_returns_an_agent_that_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = [{"input": f"What is the capital of {country}?", "expected": city} for country, city in CAPITALS.items()]

    def metric(example: dict, output: str) -> bool:
        return output.strip() == example["expected"]

    run = ae.evolve(tasks, metric, llm=scripted(), budget="light", workspace=tmp_path / "run", progress=True)
    agent = run.agent()
    answer = agent("What is the capital of Qatar?")

    out = capsys.readouterr().out
    assert "up to" in out and "solves" in out and "time unknown until the first cycle" in out
    assert "cycle 1/3" in out and "s per solve" in out and "done: holdout score" in out
    assert run.accepted >= 1 and run.final_score > run.baseline_score
    assert answer == "Doha", "the evolved agent answers with its evolved workspace (demos in its prompt)"
    saved = run.save(tmp_path / "kept")
    assert ae.load_agent(saved, llm=scripted())("What is the capital of Ghana?") == "Accra"


def test_without_a_terminal_progress_goes_to_the_log_and_a_second_call_estimates_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tasks = [{"input": f"What is the capital of {c}?", "expected": city} for c, city in CAPITALS.items()]
    with caplog.at_level(logging.INFO, logger="agent_evolve.progress"):
        ae.evolve(tasks, lambda e, o: o == e["expected"], llm=scripted(), workspace=tmp_path / "run")
    lines = [r.getMessage() for r in caplog.records if r.name == "agent_evolve.progress"]
    assert any("time unknown until the first cycle" in line for line in lines)
    assert any("cycle 1/3" in line for line in lines)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="agent_evolve.progress"):
        ae.evolve(tasks, lambda e, o: o == e["expected"], llm=scripted(), workspace=tmp_path / "run")
    assert any("at the measured speed" in r.getMessage() for r in caplog.records), "the recorded speed gives a time"


def test_without_a_terminal_or_a_log_handler_progress_lines_go_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logging.getLogger("agent_evolve.progress"), "propagate", False)  # no handler reached
    tasks = [{"input": f"What is the capital of {c}?", "expected": city} for c, city in CAPITALS.items()]
    ae.evolve(tasks, lambda e, o: o == e["expected"], llm=scripted(), workspace=tmp_path / "run")
    err = capsys.readouterr().err
    assert "time unknown until the first cycle" in err and "cycle 1/3" in err


def test_a_metric_that_raises_is_a_failed_grade_with_its_message() -> None:
    def metric(example: dict, output: str) -> float:
        return 1.0 / len(output)  # ZeroDivisionError on an empty answer

    bench = ae.TaskList([{"input": "say something"}], metric)
    task = bench.get_tasks()[0]
    failed = bench.evaluate(task, ae.Trajectory(task_id=task.id, output=""))
    assert failed.success is False and failed.score == 0.0 and "ZeroDivisionError" in failed.detail
    assert bench.evaluate(task, ae.Trajectory(task_id=task.id, output="x")).success is True


def test_a_metric_may_return_a_score_and_feedback() -> None:
    bench = ae.TaskList([{"input": "q", "expected": "a"}], lambda e, o: (0.5, "half right"))
    task = bench.get_tasks()[0]
    feedback = bench.evaluate(task, ae.Trajectory(task_id=task.id, output="a"))
    assert (feedback.score, feedback.detail, feedback.success) == (0.5, "half right", False)


@pytest.mark.parametrize(
    ("tasks", "named"),
    [
        ([{"input": "a"}, {"question": "b"}], "tasks[1]: unknown keys ['question']"),
        ([{"input": "a"}, {"input": ""}], "tasks[1]: missing 'input'"),
        (["What is 2+2?"], "tasks[0]: expected a dict"),
        ([{"input": "a", "id": "x"}, {"input": "b", "id": "x"}], "tasks[1]: duplicate id 'x' (first in tasks[0])"),
        ([], "non-empty list"),
    ],
)
def test_a_bad_task_is_refused_naming_its_index_and_the_problem(tasks: list, named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        ae.TaskList(tasks, lambda e, o: True)
    assert named in str(caught.value)


def test_test_tasks_are_kept_out_of_the_train_pool() -> None:
    bench = ae.TaskList([{"input": "a"}, {"input": "b"}], lambda e, o: True, test=[{"input": "c"}])
    assert [t.input for t in bench.get_tasks("train", None)] == ["a", "b"]
    assert [t.input for t in bench.get_tasks("test", None)] == ["c"]


def test_one_task_is_refused_before_the_run_naming_the_minimum(tmp_path: Path) -> None:
    """One task leaves no holdout: ae.evolve refuses before any solve, rather than keep every edit unmeasured."""
    model = scripted()
    with pytest.raises(ConfigError, match="1 train task leaves no holdout.*at least 2"):
        ae.evolve([{"input": "What is the capital of France?", "expected": "Paris"}], lambda e, o: True, llm=model,
                  workspace=tmp_path / "run", progress=False)
    assert not model.calls and not (tmp_path / "run").exists()


def test_the_estimate_counts_the_baseline_then_a_batch_and_a_gate_per_cycle() -> None:
    config = run_config(None, "light", None, "skillforge")
    estimate = estimate_solves(config, 100)
    assert (estimate.baseline, estimate.batch, estimate.gate, estimate.cycles) == (16, 8, 16, 3)
    assert estimate.total == 16 + 3 * (8 + 16)
    small = estimate_solves(config, 10)
    assert (small.baseline, small.batch) == (3, 7)
    gateless = estimate_solves(dataclasses.replace(config, holdout_ratio=0.0), 100)
    assert gateless.total == 3 * (8 + 8), "no gate: each cycle's batch, then its kept edit re-solving the batch"
    assert "no gate" in estimate_line(gateless, None, 1) and "gate of 0" not in estimate_line(gateless, None, 1)


def program_model(messages: list[Message]) -> str:
    """Wrong in prose; right when it is asked for a Python program (it prints the product)."""
    question = messages[-1].content
    if "Which one skill helps most" in question or "Reply with OK" in question:
        return "NONE"
    a, b = (int(n) for n in question.split("\n\n")[0].removeprefix("What is ").removesuffix("?").split(" times "))
    if "Python program" in messages[0].content:
        return f"```python\nfirst = {a}\nsecond = {b}\nprint(first * second)\n```"
    return f"It is about {a * b + 1}."


def test_numeric_answers_get_program_answers_that_an_exact_metric_accepts(tmp_path: Path) -> None:
    tasks = [{"input": f"What is {a} times {a + 7}?", "expected": str(a * (a + 7))} for a in range(3, 17)]

    def metric(example: dict, output: str) -> bool:
        return output.strip() == example["expected"]

    run = ae.evolve(tasks, metric, llm=ScriptedLLM([program_model] * 2000), budget="light",
                    workspace=tmp_path / "run", progress=False)

    assert run.baseline_score == 0.0 and run.final_score == 1.0, "the program candidate won the gate"
    assert (run.workspace / "prompts" / "program.md").is_file()
    assert run.agent()("What is 20 times 30?") == "600", "the bare number the program printed, as the metric expects"


def word_model(messages: list[Message]) -> str:
    """Like a small model: follows the task's "the reversed word only" unless a program is asked for after it."""
    question = messages[-1].content
    if "Which one skill helps most" in question or "Reply with OK" in question:
        return "NONE"
    word = question.split("'")[1]
    if question.endswith(PROGRAM_CLOSING):
        return f"```python\nword = {word!r}\nprint(word[::-1])\n```"
    return word


def test_short_text_answers_get_program_answers_asked_after_the_tasks_own_format(tmp_path: Path) -> None:
    """Expected answers that are one short word make the tasks `text`, so a program answer is proposed and gated."""
    words = ["apple", "river", "stone", "candle", "forest", "mirror", "pepper", "violin", "tiger", "window",
             "garden", "rocket", "saddle", "lemon"]
    tasks = [{"input": f"Write the word '{w}' backwards. Answer with the reversed word only.", "expected": w[::-1]}
             for w in words]

    def metric(example: dict, output: str) -> bool:
        return output.strip() == example["expected"]

    run = ae.evolve(tasks, metric, llm=ScriptedLLM([word_model] * 2000), budget="light",
                    workspace=tmp_path / "run", progress=False)

    assert run.baseline_score == 0.0 and run.final_score == 1.0, "the program candidate won the gate"
    assert run.agent()("Write the word 'planet' backwards. Answer with the reversed word only.") == "tenalp"


class ShoutingAgent(ae.BaseAgent):
    """Answers a task's last word, upper-cased once its prompt says SHOUT."""

    def solve(self, task: ae.Task) -> ae.Trajectory:
        word = task.input.split()[-1]
        return ae.Trajectory(task_id=task.id, output=word.upper() if "SHOUT" in self.system_prompt else word)


class ShoutEngine(ae.EvolutionEngine):
    def step(self, workspace, observations, history, trial=None) -> ae.StepResult:
        workspace.write_prompt("SHOUT")
        return ae.StepResult(mutated=True, summary="shout")


def test_an_agent_instance_evolves_its_own_workspace_when_none_is_named(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mine" / "prompts").mkdir(parents=True)
    (tmp_path / "mine" / "prompts" / "system.md").write_text("Repeat the last word.\n")
    monkeypatch.chdir(tmp_path)
    tasks = [{"input": f"say w{i}", "expected": f"W{i}"} for i in range(12)]

    run = ae.evolve(tasks, lambda example, output: output == example["expected"], agent=ShoutingAgent("mine"),
                    engine=ShoutEngine(), progress=False)

    assert run.workspace.resolve() == (tmp_path / "mine").resolve() and not (tmp_path / "runs").exists()
    assert (run.baseline_score, run.final_score) == (0.0, 1.0) and run.agent()("say hi") == "HI"


@pytest.mark.parametrize("sealed", [False, True])
def test_the_evolver_resumes_a_run_only_with_its_settings_unless_forced(tmp_path: Path, sealed: bool) -> None:
    """`ae.Evolver(...).run()` itself checks a resumed run's settings, not only the CLI and `ae.evolve` (also when
    the run's records are sealed away from the engine: `trajectory_only`)."""
    (tmp_path / "mine" / "prompts").mkdir(parents=True)
    tasks = TaskList([{"input": f"say w{i}", "expected": f"W{i}"} for i in range(12)],
                     lambda example, output: output == example["expected"])

    def evolver(**changes: int) -> ae.Evolver:
        config = ae.EvolveConfig(max_cycles=1, batch_size=4, trajectory_only=sealed, **changes)
        return ae.Evolver(ShoutingAgent(tmp_path / "mine"), tasks, config, ShoutEngine())

    assert evolver().run().cycles_completed == 1
    with pytest.raises(ConfigError, match=r"seed: 0 -> 1\); call run\(force=True\)"):
        evolver(seed=1).run(2)
    assert evolver(seed=1).run(2, force=True).cycles_completed == 2
    assert evolver(seed=1).run(3).cycles_completed == 3, "the forced settings are now the run's own"
    with pytest.raises(ConfigError, match="seed: 1 -> 0"):
        evolver().run(4)
    settings = next((tmp_path / "mine").parent.rglob("settings.json"))
    settings.write_text("[1]\n")
    with pytest.raises(WorkspaceError, match=r"settings\.json: \[1\] is not a settings record"):
        evolver(seed=1).run(4)
    settings.unlink()  # a run started before runs recorded their settings: resumed, and recorded from then on
    assert evolver(seed=1).run(4).cycles_completed == 4
    with pytest.raises(ConfigError, match="seed: 1 -> 0"):
        evolver().run(5)


def test_a_rerun_resumes_only_with_the_same_tasks_and_settings(tmp_path: Path) -> None:
    (tmp_path / "mine" / "prompts").mkdir(parents=True)
    tasks = [{"input": f"say w{i}", "expected": f"W{i}"} for i in range(12)]

    def again(items: list, budget: str = "light") -> ae.EvolvedRun:
        return ae.evolve(items, lambda example, output: output == example["expected"], budget=budget,
                         agent=ShoutingAgent(tmp_path / "mine"), engine=ShoutEngine(), progress=False)

    assert again(tasks).result.cycles_completed == 3
    assert again(tasks).result.cycles_completed == 3, "the same call finds the run finished"
    with pytest.raises(ConfigError, match=r"other settings \(benchmark: 'tasks \w+' -> 'tasks \w+'\); .*new workspace"):
        again([{**task, "expected": task["expected"].lower()} for task in tasks])
    with pytest.raises(ConfigError, match="batch_size: 8 -> 10"):
        again(tasks, budget="medium")
