"""Techniques declare the answer kinds they apply to: the demos engine proposes only those that apply to a batch's
tasks, and a program answer comes back in its task's kind."""

from __future__ import annotations

import json
from pathlib import Path

from engine_fakes import gsm_obs

from agent_evolve.agents import ReferenceAgent
from agent_evolve.agents.answering.program import KIND_INSTRUCTIONS, PROGRAM_KINDS, PROGRAM_STOP
from agent_evolve.algorithms.common.techniques import (
    ANY_KIND_PROGRAM_INSTRUCTION,
    NUMERIC_RULES,
    PLAIN_KINDS,
    PROGRAM_INSTRUCTION,
    TECHNIQUES,
    applicable,
)
from agent_evolve.algorithms.demos import KINDS, DemoSearchEngine, kind_of
from agent_evolve.benchmarks.answer_kinds import ANSWER_KINDS
from agent_evolve.benchmarks.adapters.jsonl import JsonlBenchmark
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Observation, Task, Trajectory

# an exact-match task file whose answers are short text, some holding digits, the agent's replies just as short
TEXT_ROWS = [
    ("d1", "What date follows 1999-03-04?", "1999-03-05", "1999-03-06"),
    ("d2", "What date precedes 2001-01-01?", "2000-12-31", "2000-12-30"),
    ("d3", "Which room holds 12 chairs: A4 or B7?", "B7", "A4"),
    ("c1", "Capital of France?", "Paris", "Lyon"),
    ("c2", "Opposite of up?", "down", "under"),
    ("r1", "Flight code of the 9:40 departure?", "LX 318", "LX 381"),
    ("r2", "Year of the first moon landing, as written on the plaque?", "1969 A.D.", "1969"),
    ("r3", "Apartment number of Ann?", "12B", "12"),
    ("s1", "Capital of Spain?", "Madrid", "Madrid"),
    ("s2", "Postal code of the office?", "8001", "8001"),
    ("s3", "Gate of the flight?", "14", "14"),
    ("s4", "Floor of the lab?", "3", "3"),
]


def text_batch(tmp_path: Path) -> list[Observation]:
    """Observations graded by the exact grader of a JSONL task file with text answers."""
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps({"id": i, "input": q, "answer": a}) + "\n" for i, q, a, _ in TEXT_ROWS))
    bench = JsonlBenchmark(path, test_fraction=0.0)
    tasks = {t.id: t for t in bench.get_tasks("train", None)}
    observations = []
    for task_id, _, _, reply in TEXT_ROWS:
        trajectory = Trajectory(task_id, reply)
        observations.append(Observation(tasks[task_id], trajectory, bench.evaluate(tasks[task_id], trajectory)))
    return observations


def proposed(ws: AgentWorkspace, observations: list[Observation]) -> list:
    engine = DemoSearchEngine(program_min_failures=1, check_min_failures=1, fixes=3, demo_sets=1)
    return engine.candidates(ws, observations, [], [], None)


def test_every_technique_declares_its_kinds_and_costs() -> None:
    assert set(TECHNIQUES) == set(KINDS), "one entry per candidate kind the engine can propose"
    for technique in TECHNIQUES.values():
        assert technique.kinds and set(technique.kinds) <= set(ANSWER_KINDS), technique.name
        assert technique.solves >= 1.0 and technique.tokens >= 1.0 and technique.what, technique.name
    assert TECHNIQUES["program"].kinds == PROGRAM_KINDS and TECHNIQUES["cross-check"].kinds == ("number",)
    assert "actions" not in PLAIN_KINDS and "text" not in TECHNIQUES["check"].kinds


def test_a_text_answer_task_file_never_gets_a_numeric_only_technique(ws: AgentWorkspace, tmp_path: Path) -> None:
    observations = text_batch(tmp_path)
    assert {o.task.metadata["answer_kind"] for o in observations} == {"text"}
    assert sum(not o.feedback.success for o in observations) == 8
    candidates = proposed(ws, observations)
    names = [c.name for c in candidates]
    assert names, "wrong text answers still get what applies to text"
    for candidate in candidates:
        assert "text" in TECHNIQUES[kind_of(candidate)].kinds, candidate.name
        assert not any(f"rule-{rule}" == candidate.name for rule in NUMERIC_RULES), candidate.name
        assert all("final number" not in text for text in candidate.files.values()), candidate.name
    assert "cross-check" not in names and "check" not in names
    program = next(c for c in candidates if c.name == "program")
    assert program.files["prompts/program.md"] == ANY_KIND_PROGRAM_INSTRUCTION


def test_a_number_batch_still_gets_program_answers_and_the_cross_check(ws: AgentWorkspace) -> None:
    wrong = [gsm_obs(f"t{i}", f"question {i}", "Answer: 17", expected="18", extracted="17") for i in range(3)]
    names = {c.name: c for c in proposed(ws, wrong)}
    assert {"program", "cross-check"} <= set(names)
    assert names["program"].files["prompts/program.md"] == PROGRAM_INSTRUCTION


def test_in_a_mixed_batch_each_technique_counts_only_the_failures_of_its_kinds(ws: AgentWorkspace,
                                                                               tmp_path: Path) -> None:
    numbers = [gsm_obs("n1", "question 1", "Answer: 17", expected="18", extracted="17")]
    batch = text_batch(tmp_path) + numbers
    assert [o.task.id for o in applicable("cross-check", batch)] == ["n1"]
    engine = DemoSearchEngine(program_min_failures=2, fixes=0, demo_sets=0)
    names = [c.name for c in engine.candidates(ws, batch, [], [], None)]
    assert "program" in names and "cross-check" not in names, "one wrong number is under the threshold of 2"


def test_a_program_answer_to_a_text_task_is_the_printed_text(ws: AgentWorkspace) -> None:
    (Path(ws.path) / "prompts" / "program.md").write_text(ANY_KIND_PROGRAM_INSTRUCTION)
    reply = "Sort them.\n```python\nwords = ['pear', 'apple', 'fig']\nprint(sorted(words))\n"
    llm = ScriptedLLM([reply])
    task = Task("s", "Sort alphabetically: pear apple fig", {"answer_kind": "text"})
    trajectory = ReferenceAgent(ws.path, llm=llm).solve(task)
    assert trajectory.output == "apple, fig, pear"
    system = llm.calls[0].messages[0].content
    assert system.startswith(ANY_KIND_PROGRAM_INSTRUCTION.strip()) and KIND_INSTRUCTIONS["text"] in system
    assert llm.calls[0].stop == list(PROGRAM_STOP)


def test_a_program_answer_to_a_number_task_keeps_the_answer_line(ws: AgentWorkspace) -> None:
    (Path(ws.path) / "prompts" / "program.md").write_text(PROGRAM_INSTRUCTION)
    reply = "```python\nprint(6 * 7)\n"
    trajectory = ReferenceAgent(ws.path, llm=ScriptedLLM([reply])).solve(Task("n", "6 x 7?", {"answer_kind": "number"}))
    assert trajectory.output.endswith("\nAnswer: 42") and trajectory.output.startswith(reply.rstrip())


def test_a_task_of_a_kind_programs_do_not_print_is_answered_without_one(ws: AgentWorkspace) -> None:
    (Path(ws.path) / "prompts" / "program.md").write_text(PROGRAM_INSTRUCTION)
    llm = ScriptedLLM(["A short essay.\n```python\nprint(1)\n```"])
    trajectory = ReferenceAgent(ws.path, llm=llm).solve(Task("f", "Write an essay.", {"answer_kind": "free"}))
    assert trajectory.output == "A short essay.\n```python\nprint(1)\n```"
    assert not llm.calls[0].messages[0].content.startswith(PROGRAM_INSTRUCTION.strip())
    assert not any(step.get("type") == "program" for step in trajectory.steps)
