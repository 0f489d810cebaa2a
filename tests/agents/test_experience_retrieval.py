"""Experience memory at solve time: the nearest worked examples are shown, only train tasks can become examples,
and the index is built once per memory version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_evolve.agents import ReferenceAgent
from agent_evolve.agents import experience as retrieval
from agent_evolve.algorithms.common.demos import Demo
from agent_evolve.algorithms.experience import experience_candidates
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.experience import (
    EXPERIENCE_FILE,
    EXPERIENCE_SETTINGS,
    ExperienceSettings,
    example,
    experience_text,
    parse_experience_settings,
)
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EngineContext
from agent_evolve.engine.observer import EvolutionHistory
from agent_evolve.errors import WorkspaceError
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

EXAMPLES = [
    example("t1", "A train travels 60 km per hour for 3 hours. How far does the train go?",
            "60 * 3 = 180\nAnswer: 180"),
    example("t2", "Classify the sentiment of the review: 'the soup was cold and bland'.", "negative"),
    example("t3", "Write a Python function that reverses a list of strings.", "def rev(xs):\n    return xs[::-1]"),
    example("t4", "A bus travels 40 km per hour for 2 hours. How far does the bus go?", "40 * 2 = 80\nAnswer: 80"),
]
TRAIN_TASK = Task("t9", "A train travels 50 km per hour for 4 hours. How far does the train go?")


def memory(root: Path, examples=EXAMPLES, settings: str | None = None) -> Path:
    (root / EXPERIENCE_FILE).write_text(experience_text(examples, {e.task_id for e in examples}))
    if settings is not None:
        (root / EXPERIENCE_SETTINGS).write_text(settings)
    return root


def test_the_nearest_examples_are_chosen_by_similarity_best_first() -> None:
    found = retrieval.Experience(EXAMPLES, ExperienceSettings(k=2)).nearest(TRAIN_TASK.input)
    assert [e.task_id for e, _ in found] == ["t1", "t4"] and found[0][1] > found[1][1] > 0
    review = retrieval.Experience(EXAMPLES, ExperienceSettings(k=1)).nearest("Classify this review: 'great soup'")
    assert [e.task_id for e, _ in review] == ["t2"], "text answers are retrieved like numbers"
    assert retrieval.Experience(EXAMPLES).nearest("zzz qqq") == [], "nothing in common: nothing shown"


def test_questions_in_chinese_get_their_nearest_examples() -> None:
    examples = [example("c1", "一列火车每小时行驶60公里，行驶3小时，火车走了多远？", "60 * 3 = 180\nAnswer: 180"),
                example("c2", "这篇评论的情感是什么：汤又冷又淡。", "negative")]
    found = retrieval.Experience(examples, ExperienceSettings(k=1)).nearest("一列火车每小时行驶50公里，行驶4小时，走了多远？")
    assert [e.task_id for e, _ in found] == ["c1"], "a script without spaces is compared by its character pairs"


def test_the_agent_shows_the_nearest_examples_in_their_form_and_records_them(make_ws) -> None:
    root = memory(make_ws({"skill_mode": "none"}), settings="k: 1\nform: short\n")
    llm = ScriptedLLM(["Answer: 200"])
    trajectory = ReferenceAgent(root, llm=llm).solve(TRAIN_TASK)
    system = llm.calls[0].messages[0].content
    assert "Problem: A train travels 60 km" in system and "60 * 3 = 180" in system
    assert "A bus travels" not in system and "soup" not in system, "only the k nearest are shown"
    assert trajectory.steps[0]["experience"] == ["t1"]
    assert "# Memory" not in system, "the experience file is not read as memory lines"


def test_retrieval_compares_the_tasks_question_not_the_instruction_around_it(make_ws) -> None:
    root = memory(make_ws({"skill_mode": "none"}), settings="k: 1\n")
    question = "A bus travels 30 km per hour for 5 hours. How far does the bus go?"
    instruction = ("Classify the sentiment of the review: write a Python function that reverses a list of strings, "
                   "then classify the sentiment of the review and reverse the strings of the review.")
    wrapped = Task("t8", f"{instruction}\n\n{question}", {"question": question})  # as GSM8K wraps its questions
    llm = ScriptedLLM(["Answer: 150"])
    assert ReferenceAgent(root, llm=llm).solve(wrapped).steps[0]["experience"] == ["t4"]


def test_a_task_is_never_shown_its_own_example() -> None:
    memory_of = retrieval.Experience(EXAMPLES, ExperienceSettings(k=2))
    assert memory_of.demonstrations(EXAMPLES[0].input, "t1")[1] == ["t4"]
    assert memory_of.demonstrations(EXAMPLES[0].input, "other")[1] == ["t1", "t4"]


def test_the_shown_examples_stay_within_max_chars() -> None:
    long = [example(f"t{i}", f"A train question number {i}", "x" * 400) for i in range(4)]
    text, shown = retrieval.render_examples(long, ExperienceSettings(k=4, max_chars=1000))
    assert len(text) <= 1000 and 1 <= len(shown) < 4


def test_the_writer_refuses_any_task_outside_train() -> None:
    holdout = example("h7", "A holdout riddle", "secret")
    with pytest.raises(WorkspaceError, match="h7"):
        experience_text([*EXAMPLES, holdout], {e.task_id for e in EXAMPLES})


class _Trial:
    def __init__(self, train: set[str]) -> None:
        self.train_tasks = dict.fromkeys(train)


def test_the_engine_never_puts_a_holdout_or_test_task_in_memory(tmp_path: Path, make_ws) -> None:
    root = make_ws({"skill_mode": "none"})
    pool = [Demo("t1", EXAMPLES[0].input, EXAMPLES[0].solution), Demo("h1", "A holdout train riddle", "42"),
            Demo("x1", "A test-split train riddle", "7")]
    context = EngineContext(EvolveConfig(), AgentWorkspace(root), EvolutionHistory(root),
                            tmp_path, tmp_path, tmp_path, trial=_Trial({"t1", "t2"}))  # type: ignore[arg-type]
    found = experience_candidates(AgentWorkspace(root), [], pool, context, {"prompts", "memory"})
    ids = [json.loads(line)["task_id"] for line in found[0].files[EXPERIENCE_FILE].splitlines()]
    assert ids == ["t1"]
    assert experience_candidates(AgentWorkspace(root), [], pool, None, {"prompts", "memory"}) == [], \
        "without the run's train split nothing is proposed"


def test_the_index_is_built_once_per_memory_version(make_ws, monkeypatch) -> None:
    built: list[int] = []
    real = retrieval.TfIdfIndex

    def counting(documents, *args, **kwargs):
        built.append(len(documents))
        return real(documents, *args, **kwargs)

    monkeypatch.setattr(retrieval, "TfIdfIndex", counting)
    retrieval.experience_index.cache_clear()
    root = memory(make_ws({"skill_mode": "none"}))
    llm = ScriptedLLM(["Answer: 1"] * 10)
    for _ in range(2):  # two agents on the same version (as a trial builds them)
        agent = ReferenceAgent(root, llm=llm)
        for _ in range(3):
            agent.solve(TRAIN_TASK)
    assert built == [4]
    memory(root, EXAMPLES[:3])
    agent.reload_from_fs()
    agent.solve(TRAIN_TASK)
    assert built == [4, 3], "a new memory version gets its own index"


@pytest.mark.parametrize(("text", "problem"), [
    ("k: 0\n", "'k' must be an integer from 1 to 8"),
    ("form: brief\n", "'form' must be one of full, short"),
    ("depth: 2\n", "'depth' is unknown"),
    ("- k\n", "expected a mapping"),
])
def test_bad_settings_name_the_file_and_the_problem(make_ws, text: str, problem: str) -> None:
    root = memory(make_ws({"skill_mode": "none"}), settings=text)
    with pytest.raises(WorkspaceError) as caught:
        ReferenceAgent(root, llm=ScriptedLLM([]))
    assert EXPERIENCE_SETTINGS in str(caught.value) and problem in str(caught.value)
    assert [p for p in validate_workspace(root, require_manifest=False) if EXPERIENCE_SETTINGS in p] == [
        str(caught.value)], "the workspace check finds it before any agent loads it"
    assert parse_experience_settings(None) == ExperienceSettings()


def test_a_malformed_example_names_the_file_and_line(make_ws) -> None:
    root = make_ws({"skill_mode": "none"})
    (root / EXPERIENCE_FILE).write_text(json.dumps(EXAMPLES[0].to_dict()) + "\n" + json.dumps({"task_id": "t2"}) + "\n")
    with pytest.raises(WorkspaceError) as caught:
        ReferenceAgent(root, llm=ScriptedLLM([]))
    assert f"{EXPERIENCE_FILE}:2" in str(caught.value) and "input, solution" in str(caught.value)
    assert str(caught.value) in validate_workspace(root, require_manifest=False)
    (root / EXPERIENCE_FILE).write_text("{not json\n{}\n")
    assert len([p for p in validate_workspace(root, require_manifest=False) if EXPERIENCE_FILE in p]) == 1, \
        "a line that is not JSON is reported once"


def test_the_line_named_is_the_files_own_line_after_blank_lines(make_ws) -> None:
    root = make_ws({"skill_mode": "none"})
    (root / EXPERIENCE_FILE).write_text(json.dumps(EXAMPLES[0].to_dict()) + "\n\n" + json.dumps({"task_id": "t2"}) + "\n")
    with pytest.raises(WorkspaceError, match=f"{EXPERIENCE_FILE}:3: "):
        ReferenceAgent(root, llm=ScriptedLLM([]))


PROGRAM = "Count them.\n```python\nprint(200)\n```"


def test_examples_go_to_the_text_prompt_only_never_to_the_program_prompt(make_ws) -> None:
    root = memory(make_ws({"skill_mode": "none"}, prompt="Reason in prose.\n"))
    (root / "prompts" / "program.md").write_text("Write a Python program that prints the answer.\n")
    llm = ScriptedLLM([PROGRAM])
    trajectory = ReferenceAgent(root, llm=llm).solve(TRAIN_TASK)
    assert "Problem:" not in llm.calls[0].messages[0].content and trajectory.steps[0]["experience"] == []
    (root / "prompts" / "check.yaml").write_text("cross_check: 2\n")
    llm = ScriptedLLM([PROGRAM, "50 * 4 = 200\nAnswer: 200"])
    trajectory = ReferenceAgent(root, llm=llm).solve(TRAIN_TASK)
    program_call, text_call = (call.messages[0].content for call in llm.calls)
    assert "Problem:" not in program_call and "Problem: A train travels 60 km" in text_call
    assert trajectory.steps[0]["experience"] == ["t1", "t4"]
