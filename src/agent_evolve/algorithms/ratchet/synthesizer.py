"""The synthesizer: a skill per cluster of recent failures (largest first) unless an active skill covers it,
redrafted when over budget or a duplicate; every outcome is a Decision, an unusable reply never a crash."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_evolve.agents.routing.embedder import Vector
from agent_evolve.algorithms.common.skill_ops import slugify
from agent_evolve.algorithms.ratchet.capsules import Embed, PatternCluster, nearest
from agent_evolve.algorithms.ratchet.critic import clip
from agent_evolve.algorithms.ratchet.records import Capsule, Decision, RatchetSkill
from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.algorithms.ratchet.skill_forms import guidance_text
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.llm.errors import StructuredOutputError
from agent_evolve.llm.structured import complete_json

EXAMPLES = 3
EXAMPLE_CHARS = 600
_TEXT = {"type": "string", "minLength": 1}
_LIST = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": _TEXT, "description": _TEXT, "intent": _TEXT, "signals_match": _LIST, "applies_when": _TEXT,
        "key_insight": _TEXT, "common_pitfalls": _LIST, "verify_before_returning": _LIST,
    },
    "required": ["name", "description", "intent", "applies_when", "key_insight"],
}
SYSTEM = ("You write one reusable skill: short natural-language guidance a model reads before solving similar "
          "tasks. It must generalise to the failure pattern, not restate one task.")


@dataclass
class SynthOutcome:
    """The skills made this round and a decision for every cluster considered."""

    created: list[RatchetSkill] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)


def draft_tally(decisions: Sequence[Decision]) -> dict[str, int]:
    """Skill drafts the model was asked for (parsed or not) and those that became skills: the engine's edit rates."""
    drafts = [d for d in decisions if "attempt" in d.payload]
    return {"proposed": len(drafts), "valid": sum(d.kind == "synth" for d in drafts)}


def skill_text(skill: RatchetSkill) -> str:
    """What dedup compares: the skill's routing and guidance fields."""
    return " ".join([skill.name.replace("-", " "), skill.description, skill.intent, " ".join(skill.signals_match),
                     skill.applies_when, skill.key_insight, " ".join(skill.common_pitfalls)])


def duplicate_feedback(name: str, score: float) -> str:
    """What the synthesizer is told when its draft duplicates a bank skill."""
    return (f"Your draft duplicates the existing skill {name!r} (cosine {score:.2f}). Write a skill for a "
            "different, more specific failure, or one that adds what that skill lacks.")


def _line(value: Any) -> str:
    return " ".join(str(value).split())


def _lines(value: Any) -> list[str]:
    items = value if isinstance(value, list) else str(value or "").splitlines()
    return [_line(i).lstrip("-* ") for i in items if str(i).strip()]


def _example(index: int, failed: Capsule) -> str:
    task, feedback = str(failed.metadata.get("task", "")), str(failed.metadata.get("feedback", ""))
    return (f"Example {index}:\nTask: {clip(task, EXAMPLE_CHARS)}\nFailed answer: {clip(failed.output, 400)}"
            + (f"\nGrader: {clip(feedback, 200)}" if feedback else ""))


def messages(cluster: PatternCluster, meta: str, notes: Sequence[str]) -> list[Message]:
    """The synthesis prompt: the meta-skill prior, the failure pattern, examples and earlier drafts' problems."""
    shown = "\n\n".join(_example(i, f.capsule) for i, f in enumerate(cluster.failures[:EXAMPLES], 1))
    parts = [f"Authoring advice:\n{meta}"] if meta else []
    parts += [f"Failure pattern seen {cluster.size} times: {cluster.pattern}", shown]
    parts += [f"Problem with your previous draft: {note}" for note in notes]
    parts.append("Write one skill as JSON with: name (2-4 lowercase words joined by hyphens), description (one "
                 "line: when it applies), intent (one short imperative sentence), signals_match (task words "
                 "that signal it), applies_when, key_insight, common_pitfalls (list), verify_before_returning "
                 "(list).")
    return [Message("system", SYSTEM), Message("user", "\n\n".join(p for p in parts if p))]


def draft_skill(reply: Mapping[str, Any], round_: int, taken: set[str]) -> RatchetSkill:
    """A RatchetSkill from a schema-valid reply; its name is a valid skill name not in ``taken``."""
    base = slugify(str(reply["name"]), "ratchet-skill")
    name, n = base, 2
    while name in taken:
        name, n = f"{base[:44]}-{n}", n + 1
    return RatchetSkill(
        name=name, description=_line(reply["description"])[:1024], intent=_line(reply["intent"]),
        signals_match=_lines(reply.get("signals_match")), applies_when=_line(reply["applies_when"]),
        key_insight=_line(reply["key_insight"]), common_pitfalls=_lines(reply.get("common_pitfalls")),
        verify_before_returning=_lines(reply.get("verify_before_returning")), body="", created_round=round_,
    )


def synthesize(client: LLMClient, clusters: Sequence[PatternCluster], bank: Mapping[str, RatchetSkill],
               cover_texts: Mapping[str, str], embed: Embed, settings: RatchetSettings, meta: str, round_: int,
               taken: set[str], room: int) -> SynthOutcome:
    """Up to ``room`` new skills from ``clusters``: ``bank`` is the active bank (dedup), ``cover_texts`` its cover
    texts (cover guard), ``taken`` every name the ledger knows."""
    out = SynthOutcome()
    bank_vectors: dict[str, Vector] = dict(zip(bank, embed([skill_text(s) for s in bank.values()]))) if bank else {}
    cover_vectors: dict[str, Vector] = (dict(zip(cover_texts, embed(list(cover_texts.values()))))
                                        if cover_texts else {})
    for cluster in clusters:
        if len(out.created) >= room:
            break
        subject = cluster.pattern
        if settings.cover_guard and cover_vectors:
            covered = nearest(embed([cluster.pattern])[0], cover_vectors, settings.cover_threshold)
            if covered is not None:
                out.decisions.append(Decision(round_, "cover_guard", subject, {
                    "skill": covered[0], "cosine": round(covered[1], 4), "size": cluster.size}))
                continue
        made = _one(client, cluster, bank_vectors, embed, settings, meta, round_, taken, out)
        if made is not None:
            out.created.append(made)
            taken.add(made.name)
            bank_vectors[made.name] = embed([skill_text(made)])[0]
    return out


def _one(client: LLMClient, cluster: PatternCluster, bank_vectors: dict[str, Vector], embed: Embed,
         settings: RatchetSettings, meta: str, round_: int, taken: set[str],
         out: SynthOutcome) -> RatchetSkill | None:
    """One cluster's skill after at most `synth_attempts` drafts, or None with the reason recorded."""
    notes: list[str] = []
    base = {"size": cluster.size, "capsules": [f.capsule_id for f in cluster.failures]}

    def decide(kind: str, subject: str, **payload: Any) -> None:
        out.decisions.append(Decision(round_, kind, subject, {**base, **payload}))

    for attempt in range(1, settings.synth_attempts + 1):
        try:
            reply = complete_json(client, messages(cluster, meta, notes), SCHEMA,
                                  max_tokens=settings.role_max_tokens)
        except StructuredOutputError as exc:
            decide("synth_failed", cluster.pattern, attempt=attempt, error=str(exc)[:300])
            return None
        skill = draft_skill(reply, round_, taken)
        chars = len(guidance_text(skill))
        if chars > settings.skill_char_budget:
            notes.append(f"it is {chars} characters; the budget is {settings.skill_char_budget}. "
                         "Write it shorter.")
            decide("over_budget", skill.name, attempt=attempt, chars=chars)
            continue
        duplicate = nearest(embed([skill_text(skill)])[0], bank_vectors, settings.dedup_threshold)
        if duplicate is not None:
            notes.append(duplicate_feedback(*duplicate))
            decide("dedup", skill.name, attempt=attempt, duplicate_of=duplicate[0], cosine=round(duplicate[1], 4))
            continue
        decide("synth", skill.name, attempt=attempt, pattern=cluster.pattern, chars=chars)
        return skill
    decide("synth_failed", cluster.pattern, error=f"no usable draft in {settings.synth_attempts} attempts",
           notes=notes)
    return None
