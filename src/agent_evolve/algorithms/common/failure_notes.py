"""Failure-derived prompt fragments, without a model: targeted rules and notes, candidates measured like any other.

Rules (`prompts/fragments/answer-rules.md`): one per recurring failure kind of `evidence.analyse` (answer format,
a unit or percent scale, an intermediate value reported, rounding) or truncation at the token limit. Notes
(`prompts/fragments/notes.md`): per failure cluster, the mistake, the rule against it, and its correction shown
on one failed task (its problem, how the reply ended, what the grader expected or said).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from agent_evolve.agents.prompting import one_line
from agent_evolve.algorithms.common.candidate_search import CandidateEdit
from agent_evolve.algorithms.common.evidence import KIND_TEXT, Cluster, Evidence, analyse
from agent_evolve.algorithms.common.prompts import advice
from agent_evolve.algorithms.common.techniques import NUMERIC_RULES
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.types import Observation

RULES_FRAGMENT = "answer-rules.md"  # prompts/fragments/answer-rules.md
RULES_HEADING = "# Rules learned from mistakes"
TRUNCATED = "truncated"
TRUNCATION_RULE = "Keep the work short: one line per calculation, at most 10 lines, then the answer line."
TRUNCATION_PROBLEM = "output cut at the length limit"
TARGETED = ("answer_format", "no_answer", "empty_output", "reported_intermediate", "unit_scale", "rounding", TRUNCATED)
NOTES_FRAGMENT = "notes.md"  # prompts/fragments/notes.md
NOTES_HEADING = "# Notes from mistakes"
PROBLEM_CHARS = 300
REPLY_CHARS = 120
_EXPECTED = re.compile(r"\bexpected:?\s+(.{1,80}?)(?:,\s*got\b|$)", re.I | re.M)


@dataclass(frozen=True)
class Fix:
    """A failure kind seen in the batch, how often, and the rule that targets it."""

    kind: str
    count: int
    rule: str


def failure_counts(evidence: Evidence, number_tasks: set[str] | None = None) -> Counter[str]:
    """Failures per targeted kind; a failure cut at the token limit counts as truncated, whatever its kind. With
    ``number_tasks``, a number rule's kind (``NUMERIC_RULES``) counts only on those tasks."""
    counts: Counter[str] = Counter()
    for finding in evidence.failures:
        if TRUNCATION_PROBLEM in finding.format_problems:
            counts[TRUNCATED] += 1
        elif finding.kind in TARGETED and (number_tasks is None or finding.kind not in NUMERIC_RULES
                                           or finding.task_id in number_tasks):
            counts[finding.kind] += 1
    return counts


def targeted_fixes(evidence: Evidence, existing: str, limit: int = 2,
                   number_tasks: set[str] | None = None) -> list[Fix]:
    """Fixes for the most frequent targeted kinds whose rule is not yet written; number rules only from failures on
    `number_tasks` when given."""
    ranked = sorted(failure_counts(evidence, number_tasks).items(), key=lambda kv: (-kv[1], kv[0]))
    fixes = [Fix(kind, n, TRUNCATION_RULE if kind == TRUNCATED else advice(kind, evidence.answer_marker))
             for kind, n in ranked]
    return [fix for fix in fixes if fix.rule not in existing][:limit]


def with_fix(existing: str, fix: Fix) -> str:
    """The rules fragment with one more rule (the heading written once)."""
    return f"{existing.strip() or RULES_HEADING}\n- {fix.rule}\n"


@dataclass(frozen=True)
class Note:
    """One cluster's mistake, the rule against it, and its correction shown on one failed task."""

    kind: str
    count: int
    task_id: str
    text: str

    @property
    def title(self) -> str:
        return self.text.splitlines()[0]


def correction(observation: Observation) -> str | None:
    """What the right answer was: the grader's expected answer, else its first line of detail; None if neither."""
    expected = observation.feedback.raw.get("expected")
    detail = observation.feedback.detail or ""
    if expected is None and (match := _EXPECTED.search(detail)):
        expected = match.group(1).strip().rstrip(".")
    if expected is not None and str(expected).strip():
        return f"the right answer is {one_line(str(expected), REPLY_CHARS)}"
    first = detail.strip().splitlines()[0] if detail.strip() else ""
    return f"the grader said: {one_line(first, REPLY_CHARS)}" if first else None


def note_for(cluster: Cluster, observations: Sequence[Observation], marker: str | None) -> Note | None:
    """The cluster's note, shown on its member with the shortest problem that has a known correction."""
    members = {o.task.id: o for o in observations if o.task.id in set(cluster.task_ids)}
    shown = [(o, fix) for o in members.values() if (fix := correction(o)) is not None]
    if not shown:
        return None
    failed, fix = min(shown, key=lambda pair: (len(pair[0].task.input), pair[0].task.id))
    problem = failed.task.question
    lines = [line for line in (failed.trajectory.output or "").strip().splitlines() if line.strip()]
    ending = one_line(lines[-1], REPLY_CHARS) if lines else "(nothing)"
    about = f" (tasks mention: {', '.join(cluster.keywords)})" if cluster.keywords else ""
    text = (f"## Mistake: {KIND_TEXT.get(cluster.kind, cluster.kind)}{about}\n{advice(cluster.kind, marker)}\n"
            f"Seen on: {one_line(problem, PROBLEM_CHARS)}\nThe reply ended \"{ending}\"; {fix}.")
    return Note(cluster.kind, cluster.size, failed.task.id, text)


def failure_notes(observations: Sequence[Observation], existing: str, limit: int = 1) -> list[Note]:
    """Notes for the largest clusters whose mistake the notes fragment does not name yet, at most `limit`."""
    evidence = analyse(list(observations), hidden=False)
    notes = [note for cluster in evidence.clusters
             if (note := note_for(cluster, observations, evidence.answer_marker)) and note.title not in existing]
    return notes[:limit]


def with_note(existing: str, note: Note) -> str:
    """The notes fragment with one more note (the heading written once)."""
    return f"{existing.strip() or NOTES_HEADING}\n\n{note.text}\n"


def note_candidates(workspace: AgentWorkspace, observations: Sequence[Observation], fragments_dir: str,
                    limit: int = 1) -> list[CandidateEdit]:
    """One candidate per new note, each adding it to the workspace's current notes fragment."""
    existing = workspace.read_fragment(NOTES_FRAGMENT) if NOTES_FRAGMENT in workspace.list_fragments() else ""
    return [CandidateEdit(f"notes-{note.kind}", {f"{fragments_dir}/{NOTES_FRAGMENT}": with_note(existing, note)},
                      f"note on {note.kind} (x{note.count}), shown on {note.task_id}: {note.title[3:]}")
            for note in failure_notes(observations, existing, limit)]
