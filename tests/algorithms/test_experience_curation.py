"""Curation of experience memory, pure: contribution from graded solves, near-duplicates, a cap, k and form
choices, and examples of every answer kind."""

from __future__ import annotations

import json

import pytest

from agent_evolve.algorithms.common.demos import Demo, verified_demos
from agent_evolve.algorithms.experience import (
    compact_trajectory,
    contributions,
    curate,
    k_options,
    memory_candidate,
    new_examples,
    settings_candidate,
    without_near_duplicates,
)
from agent_evolve.contract.experience import (
    EXPERIENCE_FILE,
    EXPERIENCE_SETTINGS,
    ExperienceSettings,
    example,
    experience_text,
    parse_example,
)
from agent_evolve.errors import WorkspaceError
from agent_evolve.types import Feedback, Observation, Task, Trajectory


def solve(task_id: str, shown: list[str], ok: bool, output: str = "done", steps: list[dict] | None = None,
          hidden: bool = False) -> Observation:
    """A graded solve on which the agent showed the examples `shown`."""
    feedback = Feedback.hidden_marker() if hidden else Feedback(ok, float(ok))
    trajectory = Trajectory(task_id, output, [{"type": "skills", "experience": shown}, *(steps or [])])
    return Observation(Task(task_id, f"question {task_id}"), trajectory, feedback)


def ex(task_id: str, text: str = "", solution: str = "s"):
    return example(task_id, text or f"a distinct problem about {task_id} {task_id}", solution)


def test_contribution_is_the_score_with_an_example_minus_without_it() -> None:
    batch = [solve("q1", ["good"], True), solve("q2", ["good", "bad"], True), solve("q3", ["bad"], False),
             solve("q4", [], False), solve("q5", ["bad"], False)]
    found = contributions(batch)
    assert found["good"] == 1.0 - 0.0 and found["bad"] == 1 / 3 - 1 / 2
    assert set(found) == {"good", "bad"}
    assert contributions([solve("q1", ["once"], False), solve("q2", [], True)]) == {}, "one solve is too few"


def test_a_task_never_counts_for_its_own_example_and_hidden_grades_never_count() -> None:
    batch = [solve("self", ["self"], True), solve("q2", [], True), solve("q3", ["self"], True, hidden=True),
             solve("q4", ["self"], False), solve("q5", ["self"], False)]
    assert contributions(batch) == {"self": 0.0 - 1.0}
    everywhere = [solve("q1", ["e"], True), solve("q2", ["e"], False)]
    assert contributions(everywhere) == {}, "shown on every solve: nothing to compare with"


def test_curation_drops_examples_that_hurt_and_keeps_the_file_order() -> None:
    current = [ex("a"), ex("b"), ex("c")]
    kept = curate(current, [ex("d")], {"a": 0.5, "b": -0.25}, cap=10)
    assert [e.task_id for e in kept] == ["a", "c", "d"]


def test_a_tasks_newest_solution_replaces_its_old_one() -> None:
    kept = curate([ex("a", solution="old")], [ex("a", solution="new")], {}, cap=5)
    assert [(e.task_id, e.solution) for e in kept] == [("a", "new")]


def test_near_duplicates_keep_the_example_that_contributed_more() -> None:
    twin = "A train travels 60 km per hour for 3 hours. How far does it go?"
    current = [ex("a", twin), ex("b", twin + " "), ex("c", "Classify the sentiment of this review")]
    assert [e.task_id for e in curate(current, [], {"b": 0.5}, cap=10)] == ["b", "c"]
    assert [e.task_id for e in without_near_duplicates(current)] == ["a", "c"], "first in priority order wins"
    assert len(without_near_duplicates(current, threshold=1.01)) == 3


def test_the_cap_keeps_the_highest_contributions_then_the_newest() -> None:
    current = [ex(name) for name in "abcdef"]
    kept = curate(current, [], {"b": 0.5, "d": 0.25}, cap=3)
    assert [e.task_id for e in kept] == ["b", "d", "f"]
    assert curate(current, [], {}, cap=0) == []


def test_k_options_are_the_neighbours_within_the_memory_and_the_limit() -> None:
    assert k_options(2, examples=10) == [1, 3]
    assert k_options(1, examples=10) == [2]
    assert k_options(2, examples=2) == [1]
    assert k_options(4, examples=10, max_k=4) == [3]


def test_settings_candidates_rotate_through_k_and_the_form() -> None:
    settings = ExperienceSettings(k=2, form="full")
    names = [settings_candidate(settings, 10, turn).name for turn in range(4)]
    assert names == ["experience-k1", "experience-k3", "experience-short", "experience-k1"]
    candidate = settings_candidate(settings, 10, 2)
    assert candidate.files == {EXPERIENCE_SETTINGS: ExperienceSettings(k=2, form="short").to_yaml()}


def test_an_unchanged_memory_is_no_candidate_and_a_new_one_names_what_changed() -> None:
    current = [ex("a"), ex("b")]
    assert memory_candidate(current, current, ExperienceSettings(), {"a", "b"}, write_settings=False) is None
    found = memory_candidate(current, [ex("b"), ex("c")], ExperienceSettings(), {"a", "b", "c"}, write_settings=True)
    assert found is not None and set(found.files) == {EXPERIENCE_FILE, EXPERIENCE_SETTINGS}
    assert "added c; dropped a" in found.summary


def test_examples_the_workspace_already_held_may_stay_but_only_train_tasks_are_added() -> None:
    held = [ex("other-split")]  # a seed's own example, or one from a run with another split
    found = memory_candidate(held, [*held, ex("t1")], ExperienceSettings(), {"t1"}, write_settings=False)
    assert found is not None
    assert [json.loads(line)["task_id"] for line in found.files[EXPERIENCE_FILE].splitlines()] == ["other-split", "t1"]
    with pytest.raises(WorkspaceError, match="only train tasks"):
        memory_candidate(held, [*held, ex("holdout-1")], ExperienceSettings(), {"t1"}, write_settings=False)


def test_examples_come_from_every_answer_kind() -> None:
    pool = [Demo("n", "How many eggs?", "16 - 3 = 13\nAnswer: 13"), Demo("t", "Sentiment of 'cold soup'?", "negative"),
            Demo("c", "Reverse a list", "def rev(xs):\n    return xs[::-1]")]
    actions = [{"type": "tool_call", "name": "bash", "arguments": {"command": "ls"}, "output": "a.py"},
               {"type": "tool_call", "name": "edit", "arguments": {"path": "a.py", "old": "x", "new": "y"}}]
    acted = solve("act", [], True, output="fixed a.py", steps=actions)
    found = {e.task_id: e for e in new_examples([acted], [*pool, Demo("act", "question act", "fixed a.py")])}
    assert [found[i].solution for i in "ntc"] == [d.solution for d in pool]
    assert found["act"].solution == compact_trajectory(acted)
    assert found["act"].solution.splitlines() == [
        '1. bash {"command": "ls"}', '2. edit {"new": "y", "old": "x", "path": "a.py"}', "Result: fixed a.py"]
    assert compact_trajectory(solve("plain", [], True)) is None


def test_the_short_form_keeps_the_opening_and_the_answer_line() -> None:
    long = example("x", "q", "step\n" * 100 + "Answer: 42")
    assert len(long.short) <= 240 and long.short.startswith("step") and long.short.endswith("Answer: 42")
    assert example("y", "q", "negative").short == "negative"


def test_a_task_without_input_text_never_becomes_an_example_the_reader_would_refuse() -> None:
    blank = Observation(Task("blank", "  \n"), Trajectory("blank", "Answer: 3"), Feedback(True, 1.0))
    batch = [blank, solve("q1", [], True, output="Answer: 4")]
    found = new_examples(batch, verified_demos(batch))
    assert [e.task_id for e in found] == ["q1"], "an example with no problem text can never be retrieved"
    text = experience_text(found, {"blank", "q1"})
    assert [parse_example(json.loads(line)) for line in text.splitlines()] == found


def test_the_short_form_of_a_long_last_line_keeps_its_end_where_the_answer_is() -> None:
    one_line = " ".join(f"step {i} adds {i} apples," for i in range(60)) + " so Answer: 42"
    short = example("z", "q", one_line).short
    assert len(short) <= 240 and short.startswith("step 0") and short.endswith("Answer: 42")
    assert short.count("step 0 adds") == 1, "the opening is not shown twice"
