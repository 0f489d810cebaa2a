"""Failure-derived notes: one note per cluster of train failures naming the mistake and showing its correction
on one failed task, for any answer kind, kept only when the trial measures a gain."""

from __future__ import annotations

from pathlib import Path

from engine_fakes import gsm_obs, snapshot

import agent_evolve as ae
from agent_evolve.algorithms.common.failure_notes import NOTES_FRAGMENT, correction, failure_notes, with_note
from agent_evolve.algorithms.demos import DemoSearchEngine
from agent_evolve.engine.base import EngineContext
from agent_evolve.engine.trial import TrialRunner
from agent_evolve.types import Feedback, Observation, Task, Trajectory

NOTES = Path("prompts/fragments") / NOTES_FRAGMENT


def text_obs(task_id: str, question: str, output: str, expected: str) -> Observation:
    ok = output == expected
    detail = "correct" if ok else f"expected {expected}, got {output}"
    return Observation(Task(task_id, question), Trajectory(task_id, output), Feedback(ok, float(ok), detail))


def scale_failures() -> list[Observation]:
    return [gsm_obs("t1", "A film lasts 2 hours and 15 minutes. How many minutes is that long film?", "Answer: 2",
                    expected="200", extracted="2"),
            gsm_obs("t2", "How many minutes?", "work\nAnswer: 7", expected="700", extracted="7"),
            gsm_obs("t3", "Solved one", "Answer: 18", extracted="18")]


def test_a_note_names_the_mistake_and_shows_the_correction_on_the_shortest_failed_task() -> None:
    notes = failure_notes(scale_failures(), existing="")
    assert len(notes) == 1
    note = notes[0]
    assert note.kind == "unit_scale" and note.count == 2 and note.task_id == "t2"
    assert note.title.startswith("## Mistake: the answer is off by a unit or percent factor")
    assert 'Seen on: How many minutes?\nThe reply ended "Answer: 7"; the right answer is 700.' in note.text


def test_text_and_code_failures_get_notes_too() -> None:
    capitals = [text_obs("c1", "Capital of France? One word.", "London", "Paris"),
                text_obs("c2", "Capital of Italy? One word.", "Paris", "Rome")]
    note = failure_notes(capitals, existing="")[0]
    assert "the right answer is Rome" in note.text and note.task_id == "c2", "the shorter problem is shown"
    code = Observation(Task("h1", "def add(a, b):"), Trajectory("h1", "return a - b"),
                       Feedback(False, 0.0, "AssertionError: add(1, 2) == 3\nmore"))
    assert correction(code) == "the grader said: AssertionError: add(1, 2) == 3"
    assert "the grader said" in failure_notes([code], existing="")[0].text


def test_a_mistake_already_noted_is_not_noted_again_and_the_heading_is_written_once() -> None:
    note = failure_notes(scale_failures(), existing="")[0]
    written = with_note("", note)
    assert written.startswith("# Notes from mistakes\n\n## Mistake") and written.count("# Notes") == 1
    assert failure_notes(scale_failures(), existing=written) == []
    assert failure_notes([gsm_obs("t3", "Solved one", "Answer: 18", extracted="18")], existing="") == []


class NotesAgent(ae.BaseAgent):
    """Solves every task once the workspace has a notes fragment (or never, when `helps` is off)."""

    helps = True

    def solve(self, task: Task) -> Trajectory:
        solved = self.helps and (Path(self.workspace.path) / NOTES).is_file()
        return Trajectory(task.id, "Answer: 18" if solved else "Answer: 0")


class EighteenBenchmark(ae.BenchmarkAdapter):
    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return [Task(f"t{i}", f"task {i}") for i in range(20)][:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output == "Answer: 18"
        return Feedback(ok, float(ok))


def context(ws: ae.AgentWorkspace) -> EngineContext:
    """A context like the loop's: state, scratch and output under the workspace's run records."""
    folders = [Path(ws.path) / "evolution" / "engine" / name for name in ("state", "scratch", "output")]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    return EngineContext(ae.EvolveConfig(), ws, ae.EvolutionHistory(ws.path), *folders, cycle=1)


def run_notes_step(ws, helps: bool):
    NotesAgent.helps = helps
    bench = EighteenBenchmark()
    trial = TrialRunner({t.id: t for t in bench.get_tasks(limit=None)}, bench, NotesAgent, Path(ws.path))
    engine = DemoSearchEngine(candidates="notes", trial_tasks=6)
    engine.context = context(ws)
    return engine.step(ws, scale_failures(), None, trial)  # type: ignore[arg-type]


def test_a_note_is_kept_only_when_the_trial_measures_a_gain(ws) -> None:
    before = snapshot(Path(ws.path))
    result = run_notes_step(ws, helps=False)
    assert not result.mutated and snapshot(Path(ws.path)) == before
    result = run_notes_step(ws, helps=True)
    assert result.mutated and result.metadata["search"]["best"] == "notes-unit_scale"
    assert "the right answer is 700" in (Path(ws.path) / NOTES).read_text()


def test_notes_and_experience_are_proposed_only_when_named() -> None:
    assert "notes" not in DemoSearchEngine().kinds and "experience" not in DemoSearchEngine().kinds
    assert DemoSearchEngine(candidates="experience,notes").kinds == ("experience", "notes")
