"""An LLM judge of claim coverage (MCP-Atlas's grading): per claim, `covered` or `not covered`; a reply missing a
verdict gets one repair request, then JudgeError (a grader failure, never silently scored)."""

from __future__ import annotations

import re
from typing import Any

from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.llm.structured import extract_json

JUDGE_MAX_TOKENS = 512
ANSWER_CHARS = 6000
_SYSTEM = ("You grade answers strictly. A claim is covered when the answer states it (same facts; wording may "
           "differ; numbers must agree). A claim the answer omits, contradicts or only hints at is not covered.")
_LINE = re.compile(r"^\W*(?:claim\s*)?(\d+)\W+(not\s+covered|uncovered|covered|yes|no|true|false)\b",
                   re.IGNORECASE | re.MULTILINE)
_TRUE = {"covered", "yes", "true"}
_VERDICT_WORDS = {**dict.fromkeys(_TRUE, True), **dict.fromkeys(("not covered", "uncovered", "no", "false"), False)}


class JudgeError(AgentEvolveError):
    """The judge's reply gave no usable verdict for every claim, even after one repair request."""


def judge_prompt(question: str, answer: str, claims: list[str]) -> str:
    """The user message: question, answer (clipped) and numbered claims, with the reply format."""
    numbered = "\n".join(f"{n}. {claim}" for n, claim in enumerate(claims, 1))
    clipped = answer if len(answer) <= ANSWER_CHARS else answer[:ANSWER_CHARS] + " ..."
    return (f"Question:\n{question}\n\nAnswer to grade:\n{clipped or '(empty)'}\n\nClaims:\n{numbered}\n\n"
            "For every claim, say whether the answer covers it. Reply with JSON only: "
            '{"verdicts": [{"claim": 1, "covered": true}, ...]} with one entry per claim.')


def _as_bool(value: Any) -> bool | None:
    """A verdict value: a boolean, or a word such as covered / not covered / yes / no."""
    if isinstance(value, bool):
        return value
    return _VERDICT_WORDS.get(" ".join(value.lower().split())) if isinstance(value, str) else None


def _from_json(value: Any, count: int) -> dict[int, bool]:
    """Verdicts from {"verdicts": [...]}, a list of objects, or a list of booleans in claim order."""
    if isinstance(value, dict):
        value = value.get("verdicts", value.get("claims"))
    verdicts: dict[int, bool] = {}
    if not isinstance(value, list):
        return verdicts
    for position, item in enumerate(value, 1):
        number, raw = position, item
        if isinstance(item, dict):
            number = item.get("claim", item.get("id", position))
            raw = item.get("covered", item.get("verdict"))
        verdict = _as_bool(raw)
        if isinstance(number, int) and 1 <= number <= count and verdict is not None:
            verdicts[number] = verdict
    return verdicts


def parse_verdicts(text: str, count: int) -> dict[int, bool]:
    """Claim number -> covered, read from JSON or else from `N: covered` lines; claims without a verdict left out."""
    try:
        verdicts = _from_json(extract_json(text), count)
    except ValueError:
        verdicts = {}
    if len(verdicts) < count:
        lines = {int(n): word.lower() in _TRUE for n, word in _LINE.findall(text) if 1 <= int(n) <= count}
        verdicts = {**lines, **verdicts}
    return verdicts


def judge_claims(judge: LLMClient, question: str, answer: str, claims: list[str]) -> list[tuple[str, bool]]:
    """(claim, covered) for every claim, in order, from the judge; one repair request when a verdict is missing,
    then JudgeError."""
    messages = [Message("system", _SYSTEM), Message("user", judge_prompt(question, answer, claims))]
    verdicts: dict[int, bool] = {}
    for _ in range(2):  # the question, then the repair request
        reply = judge.complete(messages, max_tokens=JUDGE_MAX_TOKENS).text
        verdicts.update(parse_verdicts(reply, len(claims)))
        missing = [n for n in range(1, len(claims) + 1) if n not in verdicts]
        if not missing:
            return [(claim, verdicts[n]) for n, claim in enumerate(claims, 1)]
        messages += [Message("assistant", reply),
                     Message("user", f"Your reply gave no verdict for claim(s) {missing}. Reply again with JSON "
                                     "only, one entry per claim.")]
    raise JudgeError(f"judge {judge.model} gave no verdict for claim(s) {missing} of {len(claims)} after one "
                     f"repair request; last reply: {reply[:300]!r}")
