"""From evidence to edits: deterministic targets (what to fix, in which layer, how), then tightly scoped model
requests (one rule, one skill, one decision, one merge), each checked against a schema.

A malformed reply raises StructuredOutputError, unusable content EditError; either way nothing is written yet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from agent_evolve.algorithms.common import prompts
from agent_evolve.algorithms.common.edits import PROPOSABLE, Edit, EditError
from agent_evolve.algorithms.common.evidence import KIND_TEXT, Cluster, Evidence
from agent_evolve.algorithms.common.prompts import SEED_SKILLS, advice, seed_skill
from agent_evolve.algorithms.common.skill_ops import SKILL_CHAR_CAP, make_skill, merge_skills, slugify
from agent_evolve.contract.skills import Skill, render_skill
from agent_evolve.errors import SkillFormatError
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.llm.structured import complete_json

Decision = Literal["ACCEPT", "MERGE", "SKIP"]
Action = Literal["add_rule", "write_skill", "refine_skill"]
FORMAT_KINDS = frozenset({"no_answer", "answer_format", "empty_output"})
WEAK_SKILL_RATE = 0.5
_TEXT = {"type": "string", "minLength": 1}
_LINES = {"anyOf": [_TEXT, {"type": "array", "items": {"type": "string"}, "minItems": 1}]}  # small models list lines
RULE_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"rule": _TEXT}, "required": ["rule"]}
SKILL_SCHEMA: dict[str, Any] = {"type": "object",  # shown to the model as written: keep the key order
                                "properties": {"name": _TEXT, "description": _TEXT, "body": _LINES},
                                "required": ["name", "description", "body"]}
_UNUSABLE_TRIGGER = re.compile(r"<[^>]{0,80}>|\b(?:answer|result|output) is (?:wrong|incorrect|correct)\b",
                               re.IGNORECASE)
_META = re.compile(r"\b(?:system prompt|the prompt|the agent|this rule)\b", re.IGNORECASE)
DECISION_SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "decision": {"enum": ["ACCEPT", "MERGE", "SKIP"]}, "reason": {"type": "string"}}, "required": ["decision"]}


def ask(client: LLMClient, request: str, schema: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """One schema-checked JSON answer to `request`."""
    messages = [Message("system", prompts.SYSTEM), Message("user", request)]
    return complete_json(client, messages, schema, max_tokens=max_tokens)


def skill_from_fields(fields: dict[str, Any], metadata: dict[str, Any] | None = None, name: str | None = None,
                      cap: int = SKILL_CHAR_CAP, fallback_description: str | None = None) -> Skill:
    """A valid skill from a model's name/description/body (a list of lines becomes bullets); EditError otherwise.
    A description that is a copied template (`<...>`) or names the outcome (unknowable before solving) is
    replaced by `fallback_description`, or refused when there is none."""
    lines = fields.get("body")
    if isinstance(lines, list):
        bullets = [f"- {str(line).strip().lstrip('-* ')}" for line in lines if str(line).strip()]
        fields = {**fields, "body": "\n".join(bullets)}
    description, body = fields.get("description"), fields.get("body")
    if not all(isinstance(v, str) and v.strip() for v in (description, body)):
        raise EditError("a skill needs a non-empty description and body")
    if _UNUSABLE_TRIGGER.search(description):
        if fallback_description is None:
            raise EditError(f"the description {description[:80]!r} is a template or names the outcome")
        description = fallback_description
    try:
        return make_skill(name or slugify(str(fields.get("name") or "")), description, body, metadata, cap)
    except SkillFormatError as exc:
        raise EditError(str(exc)) from None


def edit_from_action(item: dict[str, Any], source: dict[str, Any]) -> Edit:
    """The Edit one action object asks for (`{"action": "add_rule", "rule": ...}` etc.); EditError if invalid."""
    action = item.get("action")
    if action in ("add_rule", "write_prompt"):
        return Edit(action, text=_required(item, "rule" if action == "add_rule" else "prompt"))
    if action == "add_memory":
        return Edit("add_memory", entry={"content": _required(item, "content"), **source})
    if action == "write_skill":
        return Edit("write_skill", skill=skill_from_fields(item, {"source": source.get("source", "")}))
    raise EditError(f"unknown action {action!r}; known: {', '.join(PROPOSABLE)}")


def _count(value: Any) -> int:
    """A counter kept in skill metadata; anything that is not a small non-negative integer counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**9 else 0


def _required(item: dict[str, Any], key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise EditError(f"action {item.get('action')!r} needs a non-empty {key!r} text")
    return value.strip()


def decide(client: LLMClient, candidate: Skill, existing: Skill | None, max_tokens: int) -> Decision:
    """The curator's ACCEPT / MERGE / SKIP for a proposed skill against its closest existing one."""
    request = prompts.CURATE_REQUEST.format(candidate=render_skill(candidate),
                                            existing=render_skill(existing) if existing else "(none)")
    decision: Decision = ask(client, request, DECISION_SCHEMA, max_tokens)["decision"]
    return "ACCEPT" if decision == "MERGE" and existing is None else decision


def merge(client: LLMClient, a: Skill, b: Skill, max_tokens: int) -> Skill:
    """One valid skill combining `a` and `b`, written by the model (name slugified, size capped)."""
    reply = ask(client, prompts.MERGE_REQUEST.format(a=render_skill(a), b=render_skill(b)), SKILL_SCHEMA, max_tokens)
    merged = skill_from_fields(reply, fallback_description=a.description)
    return merge_skills(a, b, name=merged.name, description=merged.description, body=merged.body)


def propose_edits(client: LLMClient, evidence: str, actions: list[str], max_edits: int, max_tokens: int,
                  source: dict[str, Any]) -> list[Edit]:
    """Up to `max_edits` edits of the allowed kinds in one reply (the free-form request)."""
    request = prompts.EDITS_REQUEST.format(evidence=evidence, max_edits=max_edits, actions=", ".join(actions))
    item = {"type": "object", "properties": {"action": {"enum": actions}}, "required": ["action"]}
    schema = {"type": "object", "properties": {"edits": {"type": "array", "maxItems": max_edits, "items": item}},
              "required": ["edits"]}
    reply = ask(client, request, schema, max_tokens)
    return [edit_from_action(item, source) for item in reply["edits"]]


@dataclass
class Target:
    """One thing to fix: the edit kind, a one-line focus for the request, the failure kind behind it."""

    action: Action
    focus: str
    kind: str
    name_hint: str = ""
    skill: str | None = None
    when: str = ""  # a new skill's trigger when its failures' seed skill has one (else the focus)


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
            name, when = (seed[0], seed[1]) if (seed := seed_skill(cluster.kind, cluster.about_numbers)) else (
                slugify(focus), "")
            targets.append(Target("write_skill", focus, cluster.kind, name_hint=name, when=when))
    if "skills" in layers and not evidence.hidden:
        refined = {t.skill for t in targets}
        for stats in sorted(evidence.skill_stats.values(), key=lambda s: (s.rate, -s.uses)):
            if stats.name in skills and stats.name not in refined and stats.uses >= 2 and stats.rate < WEAK_SKILL_RATE:
                targets.append(Target("refine_skill", f"skill {stats.name} rarely helps", "other", skill=stats.name))
    return targets[:limit]


def propose(target: Target, client: LLMClient, evidence: Evidence, request_text: str, skills: dict[str, Skill],
            max_tokens: int, source: dict[str, Any], cap: int = SKILL_CHAR_CAP) -> Edit:
    """Ask the model for the one edit `target` needs (schema-checked; raises on malformed output): a rule about the
    prompt instead of the task becomes the advice itself; an unusable skill description becomes the trigger hint; a
    refined skill keeps its name."""
    hint = advice(target.kind, evidence.answer_marker)
    if target.action == "add_rule":
        request = prompts.RULE_REQUEST.format(evidence=request_text, focus=target.focus, advice=hint)
        rule = str(ask(client, request, RULE_SCHEMA, max_tokens)["rule"])
        return Edit("add_rule", text=hint if _META.search(rule) else rule)
    if target.action == "write_skill":
        when = f"TRIGGER when: {target.when or target.focus}."
        request = prompts.SKILL_REQUEST.format(evidence=request_text, focus=target.focus, advice=hint,
                                               name_hint=target.name_hint, description_hint=when)
        reply = ask(client, request, SKILL_SCHEMA, max_tokens)
        return Edit("write_skill", skill=skill_from_fields(reply, {"kind": target.kind, **source}, cap=cap,
                                                           fallback_description=when))
    skill = skills[str(target.skill)]
    stats = evidence.skill_stats.get(skill.name)
    outcome = "the failures below remain" if evidence.hidden or not stats else f"{stats.solved} were solved"
    request = prompts.REFINE_REQUEST.format(name=skill.name, uses=stats.uses if stats else 0, outcome=outcome,
                                            body=skill.body.strip(), evidence=request_text)
    reply = {"description": skill.description, **ask(client, request, SKILL_SCHEMA, max_tokens)}
    metadata = {**skill.metadata, "refined": _count(skill.metadata.get("refined")) + 1}
    return Edit("write_skill", skill=skill_from_fields(reply, metadata, name=skill.name, cap=cap,
                                                       fallback_description=skill.description))
