"""Skill selection: a pure-Python tf-idf matcher and Ratchet's router (the model picks one skill or NONE).

Ratchet's defaults: with at most 20 active skills the model sees every skill's name and description; with
more, a tf-idf top-10 shortlist (united with an embedding top-10 when an embedder is given) is shown instead.
Engines can use :class:`SkillRouter` and :func:`match_skills` as well as agents.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from agent_evolve.llm.base import LLMClient, Message
from agent_evolve.types import SkillMeta

Embedder = Callable[[Sequence[str]], Sequence[Sequence[float]]]
"""Maps texts to vectors (e.g. a sentence-transformers model); optional for large banks."""

FULL_BANK_LIMIT = 20
SHORTLIST_SIZE = 10
ROUTER_DESCRIPTION_CHARS = 300
ROUTER_TASK_CHARS = 1500
ROUTER_MAX_TOKENS = 24

_WORD = re.compile(r"[a-z0-9]+")
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_TRIGGER = re.compile(r"TRIGGER\s+when\s*:?\s*(.*?)(?:DO\s+NOT\s+TRIGGER|$)", re.IGNORECASE | re.DOTALL)
_STOPWORDS = frozenset(
    "a an and are as at be by can do does for from has have how i if in into is it its of on or so such that the "
    "their then there these this to was were what when where which while who will with you your not no".split()
)
_ROUTER_SYSTEM = "You choose the one skill that best helps with a task, or NONE when no skill clearly applies."


def tokenize(text: str) -> list[str]:
    """Lowercase word tokens without stopwords; a trailing plural 's' is dropped so 'units' matches 'unit'."""
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


def trigger_text(description: str) -> str:
    """The "TRIGGER when: ..." part of a skill description, or the whole description when it has none."""
    found = _TRIGGER.search(description)
    text = found.group(1).strip() if found else ""
    return text or description


def skill_document(skill: SkillMeta) -> str:
    """What a task is matched against: the skill's name words and the trigger part of its description."""
    return f"{skill.name.replace('-', ' ')} {trigger_text(skill.description)}"


class TfIdfIndex:
    """Cosine similarity of smoothed tf-idf vectors over a fixed set of documents."""

    def __init__(self, documents: Sequence[str]) -> None:
        counts = [Counter(tokenize(doc)) for doc in documents]
        frequency: Counter[str] = Counter(term for c in counts for term in c)
        n = len(documents)
        self._idf = {term: math.log((1 + n) / (1 + df)) + 1.0 for term, df in frequency.items()}
        self._vectors = [self._vector(c) for c in counts]

    def _vector(self, counts: Counter[str]) -> dict[str, float]:
        total = sum(counts.values()) or 1
        vector = {t: (c / total) * self._idf[t] for t, c in counts.items() if t in self._idf}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {t: v / norm for t, v in vector.items()}

    def scores(self, query: str) -> list[float]:
        """The similarity of ``query`` to each document, in document order."""
        q = self._vector(Counter(tokenize(query)))
        return [sum(w * doc.get(t, 0.0) for t, w in q.items()) for doc in self._vectors]

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` ``(document index, score)`` pairs with a positive score, best first (ties: lower index)."""
        ranked = sorted(enumerate(self.scores(query)), key=lambda pair: (-pair[1], pair[0]))
        return [(i, s) for i, s in ranked[:k] if s > 0.0]


def match_skills(task_text: str, skills: Sequence[SkillMeta], k: int) -> list[tuple[SkillMeta, float]]:
    """The ``k`` skills whose name and trigger best overlap the task (tf-idf cosine > 0), best first."""
    if not skills or k < 1:
        return []
    index = TfIdfIndex([skill_document(s) for s in skills])
    return [(skills[i], round(score, 4)) for i, score in index.top(task_text, k)]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two dense vectors (0 when either is zero)."""
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def embedding_top(
    embedder: Embedder, task_text: str, skills: Sequence[SkillMeta], k: int
) -> list[SkillMeta]:
    """The ``k`` skills whose embedded document is closest to the embedded task, best first."""
    vectors = list(embedder([task_text, *(skill_document(s) for s in skills)]))
    query, docs = vectors[0], vectors[1:]
    ranked = sorted(range(len(skills)), key=lambda i: (-_cosine(query, docs[i]), i))
    return [skills[i] for i in ranked[:k]]


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


class SkillRouter:
    """Ratchet's router: one model call that picks 0 or 1 skill for a task from the active bank."""

    def __init__(
        self,
        client: LLMClient,
        *,
        full_bank_limit: int = FULL_BANK_LIMIT,
        shortlist_size: int = SHORTLIST_SIZE,
        embedder: Embedder | None = None,
        max_tokens: int = ROUTER_MAX_TOKENS,
    ) -> None:
        self.client = client
        self.full_bank_limit = full_bank_limit
        self.shortlist_size = shortlist_size
        self.embedder = embedder
        self.max_tokens = max_tokens

    def candidates(self, task_text: str, skills: Sequence[SkillMeta]) -> list[SkillMeta]:
        """Every skill of a small bank; for a large one the tf-idf shortlist united with the embedding one."""
        if len(skills) <= self.full_bank_limit:
            return list(skills)
        chosen = [skill for skill, _ in match_skills(task_text, skills, self.shortlist_size)]
        if self.embedder is not None:
            seen = {s.name for s in chosen}
            chosen += [s for s in embedding_top(self.embedder, task_text, skills, self.shortlist_size)
                       if s.name not in seen]
        return chosen

    def route(self, task_text: str, skills: Sequence[SkillMeta]) -> RouteDecision:
        """Pick one skill name or None; no model call when the bank or the shortlist is empty."""
        if not skills:
            return RouteDecision(None, [], "the skill bank is empty")
        shown = self.candidates(task_text, skills)
        if not shown:
            return RouteDecision(None, [], f"no skill of {len(skills)} shares a term with the task")
        names = [s.name for s in shown]
        reply = self.client.complete(self.messages(task_text, shown), max_tokens=self.max_tokens).text
        skill, reason = parse_choice(reply, names)
        return RouteDecision(skill, names, reason, reply.strip()[:200])

    @staticmethod
    def messages(task_text: str, skills: Sequence[SkillMeta]) -> list[Message]:
        """The routing prompt: the task (shortened), each candidate's name and description, the answer form."""
        task = task_text if len(task_text) <= ROUTER_TASK_CHARS else task_text[:ROUTER_TASK_CHARS] + " ..."
        lines = "\n".join(f"- {s.name}: {_shorten(s.description, ROUTER_DESCRIPTION_CHARS)}" for s in skills)
        user = (
            f"Task:\n{task}\n\nSkills:\n{lines}\n\n"
            "Which one skill helps most with this task? Reply with only its name, or NONE if none clearly applies."
        )
        return [Message("system", _ROUTER_SYSTEM), Message("user", user)]


def _shorten(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters, so a large bank still fits a 4k context."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
