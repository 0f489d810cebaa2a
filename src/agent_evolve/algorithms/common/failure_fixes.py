"""Failure analysis turned into targeted prompt rules, without a model: one rule per recurring failure kind.

The kinds come from `evidence.analyse` (answer format, missing answer, unit or percent scale, an intermediate
value reported, rounding) plus truncation at the token limit, seen in the trajectory's finish reason. Rules go
into the fragment `prompts/fragments/answer-rules.md`; each candidate adds one rule to what is already there.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from agent_evolve.algorithms.common.evidence import Evidence
from agent_evolve.algorithms.common.prompts import advice
from agent_evolve.algorithms.common.techniques import NUMERIC_RULES

RULES_FRAGMENT = "answer-rules.md"  # prompts/fragments/answer-rules.md
RULES_HEADING = "# Rules learned from mistakes"
TRUNCATED = "truncated"
TRUNCATION_RULE = "Keep the work short: one line per calculation, at most 10 lines, then the answer line."
TRUNCATION_PROBLEM = "output cut at the length limit"
TARGETED = ("answer_format", "no_answer", "empty_output", "reported_intermediate", "unit_scale", "rounding", TRUNCATED)


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


def targeted_fixes(evidence: Evidence, existing: str, min_count: int = 1, limit: int = 2,
                   number_tasks: set[str] | None = None) -> list[Fix]:
    """Fixes for the most frequent targeted kinds (at least `min_count` failures) whose rule is not yet written;
    number rules only from failures on `number_tasks` when given."""
    fixes = []
    for kind, count in sorted(failure_counts(evidence, number_tasks).items(), key=lambda kv: (-kv[1], kv[0])):
        rule = TRUNCATION_RULE if kind == TRUNCATED else advice(kind, evidence.answer_marker)
        if count >= min_count and rule not in existing:
            fixes.append(Fix(kind, count, rule))
    return fixes[:limit]


def with_fix(existing: str, fix: Fix) -> str:
    """The rules fragment with one more rule (the heading written once)."""
    body = existing.strip() or RULES_HEADING
    return f"{body}\n- {fix.rule}\n"
