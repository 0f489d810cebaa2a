"""The demos engine: demos only from graded-correct train solutions, the best candidate by trial kept, or nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_fakes import gsm_obs, snapshot

import agent_evolve as ae
from agent_evolve.agents.answering import Answer, ProgramAnswer, Question
from agent_evolve.algorithms.common.candidate_search import pick_best, trial_ids
from agent_evolve.algorithms.common.demos import Demo, demo_sets, demos_in, render_demos, verified_demos
from agent_evolve.algorithms.common.evidence import analyse
from agent_evolve.algorithms.common.failure_notes import TRUNCATED, TRUNCATION_RULE, targeted_fixes, with_fix
from agent_evolve.algorithms.common.techniques import (
    PROGRAM_INSTRUCTION,
    caught_failures,
    check_candidate,
    cross_check_candidate,
    learned_form,
    program_candidate,
)
from agent_evolve.algorithms.demos import DemoSearchEngine
from agent_evolve.contract.check_settings import CHECK_SETTINGS, AnswerForm, CheckSettings
from agent_evolve.contract.workspace import PROGRAM_PROMPT
from agent_evolve.engine.base import EngineContext
from agent_evolve.engine.trial import TrialRunner
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Feedback, Observation, Task, Trajectory

FRAGMENT = Path("prompts/fragments/demos.md")


class FragmentAgent(ae.BaseAgent):
    """Solves a task when the workspace's demos fragment contains the task's `needs` text (all tasks: '')."""

    def solve(self, task: Task) -> Trajectory:
        path = Path(self.workspace.path) / FRAGMENT
        text = path.read_text() if path.is_file() else ""
        return Trajectory(task.id, "Answer: 1" if task.metadata["needs"] in text else "Answer: 0")


class NeedsBenchmark(ae.BenchmarkAdapter):
    def __init__(self, needs: str) -> None:
        self.needs = needs

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return [Task(f"t{i}", f"task {i}", {"needs": self.needs}) for i in range(20)][:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output == "Answer: 1"
        return Feedback(ok, float(ok))


def runner(ws: ae.AgentWorkspace, needs: str, train: range = range(20)) -> TrialRunner:
    bench = NeedsBenchmark(needs)
    tasks = {t.id: t for t in bench.get_tasks(limit=None) if int(t.id[1:]) in train}
    return TrialRunner(tasks, bench, FragmentAgent, Path(ws.path))


def context(ws: ae.AgentWorkspace) -> EngineContext:
    """A context like the loop's: state, scratch and output under the workspace's run records."""
    folders = [Path(ws.path) / "evolution" / "engine" / name for name in ("state", "scratch", "output")]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    return EngineContext(ae.EvolveConfig(), ws, ae.EvolutionHistory(ws.path), *folders, cycle=1)


def batch(with_hidden: bool = False) -> list[Observation]:
    """t1..t3 solved (t3 cut at the token limit), t4 off by a factor of 100; t9 solved but its feedback hidden."""
    obs = [gsm_obs(f"t{i}", f"question {i}", f"{i} + {i}\nAnswer: 18", extracted="18") for i in (1, 2, 3)]
    obs[2].trajectory.steps.append({"type": "answer", "finish_reason": "length"})
    obs.append(gsm_obs("t4", "question 4", "Answer: 7", expected="700", extracted="7"))
    hidden = gsm_obs("t9", "question 9", "Answer: 18", extracted="18")
    return obs + ([Observation(hidden.task, hidden.trajectory, Feedback(True, 1.0, "", {"hidden": True}))]
                  if with_hidden else [])


def test_demos_come_only_from_graded_correct_untruncated_visible_solutions() -> None:
    assert [d.task_id for d in verified_demos(batch(with_hidden=True))] == ["t1", "t2"]


def test_a_program_that_printed_a_text_answer_becomes_a_worked_example_showing_the_program() -> None:
    """A demonstration must show how a task was solved: the program, then its printed answer, not the answer
    alone (which teaches the model to answer without a program)."""
    reply = '```python\nsentence = "man walked his small dog along"\nprint(len(sentence.split()))\n```'
    task = Task("t", 'How many words are in this sentence: "man walked his small dog along"?',
                {"answer_kind": "text"})
    answer = ProgramAnswer("text").answer(Question(task, ScriptedLLM([reply]), "Write a program.", 256, 0.0), Answer())
    assert answer.output == "6"
    observation = Observation(task, Trajectory("t", answer.output, answer.steps,
                                               [m.to_dict() for m in answer.conversation]), Feedback(True, 1.0))
    assert [d.solution for d in verified_demos([observation])] == [f"{reply}\nAnswer: 6"]


def test_demo_sets_are_distinct_deterministic_and_skip_the_current_set() -> None:
    pool = [Demo(f"t{i}", f"q{i}", "s" * (10 + i)) for i in range(5)]
    sets = demo_sets(pool, 2, 3, "0:1", current=["t0", "t1"])
    assert sets == demo_sets(pool, 2, 3, "0:1", current=["t0", "t1"])
    keys = [frozenset(d.task_id for d in s) for s in sets]
    assert len(sets) == 3 and len(set(keys)) == 3 and frozenset({"t0", "t1"}) not in keys
    assert demos_in(render_demos(sets[0]), pool) == sorted(d.task_id for d in sets[0])


def test_a_question_asked_twice_is_never_shown_twice_in_one_set() -> None:
    pool = [Demo("t0", "same review", "negative"), Demo("t1", "other", "positive"), Demo("t2", "same review", "bad")]
    sets = demo_sets(pool, 2, 3, "0:1")
    assert sets and all(len({d.question for d in s}) == 2 for s in sets)
    assert all(d.task_id != "t0" for s in sets for d in s), "the newest solution of a repeated question is kept"

def test_pick_best_needs_a_strict_gain_and_prefers_the_highest_then_the_first() -> None:
    assert pick_best(0.5, {"a": 0.5, "b": 0.4}) is None
    assert pick_best(0.5, {"a": 0.75, "b": 0.75, "c": 0.6}) == "a"
    assert pick_best(0.5, {"a": 0.6}, min_gain=0.1) is None


def test_trial_ids_never_include_excluded_tasks() -> None:
    ids = trial_ids([f"t{i}" for i in range(10)], ["t1", "t2"], 5, "s")
    assert len(ids) == 5 and not {"t1", "t2"} & set(ids) and ids == trial_ids([f"t{i}" for i in range(10)], ["t1", "t2"], 5, "s")


def test_truncation_and_format_failures_become_targeted_rules() -> None:
    obs = batch()[:4]
    obs[2] = gsm_obs("t3", "question 3", "1 + 1 = 2 and then", extracted=None)
    obs[2].trajectory.steps.append({"type": "answer", "finish_reason": "length"})
    fixes = targeted_fixes(analyse(obs), existing="", limit=3)
    assert {f.kind for f in fixes} == {TRUNCATED, "unit_scale"}
    rules = with_fix("", next(f for f in fixes if f.kind == TRUNCATED))
    assert TRUNCATION_RULE in rules
    assert all(f.kind != TRUNCATED for f in targeted_fixes(analyse(obs), existing=rules, limit=3))


def test_the_best_candidate_by_trial_score_is_left_in_the_workspace(ws) -> None:
    engine = DemoSearchEngine(demo_sets=2, demos_per_set=1, fixes=1, trial_tasks=6)
    engine.context = context(ws)
    trial = runner(ws, needs="question 2")  # only the set holding t2's demo solves the trial tasks
    result = engine.step(ws, batch(), None, trial)  # type: ignore[arg-type]
    assert result.mutated, result.summary
    text = (Path(ws.path) / FRAGMENT).read_text()
    assert "question 2" in text and "question 1" not in text
    search = result.metadata["search"]
    assert search["best"] == "demos-2" and search["incumbent"] == 0.0 and set(search["scores"]) == {
        "demos-1", "demos-2"}
    assert search["stopped"] == {"rule-unit_scale": 1}, "after a perfect demos-2 the rule cannot win: one task"
    assert "rule-unit_scale out after 1 of 6 tasks" in result.summary
    assert not {"t1", "t2"} & set(search["task_ids"])  # a demo's source never scores a candidate
    assert engine.load_state()["pool"] == [d.to_dict() for d in verified_demos(batch())]


def test_nothing_is_written_when_every_candidate_loses(ws) -> None:
    engine = DemoSearchEngine(demo_sets=2, demos_per_set=1, fixes=1)
    engine.context = context(ws)
    before = snapshot(Path(ws.path))
    result = engine.step(ws, batch(), None, runner(ws, needs=""))  # type: ignore[arg-type]
    assert not result.mutated and "no candidate beat" in result.summary
    assert snapshot(Path(ws.path)) == before


def test_trial_refuses_holdout_ids_so_a_search_cannot_touch_them(ws) -> None:
    trial = runner(ws, needs="", train=range(10))
    with pytest.raises(ae.errors.TrialError):
        trial(["t15"])


def test_outside_the_loop_without_a_trial_nothing_changes(ws) -> None:
    before = snapshot(Path(ws.path))
    result = DemoSearchEngine().step(ws, batch(), None, None)  # type: ignore[arg-type]
    assert not result.mutated and snapshot(Path(ws.path)) == before


class ProgramAgent(ae.BaseAgent):
    """Solves every task once the workspace answers with programs (prompts/program.md exists)."""

    def solve(self, task: Task) -> Trajectory:
        solved = (Path(self.workspace.path) / PROGRAM_PROMPT).is_file()
        return Trajectory(task.id, "Answer: 1" if solved else "Answer: 0")


def wrong_numbers(count: int) -> list[Observation]:
    return [gsm_obs(f"t{i}", f"question {i}", "Answer: 17", expected="18", extracted="17") for i in range(count)]


def test_program_answers_are_proposed_for_wrong_numbers_only_and_only_once() -> None:
    assert program_candidate(analyse(wrong_numbers(1)), None, min_failures=2) is None
    found = program_candidate(analyse(wrong_numbers(2)), None, min_failures=2)
    assert found is not None and found.files == {PROGRAM_PROMPT: PROGRAM_INSTRUCTION}
    assert program_candidate(analyse(wrong_numbers(3)), PROGRAM_INSTRUCTION, min_failures=2) is None
    assert program_candidate(analyse(wrong_numbers(3)), None, min_failures=0) is None
    failing_tests = [Observation(o.task, o.trajectory, Feedback(False, 0.0, "AssertionError: tests failed"))
                     for o in wrong_numbers(3)]
    assert program_candidate(analyse(failing_tests), None, min_failures=2) is None


def test_the_cross_check_is_proposed_once_for_wrong_numbers_keeping_the_workspaces_check() -> None:
    form, wrong = AnswerForm(whole=True, min=0.0), analyse(wrong_numbers(2))
    fresh = cross_check_candidate(wrong, None, None, form, samples=4, min_failures=2)
    assert fresh is not None and fresh.files[PROGRAM_PROMPT] == PROGRAM_INSTRUCTION, "programs come with it"
    found = cross_check_candidate(wrong, PROGRAM_INSTRUCTION, None, form, samples=4, min_failures=2)
    assert found is not None and found.files == {CHECK_SETTINGS: CheckSettings(answer=form, cross_check=4).to_yaml()}
    kept = cross_check_candidate(wrong, PROGRAM_INSTRUCTION, CheckSettings(redraws=2, answer=AnswerForm(whole=True)),
                                 form, samples=3, min_failures=2)
    assert kept is not None and kept.files == {
        CHECK_SETTINGS: CheckSettings(redraws=2, answer=AnswerForm(whole=True), cross_check=3).to_yaml()}, \
        "the workspace's own form and redraws stay"
    assert cross_check_candidate(analyse(wrong_numbers(1)), PROGRAM_INSTRUCTION, None, form, 4, 2) is None
    assert cross_check_candidate(wrong, PROGRAM_INSTRUCTION, CheckSettings(cross_check=2), form, 4, 2) is None
    assert cross_check_candidate(wrong, PROGRAM_INSTRUCTION, None, form, samples=0, min_failures=2) is None


def test_program_answers_are_kept_when_they_win_the_trial(ws) -> None:
    engine = DemoSearchEngine(demo_sets=1, demos_per_set=1, fixes=0, trial_tasks=6)
    engine.context = context(ws)
    bench = NeedsBenchmark("")
    trial = TrialRunner({t.id: t for t in bench.get_tasks(limit=None)}, bench, ProgramAgent, Path(ws.path))
    result = engine.step(ws, wrong_numbers(2) + batch()[:2], None, trial)  # type: ignore[arg-type]
    assert result.mutated and result.metadata["search"]["best"] == "program"
    assert ws.read_program_prompt() == PROGRAM_INSTRUCTION


DOUBLE = 'def double(x: int) -> int:\n    """Twice x.\n    >>> double(5)\n    10\n    """\n'
RIGHT_CODE = "```python\ndef double(x: int) -> int:\n    return 2 * x\n```"
WRONG_CODE = "```python\ndef double(x: int) -> int:\n    return x + 2\n```"


def code_obs(task_id: str, output: str) -> Observation:
    task = Task(task_id, f"Complete:\n```python\n{DOUBLE}```",
                {"prompt": DOUBLE, "entry_point": "double", "answer_kind": "code"})
    ok = output == RIGHT_CODE
    return Observation(task, Trajectory(task_id, output), Feedback(ok, float(ok)))


class CheckingAgent(ae.BaseAgent):
    """Gets `double` right only in a workspace that draws again on a failed example (prompts/check.yaml)."""

    def solve(self, task: Task) -> Trajectory:
        checks = (Path(self.workspace.path) / CHECK_SETTINGS).is_file()
        return Trajectory(task.id, RIGHT_CODE if checks else WRONG_CODE)


class CodeBenchmark(ae.BenchmarkAdapter):
    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return [code_obs(f"t{i}", "").task for i in range(20)][:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output == RIGHT_CODE
        return Feedback(ok, float(ok))


def test_failures_caught_by_their_examples_propose_the_check_once() -> None:
    batch_ = [code_obs("a", WRONG_CODE), code_obs("b", RIGHT_CODE), code_obs("c", "no code at all, sorry"),
              gsm_obs("g", "question", "Answer: 7", extracted="7")]
    batch_.append(Observation(batch_[1].task, batch_[1].trajectory, Feedback(False, 0.0)))  # right on examples
    assert caught_failures(batch_) == ["a", "c"]
    found = check_candidate(["a"], None, min_failures=1)
    assert found is not None and found.files == {CHECK_SETTINGS: CheckSettings().to_yaml()}
    assert check_candidate(["a"], CheckSettings(), min_failures=1) is None, "the workspace checks already"
    assert check_candidate(["a"], None, min_failures=2) is None and check_candidate(["a"], None, 0) is None


def test_the_form_of_right_answers_catches_wrong_answers_that_break_it() -> None:
    right = [gsm_obs(f"r{i}", "q", f"Answer: {n}", expected=n, extracted=n) for i, n in enumerate(("7", "12", "0"))]
    wrong = [gsm_obs("neg", "q", "Answer: -3", extracted="-3"), gsm_obs("half", "q", "Answer: 2.5", extracted="2.5"),
             gsm_obs("none", "q", "I am not sure."), gsm_obs("fine", "q", "Answer: 9", extracted="9")]
    form = learned_form(right + wrong)
    assert form == AnswerForm(whole=True, min=0.0)
    assert caught_failures(right + wrong, form) == ["neg", "half", "none"], "a plausible wrong answer is not caught"
    assert caught_failures(right + wrong) == [], "no form: plain answers are not checked"
    assert learned_form(right[:2] + wrong) is None, "two right answers are too few to trust their form"
    worded = Observation(Task("w", "q", {"answer_kind": "number"}), Trajectory("w", "Paris"), Feedback(True, 1.0))
    assert learned_form([*right, worded]) is None, "a right answer without a number: answers are not numbers"
    negative = gsm_obs("r-", "q", "Answer: -4", expected="-4", extracted="-4")
    assert learned_form([*right, negative]) == AnswerForm(whole=True, min=None)


def test_the_answer_check_is_proposed_with_the_form_and_added_to_a_code_check() -> None:
    form = AnswerForm(whole=True, min=0.0)
    found = check_candidate(["neg"], None, min_failures=1, form=form)
    assert found is not None and found.files == {CHECK_SETTINGS: CheckSettings(answer=form).to_yaml()}
    upgraded = check_candidate(["neg"], CheckSettings(redraws=2), min_failures=1, form=form)
    assert upgraded is not None and upgraded.files == {CHECK_SETTINGS: CheckSettings(2, answer=form).to_yaml()}
    assert check_candidate(["neg"], CheckSettings(answer=form), min_failures=1, form=form) is None


def test_the_check_is_kept_when_it_wins_on_trial_tasks_that_include_the_caught_ones(ws) -> None:
    engine = DemoSearchEngine(demo_sets=0, fixes=0, trial_tasks=2)
    engine.context = context(ws)
    bench = CodeBenchmark()
    trial = TrialRunner({t.id: t for t in bench.get_tasks(limit=None)}, bench, CheckingAgent, Path(ws.path))
    result = engine.step(ws, [code_obs("t17", WRONG_CODE), code_obs("t3", RIGHT_CODE)], None, trial)  # type: ignore[arg-type]
    assert result.mutated and (Path(ws.path) / CHECK_SETTINGS).read_text() == CheckSettings().to_yaml()
    search = result.metadata["search"]
    assert search["best"] == "check" and search["incumbent"] == 0.0 and search["scores"] == {"check": 1.0}
    assert "t17" in search["task_ids"] and len(search["task_ids"]) == 3


def test_a_bundle_with_the_check_is_also_trialled_on_the_caught_tasks(ws) -> None:
    engine = DemoSearchEngine(demo_sets=1, demos_per_set=1, fixes=0, trial_tasks=2, candidates="check+demos")
    engine.context = context(ws)
    bench = CodeBenchmark()
    trial = TrialRunner({t.id: t for t in bench.get_tasks(limit=None)}, bench, CheckingAgent, Path(ws.path))
    result = engine.step(ws, [code_obs("t17", WRONG_CODE), code_obs("t3", RIGHT_CODE)], None, trial)  # type: ignore[arg-type]
    search = result.metadata["search"]
    assert list(search["scores"]) == ["check+demos"] and "t17" in search["task_ids"]


def test_a_caught_task_that_is_a_demos_source_stays_out_of_the_trial(ws) -> None:
    engine = DemoSearchEngine(demo_sets=1, demos_per_set=1, fixes=0, trial_tasks=2)
    engine.context = context(ws)
    engine.save_state({"pool": [Demo("t17", code_obs("t17", "").task.input, RIGHT_CODE).to_dict()]})  # an earlier solve
    bench = CodeBenchmark()
    trial = TrialRunner({t.id: t for t in bench.get_tasks(limit=None)}, bench, CheckingAgent, Path(ws.path))
    result = engine.step(ws, [code_obs("t17", WRONG_CODE), code_obs("t3", RIGHT_CODE)], None, trial)  # type: ignore[arg-type]
    search = result.metadata["search"]
    assert set(search["cost"]) == {"current", "check", "demos-1"}, "both trialled (demos-1 may be curtailed)"
    assert "t17" not in search["task_ids"], "a demos candidate showing t17's solution would be scored on t17"


def test_candidates_narrows_the_search_to_the_named_kinds(ws) -> None:
    engine = DemoSearchEngine(demo_sets=2, demos_per_set=1, fixes=1, candidates="cross-check,rule")
    found = engine.candidates(ws, wrong_numbers(2) + batch(), verified_demos(batch()))
    assert [c.name for c in found] == ["cross-check", "rule-unit_scale"]
    assert [c.name for c in DemoSearchEngine(candidates=["program"]).candidates(ws, wrong_numbers(2), [])] == [
        "program"]


def test_unknown_candidate_kinds_and_a_negative_trial_are_config_errors() -> None:
    with pytest.raises(ae.errors.ConfigError, match="unknown kinds \\['programs'\\]"):
        DemoSearchEngine(candidates="programs")
    with pytest.raises(ae.errors.ConfigError, match="trial_tasks"):
        DemoSearchEngine(trial_tasks=-1)


def test_without_a_trial_the_first_candidate_is_written_for_the_gate_to_decide(ws) -> None:
    engine = DemoSearchEngine(trial_tasks=0, candidates="cross-check,program")
    engine.context = context(ws)
    bench = NeedsBenchmark("")
    trial = TrialRunner({t.id: t for t in bench.get_tasks(limit=None)}, bench, ProgramAgent, Path(ws.path))
    result = engine.step(ws, wrong_numbers(3), None, trial)  # type: ignore[arg-type]
    assert result.mutated and "no trial" in result.summary and trial.solved == 0
    assert ws.read_check_settings() is not None and ws.read_check_settings().cross_check == 2
    assert ws.read_program_prompt() == PROGRAM_INSTRUCTION
