"""Skill selection: a tf-idf matcher and Ratchet's router (the model picks one skill or NONE). With at most 20
skills the model sees them all, else a tf-idf top-10 (`routing.bank` adds an embedding top-10)."""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Sequence
from dataclasses import KW_ONLY, asdict, dataclass, field
from typing import Any

from agent_evolve.agents.prompting import one_line, shortened
from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.text import TfIdfIndex
from agent_evolve.types import SkillMeta

FULL_BANK_LIMIT = 20
SHORTLIST_SIZE = 10
ROUTER_DESCRIPTION_CHARS = 300
ROUTER_TASK_CHARS = 1500
ROUTER_MAX_TOKENS = 24
BANK_INDEXES_KEPT = 4

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_TRIGGER = re.compile(r"TRIGGER\s+when\s*:?\s*(.*?)(?:DO\s+NOT\s+TRIGGER|$)", re.IGNORECASE | re.DOTALL)
_ROUTER_SYSTEM = "You choose the one skill that best helps with a task, or NONE when no skill clearly applies."


def trigger_text(description: str) -> str:
    """The "TRIGGER when: ..." part of a skill description, or the whole description when it has none."""
    found = _TRIGGER.search(description)
    text = found.group(1).strip() if found else ""
    return text or description


def skill_document(skill: SkillMeta) -> str:
    """What a task is matched against: the skill's name words and the trigger part of its description."""
    return f"{skill.name.replace('-', ' ')} {trigger_text(skill.description)}"


@functools.lru_cache(maxsize=BANK_INDEXES_KEPT)
def _bank_index(names: tuple[str, ...], descriptions: tuple[str, ...]) -> TfIdfIndex:
    """The shortlist index of one bank version, given by its names and descriptions; built once, then reused."""
    return TfIdfIndex([skill_document(SkillMeta(n, d, "")) for n, d in zip(names, descriptions)])


def bank_index(skills: Sequence[SkillMeta]) -> TfIdfIndex:
    """The tf-idf index over ``skills``' documents, shared by every call with the same names and descriptions."""
    return _bank_index(tuple([s.name for s in skills]), tuple([s.description for s in skills]))


class BankShortlist:
    """One bank version's shortlist, its index found on the first query and kept (an agent makes one per reload,
    so no task pays for hashing the bank to find the cached index)."""

    def __init__(self, skills: Sequence[SkillMeta]) -> None:
        self.skills = list(skills)
        self._index: TfIdfIndex | None = None
        self._lock = threading.Lock()

    def index(self) -> TfIdfIndex:
        """The bank's tf-idf index (shared with every holder of the same names and descriptions)."""
        with self._lock:
            if self._index is None:
                self._index = bank_index(self.skills)
            return self._index

    def top(self, task_text: str, k: int) -> list[tuple[SkillMeta, float]]:
        """The ``k`` skills whose name and trigger best overlap the task (tf-idf cosine > 0), best first."""
        if not self.skills or k < 1:
            return []
        return [(self.skills[i], round(score, 4)) for i, score in self.index().top(task_text, k)]


def match_skills(task_text: str, skills: Sequence[SkillMeta], k: int) -> list[tuple[SkillMeta, float]]:
    """The ``k`` skills whose name and trigger best overlap the task (tf-idf cosine > 0), best first."""
    return BankShortlist(skills).top(task_text, k)


def united(first: list[SkillMeta], more: Sequence[SkillMeta]) -> list[SkillMeta]:
    """A shortlist: `first`, then the skills of `more` not already in it."""
    seen = {s.name for s in first}
    return first + [s for s in more if s.name not in seen]


@dataclass
class RouteDecision:
    """The router's choice: a skill name or None, the names the model was shown, and why."""

    skill: str | None
    candidates: list[str] = field(default_factory=list)
    reason: str = ""
    reply: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy for trajectories and ledgers."""
        return asdict(self)


def parse_choice(reply: str, names: Sequence[str]) -> tuple[str | None, str]:
    """The skill a reply names (the earliest mention of a candidate or of NONE) and a one-line reason."""
    text = _THINK.sub("", reply).lower()
    hits: list[tuple[int, int, str | None]] = []
    for rank, name in enumerate(names):
        found = re.search(rf"(?<![a-z0-9-]){re.escape(name.lower())}(?![a-z0-9-])", text)
        if found:
            hits.append((found.start(), rank, name))
    none = re.search(r"(?<![a-z0-9-])none(?![a-z0-9-])", text)
    if none:
        hits.append((none.start(), len(names), None))
    if not hits:
        return None, "the reply names no listed skill; treated as NONE"
    _, _, choice = min(hits)
    return choice, "the model chose NONE" if choice is None else "the model chose this skill"


@dataclass
class SkillRouter:
    """Ratchet's router: one model call that picks 0 or 1 skill for a task from the active bank."""

    client: LLMClient
    _: KW_ONLY
    full_bank_limit: int = FULL_BANK_LIMIT
    shortlist_size: int = SHORTLIST_SIZE
    max_tokens: int = ROUTER_MAX_TOKENS

    def candidates(self, task_text: str, skills: Sequence[SkillMeta],
                   shortlist: BankShortlist | None = None) -> list[SkillMeta]:
        """Every skill of a small bank; for a large one the tf-idf shortlist (``shortlist``: the bank's, kept by
        its holder); Ratchet's `BankRouter` adds an embedding shortlist before it asks this router."""
        if len(skills) <= self.full_bank_limit:
            return list(skills)
        return [skill for skill, _ in (shortlist or BankShortlist(skills)).top(task_text, self.shortlist_size)]

    def route(
        self, task_text: str, skills: Sequence[SkillMeta], shortlist: BankShortlist | None = None
    ) -> RouteDecision:
        """Pick one skill name or None; no model call when the bank or the shortlist is empty."""
        if not skills:
            return RouteDecision(None, [], "the skill bank is empty")
        shown = self.candidates(task_text, skills, shortlist)
        if not shown:
            return RouteDecision(None, [], f"no skill of {len(skills)} shares a term with the task")
        names = [s.name for s in shown]
        reply = self.client.complete(self.messages(task_text, shown), max_tokens=self.max_tokens).text
        skill, reason = parse_choice(reply, names)
        return RouteDecision(skill, names, reason, reply.strip()[:200])

    @staticmethod
    def messages(task_text: str, skills: Sequence[SkillMeta]) -> list[Message]:
        """The routing prompt: the task (shortened), each candidate's name and description, the answer form."""
        task = shortened(task_text, ROUTER_TASK_CHARS)
        lines = "\n".join(f"- {s.name}: {one_line(s.description, ROUTER_DESCRIPTION_CHARS)}" for s in skills)
        user = (
            f"Task:\n{task}\n\nSkills:\n{lines}\n\n"
            "Which one skill helps most with this task? Reply with only its name, or NONE if none clearly applies."
        )
        return [Message("system", _ROUTER_SYSTEM), Message("user", user)]
