"""Deterministic analysis of a batch: failure kinds, answer-format problems, skill use and failure clusters.

With hidden feedback (trajectory_only) only what the trajectories show is used, never scores or grader text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from agent_evolve.benchmarks.answer_kinds import kind_of
from agent_evolve.text import STOP_WORDS
from agent_evolve.types import Observation

# failure kind -> pattern on the grader's feedback text, first match wins
KIND_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("no_answer", re.compile(r"no (?:number|answer|code|output|solution)|could not (?:find|parse|extract)"
                             r"|missing (?:answer|output)|empty (?:output|answer)", re.I)),
    ("timeout", re.compile(r"time[ds]?[ _-]?out|deadline exceeded", re.I)),
    ("syntax_error", re.compile(r"syntaxerror|indentationerror|invalid syntax", re.I)),
    ("test_failure", re.compile(r"assertionerror|tests? failed|failed tests?|assert\b", re.I)),
    ("runtime_error", re.compile(r"traceback|\b[A-Z]\w*(?:Error|Exception)\b|exception", re.I)),
    ("wrong_answer", re.compile(r"expected .{0,80}\bgot\b|wrong|incorrect|mismatch|does not match", re.I)),
)
KIND_TEXT: dict[str, str] = {
    "empty_output": "the output was empty",
    "answer_format": "the output does not follow the requested answer format",
    "no_answer": "no answer could be read from the output",
    "timeout": "the solution ran out of time",
    "syntax_error": "the code does not parse",
    "test_failure": "the code fails its tests",
    "runtime_error": "the code raises an error",
    "reported_intermediate": "the right value appears in the work but another number was given as the answer",
    "unit_scale": "the answer is off by a unit or percent factor",
    "rounding": "the answer is close but not exact (rounding)",
    "wrong_answer": "the final answer is wrong",
    "tool_error": "a tool call failed",
    "other": "the task failed",
}
_MARKER_FORM = re.compile(r"`\s*([A-Za-z][A-Za-z ]{0,30}?)\s*:\s*<[^`>]{1,30}>\s*`")
_MARKER_WORD = re.compile(r"\b(final answer|answer)\s*:", re.I)
_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")
_EXPECTED_GOT = re.compile(r"expected\s+(\S+?),?\s+got\s+(\S+)", re.I)
_WORD = re.compile(r"[a-z][a-z'-]{3,}")
_SCALES = (12, 24, 60, 100, 1000)


@dataclass
class Finding:
    """One observation as the analysis sees it; `solved` and `score` are None when feedback is hidden."""

    task_id: str
    task_input: str
    output: str
    solved: bool | None
    score: float | None
    kind: str | None
    detail: str = ""
    format_problems: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    number: bool = False  # the task's answer kind is number


@dataclass
class Cluster:
    """Failures of one kind, with the words their tasks share."""

    kind: str
    task_ids: list[str]
    keywords: list[str]
    numbers: int = 0  # how many of its tasks are number tasks

    @property
    def size(self) -> int:
        return len(self.task_ids)

    @property
    def about_numbers(self) -> bool:
        """Whether most of its tasks are number tasks, so arithmetic advice fits them."""
        return 2 * self.numbers > self.size

    def describe(self) -> str:
        words = f" (tasks mention: {', '.join(self.keywords)})" if self.keywords else ""
        return f"{self.kind} x{self.size}: {KIND_TEXT.get(self.kind, self.kind)}{words}"


@dataclass
class SkillStats:
    """How often a skill was injected and, when scores are visible, how often those tasks were solved."""

    name: str
    uses: int = 0
    solved: int = 0

    @property
    def rate(self) -> float:
        return self.solved / self.uses if self.uses else 0.0


@dataclass
class Evidence:
    """The analysis of one batch."""

    findings: list[Finding]
    hidden: bool
    answer_marker: str | None
    clusters: list[Cluster]
    skill_stats: dict[str, SkillStats]

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.kind is not None]

    @property
    def solved_count(self) -> int | None:
        return None if self.hidden else sum(bool(f.solved) for f in self.findings)

    @property
    def mean_score(self) -> float | None:
        visible = not self.hidden and self.findings
        return sum(f.score or 0.0 for f in self.findings) / len(self.findings) if visible else None

    @property
    def kind_counts(self) -> Counter[str]:
        return Counter(f.kind for f in self.failures if f.kind)

    @property
    def format_count(self) -> int:
        return sum(bool(f.format_problems) for f in self.findings)


def answer_marker(task_inputs: list[str]) -> str | None:
    """The answer prefix the tasks ask for, e.g. 'Answer:' from "a last line of the form `Answer: <number>`"."""
    found: Counter[str] = Counter()
    for text in task_inputs:
        if form := _MARKER_FORM.search(text):
            found[form.group(1).strip() + ":"] += 1
        elif word := _MARKER_WORD.search(text):
            found[word.group(1).capitalize() + ":"] += 1
    return found.most_common(1)[0][0] if found else None


def cut_at_limit(steps: list[dict[str, Any]]) -> bool:
    """Whether a trajectory's steps record its output as cut at the token limit."""
    return any(isinstance(s, dict) and (s.get("finish_reason") == "length" or s.get("truncated")) for s in steps)


def format_problems(output: str, marker: str | None, steps: list[dict[str, Any]] | None = None) -> list[str]:
    """Readable answer-format problems of one output (empty list when none are visible)."""
    if not output.strip():
        return ["empty output"]
    problems = []
    if cut_at_limit(steps or []):
        problems.append("output cut at the length limit")
    if marker:
        lines = [line.strip().strip("*#> ").strip() for line in output.splitlines() if line.strip()]
        hits = [i for i, line in enumerate(lines) if line.lower().startswith(marker.lower())]
        if not hits:
            problems.append(f"no line starting with '{marker}'")
        else:
            if len(hits) > 1:
                problems.append(f"{len(hits)} lines start with '{marker}'")
            if hits[-1] != len(lines) - 1:
                problems.append(f"text after the '{marker}' line")
            if not lines[hits[-1]][len(marker):].strip():
                problems.append(f"nothing after '{marker}'")
    return problems


def _as_fraction(text: object) -> Fraction | None:
    try:
        return Fraction(str(text).replace(",", "").rstrip(".").lstrip("$"))
    except (ValueError, ZeroDivisionError):
        return None


def numeric_kind(expected: object, got: object, output: str) -> str | None:
    """A finer kind for a wrong number: intermediate value reported, unit/percent scale, or rounding."""
    want, have = _as_fraction(expected), _as_fraction(got)
    if want is None or have is None or want == have:
        return None
    if want != 0 and have != 0:
        ratio = abs(have / want)
        if any(ratio in (scale, Fraction(1, scale)) for scale in _SCALES):
            return "unit_scale"
        if abs(have - want) / abs(want) < Fraction(1, 100):
            return "rounding"
    written = {_as_fraction(n) for n in _NUMBER.findall(output)}
    return "reported_intermediate" if want in written else None


def classify(obs: Observation, hidden: bool) -> str | None:
    """The failure kind of one observation, or None when it succeeded (or nothing is visibly wrong)."""
    output, steps = obs.trajectory.output or "", obs.trajectory.steps
    if not hidden and obs.feedback.success:
        return None
    if not output.strip():
        return "empty_output"
    tool_error = any(isinstance(s, dict) and s.get("type") in ("tool", "tool_call") and s.get("error")
                     for s in steps)
    if hidden:
        return "tool_error" if tool_error else None
    detail = obs.feedback.detail or ""
    kind = next((name for name, pattern in KIND_PATTERNS if pattern.search(detail)), None)
    if kind in (None, "wrong_answer"):
        expected, got = obs.feedback.raw.get("expected"), obs.feedback.raw.get("extracted")
        if expected is None and (match := _EXPECTED_GOT.search(detail)):
            expected, got = match.groups()
        kind = (numeric_kind(expected, got, output) if expected is not None else None) or kind
    return kind or ("tool_error" if tool_error else "other")


def skills_used(steps: list[dict[str, Any]]) -> list[str]:
    """Names of the skills the agent recorded as injected (`{"type": "skills", "injected": [...]}` steps)."""
    names: list[str] = []
    for step in steps:
        if isinstance(step, dict) and step.get("type") == "skills":
            names += [n for n in step.get("injected") or [] if isinstance(n, str) and n not in names]
    return names


def task_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS}


def cluster_failures(findings: list[Finding]) -> list[Cluster]:
    """Failures grouped by kind, largest first; keywords are up to 5 words two or more of its tasks share, minus the
    words every task of the batch has (instructions)."""
    everywhere = set.intersection(*(task_words(f.task_input) for f in findings)) if len(findings) > 1 else set()
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.kind:
            groups.setdefault(finding.kind, []).append(finding)
    clusters = []
    for kind, members in groups.items():
        counts = Counter(w for f in members for w in task_words(f.task_input) - everywhere)
        shared = [w for w, n in counts.most_common() if n >= 2]
        clusters.append(Cluster(kind, [f.task_id for f in members], sorted(shared[:5]),
                                sum(f.number for f in members)))
    return sorted(clusters, key=lambda c: (-c.size, c.kind))


def analyse(observations: list[Observation], hidden: bool | None = None) -> Evidence:
    """Analyse a batch; `hidden` defaults to whether the loop hid the feedback."""
    if hidden is None:
        hidden = any(o.feedback.raw.get("hidden") for o in observations)
    marker = answer_marker([o.task.input for o in observations])
    findings: list[Finding] = []
    stats: dict[str, SkillStats] = {}
    for obs in observations:
        problems = format_problems(obs.trajectory.output or "", marker, obs.trajectory.steps)
        kind = classify(obs, hidden)
        if hidden and kind is None and problems:
            kind = "answer_format"
        solved = None if hidden else bool(obs.feedback.success)
        skills = skills_used(obs.trajectory.steps)
        for name in skills:
            entry = stats.setdefault(name, SkillStats(name))
            entry.uses += 1
            entry.solved += int(bool(solved))
        findings.append(Finding(obs.task.id, obs.task.question, obs.trajectory.output or "", solved,
                                None if hidden else float(obs.feedback.score), kind,
                                "" if hidden else obs.feedback.detail or "", problems, skills,
                                kind_of(obs.task) == "number"))
    return Evidence(findings, hidden, marker, cluster_failures(findings), stats)
