"""From the loop's observations to Ratchet's evidence (pure): capsules, per-skill stats, recent failures and their
clusters by canonical failure pattern (patterns at cosine >= the threshold joined transitively, union-find)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_evolve.agents.routing.embedder import Vector
from agent_evolve.agents.routing.embeddings import cosine
from agent_evolve.algorithms.ratchet.curator import EPSILON, CreditWeighting, SkillTally, credit
from agent_evolve.algorithms.ratchet.records import Capsule, CriticVerdict, RatchetSkill
from agent_evolve.text.grouping import union_find_groups
from agent_evolve.types import Observation

FEEDBACK_CHARS = 500
Embed = Callable[[Sequence[str]], list[list[float]]]


def _skills_step(steps: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return next((s for s in steps if s.get("type") == "skills"), {})


def routed_skill(observation: Observation) -> str | None:
    """The one skill injected into this attempt (Ratchet routes 0 or 1), or None."""
    injected = _skills_step(observation.trajectory.steps).get("injected") or []
    return str(injected[0]) if injected else None


def full_prompt(observation: Observation) -> str:
    """Every message of the conversation before the final answer, as `role: content` blocks."""
    messages = list(observation.trajectory.conversation)
    messages = messages[:-1] if messages and messages[-1].get("role") == "assistant" else messages
    return "\n\n".join(f"{m.get('role', '?')}: {m.get('content', '')}" for m in messages) or observation.task.input


def capsule(observation: Observation, round_: int, split: str = "train") -> Capsule:
    """The capsule of one graded attempt: the full prompt, the answer, the grade, the routed skill and the router's
    decision as the agent recorded it in its trajectory's `skills` step."""
    step = _skills_step(observation.trajectory.steps)
    decision = step.get("router") or {"mode": step.get("mode", "unknown")}
    return Capsule(
        round=round_, task_id=str(observation.task.id), split=split, prompt=full_prompt(observation),
        output=observation.trajectory.output, score=float(observation.feedback.score),
        passed=bool(observation.feedback.success), routed_skill=routed_skill(observation),
        router_decision=json.dumps(decision, sort_keys=True, default=str),
        metadata={"feedback": observation.feedback.detail[:FEEDBACK_CHARS], "task": observation.task.input},
    )


def counted(skill: RatchetSkill, capsule: Capsule) -> bool:
    """Whether a capsule is one of the skill's trials: routed to it, train, since it was added, and not in a span
    of rounds a rollback undid for it."""
    return (capsule.routed_skill == skill.name and capsule.split == "train" and capsule.round >= skill.created_round
            and not any(first <= capsule.round <= last for first, last in skill.uncounted_rounds))


def skill_stats(skill: RatchetSkill, capsules: Iterable[tuple[int, Capsule]], verdicts: Iterable[CriticVerdict],
                weighting: CreditWeighting = "outcome") -> SkillTally:
    """A skill's routed train trials since it was added, credited by `weighting`, with the critic's verdicts."""
    labels = {v.capsule_id: v.label for v in verdicts if v.skill == skill.name}
    trials = [(c.passed, labels.get(capsule_id, "NEUTRAL")) for capsule_id, c in capsules if counted(skill, c)]
    credits = [credit(passed, label, weighting) for passed, label in trials]
    named = Counter(label for _, label in trials)
    return SkillTally(skill.name, len(trials), sum(v > 0 for v in credits), sum(v < 0 for v in credits),
                      skill.do_not_retire, skill.created_round, named["HELPED"], named["HURT"])


@dataclass(frozen=True)
class Failure:
    """One failed train attempt the critic named a pattern for."""

    capsule_id: int
    capsule: Capsule
    pattern: str


@dataclass
class PatternCluster:
    """Failures that share one canonical pattern."""

    pattern: str
    failures: list[Failure] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.failures)


def recent_failures(capsules: Iterable[tuple[int, Capsule]], verdicts: Iterable[CriticVerdict], round_: int,
                    window: int) -> list[Failure]:
    """Graded train failures of the last ``window`` rounds (up to ``round_``) that the critic named a pattern for."""
    failed = {cid: c for cid, c in capsules if not c.passed and c.split == "train" and round_ - window < c.round}
    return [Failure(v.capsule_id, failed[v.capsule_id], v.failure_pattern)
            for v in verdicts if v.capsule_id in failed and v.failure_pattern.strip()]


def nearest(vector: Vector, named: Mapping[str, Vector], threshold: float) -> tuple[str, float] | None:
    """The named vector most similar to ``vector`` when its cosine is >= ``threshold`` (ties: name), else None."""
    scored = [(name, cosine(vector, named[name])) for name in sorted(named)]
    return max((s for s in scored if s[1] >= threshold - EPSILON), key=lambda s: s[1], default=None)


def normalise(pattern: str) -> str:
    """A pattern's comparable form: lower case, single spaces, no trailing full stop."""
    return " ".join(pattern.lower().split()).rstrip(".")


def canonical_map(patterns: Sequence[str], embed: Embed | None, threshold: float) -> dict[str, str]:
    """Each distinct normalised pattern -> its group's name, its most frequent member (ties: first seen); without
    `embed` (canonicalisation off) itself."""
    counts = Counter(normalise(p) for p in patterns if p.strip())
    distinct = list(counts)
    if embed is None or not distinct:
        return {p: p for p in distinct}
    vectors = embed(distinct)
    groups = union_find_groups(len(vectors), lambda i, j: cosine(vectors[i], vectors[j]) >= threshold - EPSILON)
    members: dict[int, list[str]] = {}
    for pattern, group in zip(distinct, groups):
        members.setdefault(group, []).append(pattern)
    name = {g: max(ms, key=counts.__getitem__) for g, ms in members.items()}  # max keeps the first seen of a tie
    return {p: name[g] for p, g in zip(distinct, groups)}


def clusters(failures: Sequence[Failure], canonical: dict[str, str], min_size: int) -> list[PatternCluster]:
    """Failures grouped by canonical pattern; groups of >= ``min_size``, largest first (ties: pattern)."""
    found: dict[str, PatternCluster] = {}
    for failure in failures:
        key = normalise(failure.pattern)
        if key:
            name = canonical.get(key, key)
            found.setdefault(name, PatternCluster(name)).failures.append(failure)
    return sorted((c for c in found.values() if c.size >= min_size), key=lambda c: (-c.size, c.pattern))
