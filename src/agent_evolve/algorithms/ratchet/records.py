"""Ratchet's shared vocabulary: capsules, verdicts, skills, meta-skills and decisions (plain dataclasses)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

SkillStatus = Literal["ACTIVE", "DEPRECATED", "CANDIDATE"]
VerdictLabel = Literal["HELPED", "HURT", "NEUTRAL", "INAPPLICABLE"]
Confidence = Literal["LOW", "MEDIUM", "HIGH"]
SkillOrigin = Literal["synthesized", "imported", "seed"]

SKILL_STATUSES: tuple[str, ...] = get_args(SkillStatus)
VERDICT_LABELS: tuple[str, ...] = get_args(VerdictLabel)
CONFIDENCES: tuple[str, ...] = get_args(Confidence)
SKILL_ORIGINS: tuple[str, ...] = get_args(SkillOrigin)


@dataclass
class Capsule:
    """One task attempt: the full prompt and output, its grade, and what the router chose for it."""

    round: int
    task_id: str
    split: str
    prompt: str
    output: str
    score: float
    passed: bool
    routed_skill: str | None
    router_decision: str
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)


@dataclass
class CriticVerdict:
    """The critic's judgement of one routed attempt: did the skill help, and which failure pattern showed."""

    capsule_id: int
    skill: str
    label: VerdictLabel
    failure_pattern: str
    confidence: Confidence
    reason: str
    round: int


@dataclass
class RatchetSkill:
    """A Ratchet skill: routing fields (intent, signals), guidance fields and the SKILL.md body."""

    name: str
    description: str
    intent: str
    signals_match: list[str]
    applies_when: str
    key_insight: str
    common_pitfalls: list[str]
    verify_before_returning: list[str]
    body: str
    status: SkillStatus = "ACTIVE"
    do_not_retire: bool = False
    origin: SkillOrigin = "synthesized"
    created_round: int = 0
    version: str = "0.1.0"                                        # Ratchet's schema fields, kept on import
    tags: list[str] = field(default_factory=list)
    preconditions: list[str] = field(default_factory=list)
    author: str = ""
    uncounted_rounds: list[list[int]] = field(default_factory=list)  # [first, last] round spans a rollback undid


@dataclass
class MetaSkill:
    """A suite's authoring prior for the synthesizer; at most one is active per suite."""

    suite: str
    name: str
    body: str
    active: bool
    created_round: int


@dataclass
class Decision:
    """One governed decision (curate, retire, evict, rollback, cover_guard, synth, dedup, canonicalise...)."""

    round: int
    kind: str
    subject: str
    payload: dict[str, Any] = field(default_factory=dict)
