"""From evidence to edit targets, deterministically: what to fix, in which layer, with what kind of edit.

A small model is then asked for exactly one thing per target (one rule, one skill body, one refinement).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from agent_evolve.algorithms.common import generation
from agent_evolve.algorithms.common.edits import Edit
from agent_evolve.algorithms.common.evidence import KIND_TEXT, Cluster, Evidence
from agent_evolve.algorithms.common.prompts import SEED_SKILLS, advice
from agent_evolve.algorithms.common.skill_ops import SKILL_CHAR_CAP, slugify
from agent_evolve.contract.skills import Skill
from agent_evolve.llm.base import LLMClient

Action = Literal["add_rule", "write_skill", "refine_skill"]
FORMAT_KINDS = frozenset({"no_answer", "answer_format", "empty_output"})
WEAK_SKILL_RATE = 0.5


@dataclass
class Target:
    """One thing to fix: the edit kind, a one-line focus for the request, the failure kind behind it."""

    action: Action
    focus: str
    kind: str
    name_hint: str = ""
    skill: str | None = None


def covering_skill(kind: str, skills: dict[str, Skill]) -> str | None:
    """The skill written for failures of `kind` (metadata.kind, or the seed skill's name), if any."""
    seed_name = SEED_SKILLS.get(kind, ("",))[0]
    return next((name for name, skill in sorted(skills.items())
                 if skill.metadata.get("kind") == kind or name == seed_name), None)


def focus_of(cluster: Cluster, marker: str | None) -> str:
    """The focus line for a cluster: what goes wrong, where, and the requested answer form."""
    text = KIND_TEXT.get(cluster.kind, cluster.kind)
    if cluster.keywords:
        text += f" in tasks about {', '.join(cluster.keywords[:3])}"
    if marker and cluster.kind in FORMAT_KINDS:
        text += f"; the tasks ask for a final line starting with '{marker}'"
    return text


def plan_targets(evidence: Evidence, layers: set[str], skills: dict[str, Skill], limit: int) -> list[Target]:
    """Up to `limit` targets: per failure cluster, largest first, a prompt rule for answer-format kinds, else a
    new skill or a refinement of the skill already written for the kind; then weak skills (used, rarely solved)."""
    targets: list[Target] = []
    for cluster in evidence.clusters:
        focus = focus_of(cluster, evidence.answer_marker)
        covered = covering_skill(cluster.kind, skills)
        if "prompts" in layers and (cluster.kind in FORMAT_KINDS or "skills" not in layers):
            targets.append(Target("add_rule", focus, cluster.kind))
        elif "skills" in layers and covered:
            targets.append(Target("refine_skill", focus, cluster.kind, skill=covered))
        elif "skills" in layers:
            hint = SEED_SKILLS.get(cluster.kind, (slugify(focus),))[0]
            targets.append(Target("write_skill", focus, cluster.kind, name_hint=hint))
    if "skills" in layers and not evidence.hidden:
        refined = {t.skill for t in targets}
        for stats in sorted(evidence.skill_stats.values(), key=lambda s: (s.rate, -s.uses)):
            if stats.name in skills and stats.name not in refined and stats.uses >= 2 and stats.rate < WEAK_SKILL_RATE:
                targets.append(Target("refine_skill", f"skill {stats.name} rarely helps", "other", skill=stats.name))
    return targets[:limit]


def propose(target: Target, client: LLMClient, evidence: Evidence, request_text: str, skills: dict[str, Skill],
            max_tokens: int, source: dict[str, Any], cap: int = SKILL_CHAR_CAP) -> Edit:
    """Ask the model for the one edit `target` needs (schema-checked; raises on malformed output)."""
    hint = advice(target.kind, evidence.answer_marker)
    if target.action == "add_rule":
        return generation.propose_rule(client, request_text, target.focus, hint, max_tokens)
    if target.action == "write_skill":
        metadata = {"kind": target.kind, **source}
        when = SEED_SKILLS[target.kind][1] if target.kind in SEED_SKILLS else target.focus
        return generation.propose_skill(client, request_text, target.focus, hint, target.name_hint,
                                        f"TRIGGER when: {when}.", max_tokens, metadata, cap)
    skill = skills[str(target.skill)]
    stats = evidence.skill_stats.get(skill.name)
    uses = stats.uses if stats else 0
    outcome = "the failures below remain" if evidence.hidden or not stats else f"{stats.solved} were solved"
    return generation.refine_skill(client, skill, uses, outcome, request_text, max_tokens, cap)
