"""Draft skills: after answering, the agent asks once whether its attempt taught a reusable lesson, and proposes
a valid one as ``skills/_drafts/<name>.md`` (``propose_drafts`` in ``agent.config``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from agent_evolve.agents.prompting import shortened
from agent_evolve.contract.skills import Skill, parse_skill, render_skill, validate_skill
from agent_evolve.errors import SkillFormatError
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.llm.errors import StructuredOutputError
from agent_evolve.llm.structured import complete_json
from agent_evolve.types import Task

log = logging.getLogger(__name__)

DRAFT_MAX_TOKENS = 300
DRAFT_CONTEXT_CHARS = 1500
DRAFT_SCHEMA: dict[str, Any] = {"type": "object", "required": ["lesson"], "properties": {
    "lesson": {"type": "boolean"}, "name": {"type": "string"}, "trigger": {"type": "string"},
    "avoid": {"type": "string"}, "guidance": {"type": "string"}}}
_DRAFT_SYSTEM = "You review your own attempt at a task and keep only lessons that generalise to similar tasks."
_DRAFT_ASK = (
    "Did this attempt teach a reusable lesson for similar tasks? If not, reply {\"lesson\": false}. If so, reply "
    "with lesson true, name (2-4 lowercase words joined by hyphens), trigger (when the lesson applies), avoid "
    "(when it does not apply) and guidance (at most 5 short imperative lines)."
)


def propose_draft(client: LLMClient, task: Task, output: str, propose: Callable[[str, str], None]) -> dict[str, Any]:
    """Ask once whether the attempt taught a reusable lesson; hand a valid SKILL.md draft to ``propose`` if so."""
    messages = [
        Message("system", _DRAFT_SYSTEM),
        Message("user", f"Task:\n{shortened(task.input, DRAFT_CONTEXT_CHARS)}\n\nYour answer:\n"
                        f"{shortened(output, DRAFT_CONTEXT_CHARS)}\n\n{_DRAFT_ASK}"),
    ]
    try:
        reply = complete_json(client, messages, DRAFT_SCHEMA, max_tokens=DRAFT_MAX_TOKENS)
    except StructuredOutputError as exc:
        log.info("task %s: no draft skill, the reply was not valid JSON: %s", task.id, exc)
        return {"type": "draft", "status": "unparsed"}
    if not reply.get("lesson"):
        return {"type": "draft", "status": "none"}
    name, text, problems = draft_skill(reply, task.id)
    if problems:
        log.info("task %s: draft skill %r dropped: %s", task.id, name, "; ".join(problems))
        return {"type": "draft", "status": "invalid", "name": name, "problems": problems}
    propose(name, text)
    return {"type": "draft", "status": "proposed", "name": name}


def draft_skill(reply: Mapping[str, Any], task_id: str) -> tuple[str, str, list[str]]:
    """``(name, SKILL.md text, problems)`` for a draft reply; the text is checked with the contract's validator."""
    name = re.sub(r"[^a-z0-9]+", "-", str(reply.get("name", "")).lower()).strip("-")[:64].strip("-")
    trigger = " ".join(str(reply.get("trigger", "")).split()).rstrip(".")
    avoid = " ".join(str(reply.get("avoid", "")).split()).rstrip(".")
    guidance = str(reply.get("guidance", "")).strip()
    missing = [key for key, value in (("trigger", trigger), ("guidance", guidance)) if not value]
    if missing:
        return name, "", [f"the reply has no {key}" for key in missing]
    description = f"TRIGGER when: {trigger}." + (f" DO NOT TRIGGER: {avoid}." if avoid else "")
    text = render_skill(Skill(name, description, guidance + "\n", metadata={"source": "agent-draft",
                                                                            "task_id": str(task_id)}))
    try:
        problems = validate_skill(parse_skill(text), dir_name=name)
    except SkillFormatError as exc:
        problems = [str(exc)]
    return name, text, problems
