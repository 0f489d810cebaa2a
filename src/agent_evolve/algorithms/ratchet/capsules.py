"""From the loop's observations to Ratchet's evidence: capsules, per-skill stats and recent failures (pure).

A capsule keeps the full prompt (every message before the answer), the answer, the grade, the routed skill and
the router's decision as the agent recorded it in its trajectory's `skills` step.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from agent_evolve.algorithms.ratchet.canonical import Failure
from agent_evolve.algorithms.ratchet.curator import CreditWeighting, SkillTally, credit
from agent_evolve.algorithms.ratchet.records import Capsule, CriticVerdict, RatchetSkill
from agent_evolve.types import Observation

FEEDBACK_CHARS = 500


def _skills_step(steps: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return next((s for s in steps if s.get("type") == "skills"), {})


def routed_skill(observation: Observation) -> str | None:
    """The one skill injected into this attempt (Ratchet routes 0 or 1), or None."""
    injected = _skills_step(observation.trajectory.steps).get("injected") or []
    return str(injected[0]) if injected else None


def full_prompt(observation: Observation) -> str:
    """Every message of the conversation before the final answer, as `role: content` blocks."""
    messages = list(observation.trajectory.conversation)
    if messages and messages[-1].get("role") == "assistant":
        messages = messages[:-1]
    if not messages:
        return observation.task.input
    return "\n\n".join(f"{m.get('role', '?')}: {m.get('content', '')}" for m in messages)


def capsule(observation: Observation, round_: int, split: str = "train") -> Capsule:
    """The capsule of one graded attempt."""
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


def recent_failures(capsules: Iterable[tuple[int, Capsule]], verdicts: Iterable[CriticVerdict], round_: int,
                    window: int) -> list[Failure]:
    """Graded train failures of the last ``window`` rounds (up to ``round_``) that the critic named a pattern for."""
    failed = {cid: c for cid, c in capsules if not c.passed and c.split == "train" and round_ - window < c.round}
    return [Failure(v.capsule_id, failed[v.capsule_id].task_id, failed[v.capsule_id].round, v.failure_pattern)
            for v in verdicts if v.capsule_id in failed and v.failure_pattern.strip()]
