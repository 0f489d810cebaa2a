"""SkillOpt's model requests, each bounded by its schema: edits from a batch, the epoch's rewrite, the meta-skill notes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_evolve.algorithms.common.summaries import clip
from agent_evolve.algorithms.skillopt.edits import MAX_EDIT_CHARS, OPS, SkillEdit

MAX_BODY_CHARS = 4000
MAX_NOTES_CHARS = 800

_EDIT: dict[str, Any] = {"type": "object", "required": ["op"], "properties": {
    "op": {"enum": list(OPS)}, "target": {"type": "string"}, "content": {"type": "string", "maxLength": MAX_EDIT_CHARS}}}
# the learning rate is applied after (the first edits win), as SkillOpt keeps the top edits of a larger pool
EDITS_SCHEMA: dict[str, Any] = {"type": "object", "required": ["edits"],
                                "properties": {"edits": {"type": "array", "items": _EDIT}}}
REWRITE_SCHEMA: dict[str, Any] = {"type": "object", "required": ["body"],
                                  "properties": {"body": {"type": "string", "maxLength": MAX_BODY_CHARS}}}
NOTES_SCHEMA: dict[str, Any] = {"type": "object", "required": ["notes"],
                                "properties": {"notes": {"type": "string", "maxLength": MAX_NOTES_CHARS}}}


def _edit_lines(edits: Sequence[SkillEdit]) -> str:
    return "\n".join(f"- {e.op} target={clip(e.target, 120)!r} content={clip(e.content, 200)!r}" for e in edits) or "(none)"


def edit_request(body: str, examples: str, learning_rate: int, rejected: Sequence[SkillEdit], notes: str) -> str:
    """Ask for at most `learning_rate` edits to the skill from this batch's results."""
    return (
        "You improve one skill document that an assistant reads before solving tasks.\n\n"
        f"Current skill:\n<skill>\n{body}\n</skill>\n\n"
        f"Results of the assistant on a batch of tasks:\n{examples}\n\n"
        f"Edits tried before that made the validation score worse (do not repeat them):\n{_edit_lines(rejected)}\n\n"
        f"Advice from earlier epochs:\n{notes or '(none)'}\n\n"
        f"Propose at most {learning_rate} edits. Each is one of: add (new text, appended or placed after `target`), "
        "replace (`target` is exact text of the skill, `content` replaces it), delete (`target` is exact text to "
        "remove). Fix the causes of failures; keep what made successes work; keep each edit short and general."
    )


def slow_update_request(body: str, accepted: Sequence[SkillEdit], rejected: Sequence[SkillEdit]) -> str:
    """Ask for a consolidated rewrite of the skill at an epoch's end."""
    return (
        "An epoch of small edits to a skill document has finished. Rewrite the skill into one coherent document: "
        "merge overlapping rules, drop contradictions, keep every lesson the kept edits taught.\n\n"
        f"Current skill:\n<skill>\n{body}\n</skill>\n\nEdits kept this epoch:\n{_edit_lines(accepted)}\n\n"
        f"Edits rejected this epoch:\n{_edit_lines(rejected)}\n\n"
        f"Reply with the new body (at most {MAX_BODY_CHARS} characters)."
    )


def meta_skill_request(notes: str, accepted: Sequence[SkillEdit], rejected: Sequence[SkillEdit]) -> str:
    """Ask for short advice on which edits help, for the next epoch's proposals."""
    return (
        "Write short advice for whoever proposes the next edits to a skill document: which kinds of edits raised "
        "the validation score and which lowered it.\n\n"
        f"Earlier advice:\n{notes or '(none)'}\n\nEdits kept:\n{_edit_lines(accepted)}\n\n"
        f"Edits rejected:\n{_edit_lines(rejected)}\n\nReply with at most {MAX_NOTES_CHARS} characters of notes."
    )
