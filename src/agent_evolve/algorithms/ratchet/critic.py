"""The critic: one verdict per routed train attempt (did the injected skill help?) and a failure pattern; the grade
is given, never asked, and an unusable reply is a recorded failure (`CriticResult.error`), never a crash."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_evolve.algorithms.ratchet.records import CONFIDENCES, VERDICT_LABELS, Capsule, CriticVerdict
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.llm.errors import StructuredOutputError
from agent_evolve.llm.structured import complete_json

TASK_CHARS = 1500
OUTPUT_CHARS = 1500
PATTERN_CHARS = 120

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"label": {"enum": list(VERDICT_LABELS)}, "failure_pattern": {"type": "string"},
                   "confidence": {"enum": list(CONFIDENCES)}, "reason": {"type": "string"}},
    "required": ["label", "failure_pattern"],
}
SYSTEM = ("You review one graded attempt at a task. You name the failure pattern in a few general words "
          "(for example 'off-by-one in loop bounds', 'ignores empty input') and judge the injected skill.")


@dataclass(frozen=True)
class CriticResult:
    """A verdict, or why none could be read from the model's reply."""

    verdict: CriticVerdict | None
    error: str = ""


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, marked with ' ...' when cut (the critic's and the synthesizer's prompts)."""
    return text if len(text) <= limit else text[:limit] + " ..."


def messages(capsule: Capsule, task: str, guidance: str, feedback: str) -> list[Message]:
    """The critic prompt for one capsule; ``guidance`` is the routed skill's text ('' when none was routed)."""
    grade = "PASSED" if capsule.passed else "FAILED"
    parts = [f"Task:\n{clip(task, TASK_CHARS)}",
             f"Answer:\n{clip(capsule.output, OUTPUT_CHARS)}",
             f"Grader: {grade}" + (f" ({clip(feedback, 300)})" if feedback else "")]
    if guidance:
        parts.append(f"Injected skill {capsule.routed_skill!r}:\n{clip(guidance, 1500)}")
        ask = ("Did the skill HELP, HURT, have no effect (NEUTRAL), or not apply to this task (INAPPLICABLE)? "
               "Give the failure pattern if the attempt failed (else an empty string), your confidence "
               "(LOW, MEDIUM or HIGH) and a one-line reason.")
    else:
        ask = ("No skill was used: reply label INAPPLICABLE, the failure pattern of this failed attempt, "
               "your confidence (LOW, MEDIUM or HIGH) and a one-line reason.")
    return [Message("system", SYSTEM), Message("user", "\n\n".join(parts) + "\n\n" + ask)]


def verdict_from(reply: dict[str, Any], capsule_id: int, capsule: Capsule) -> CriticVerdict:
    """A CriticVerdict from a schema-valid reply; a pass has no failure pattern, missing fields get safe values."""
    pattern = "" if capsule.passed else " ".join(str(reply.get("failure_pattern", "")).split())[:PATTERN_CHARS]
    confidence = reply.get("confidence") if reply.get("confidence") in CONFIDENCES else "LOW"
    label = reply["label"] if capsule.routed_skill else "INAPPLICABLE"
    reason = " ".join(str(reply.get("reason", "")).split())[:200]
    return CriticVerdict(capsule_id, capsule.routed_skill or "", label, pattern, confidence, reason, capsule.round)


def judge(client: LLMClient, capsule_id: int, capsule: Capsule, task: str, guidance: str, feedback: str,
          max_tokens: int) -> CriticResult:
    """One model call (plus one repair) for one capsule's verdict."""
    try:
        reply = complete_json(client, messages(capsule, task, guidance, feedback), SCHEMA, max_tokens=max_tokens)
    except StructuredOutputError as exc:
        return CriticResult(None, f"capsule {capsule_id} ({capsule.task_id}): the critic's reply was unusable: {exc}")
    return CriticResult(verdict_from(reply, capsule_id, capsule))
