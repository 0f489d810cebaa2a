"""Ratchet's router: 0 or 1 skill per task, and the workspace marker that makes the reference agent use it.

With at most `full_bank_limit` active skills the model sees them all; above, the shortlist is the lexical top-k
(the shared tf-idf index of `agents.router`, built once per bank version) united with an embedding top-k (an
index of the skills' vectors, also built once per bank version), and the model picks one or says NONE.
`routing: retrieval` (ablation A2) takes the shortlist's best without a model call; `routing: none` (A1) never
injects. A workspace governed by Ratchet carries `skills/_ratchet/router.json` (ignored as a skill folder,
versioned with the bank); the reference agent routes through :func:`route` when it is there.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agent_evolve.agents.router import RouteDecision, SkillRouter, match_skills, skill_document
from agent_evolve.algorithms.ratchet.embedder import Embedder
from agent_evolve.algorithms.ratchet.embeddings import cosine, make_embedder
from agent_evolve.algorithms.ratchet.settings import RatchetSettings, Routing
from agent_evolve.errors import ConfigError
from agent_evolve.llm.base import LLMClient
from agent_evolve.types import SkillMeta

MARKER = "skills/_ratchet/router.json"
INDEXES_KEPT = 4


@dataclass(frozen=True)
class RouterConfig:
    """What the reference agent needs to route like Ratchet (written into the workspace by the engine)."""

    routing: Routing = "llm"
    full_bank_limit: int = 20
    shortlist_lexical: int = 10
    shortlist_embedding: int = 10
    embedder: str = "hashing"

    @classmethod
    def from_settings(cls, settings: RatchetSettings) -> RouterConfig:
        return cls(settings.routing, settings.full_bank_limit, settings.shortlist_lexical,
                   settings.shortlist_embedding, settings.embedder)


def write_marker(workspace: str | Path, config: RouterConfig) -> None:
    """Mark the workspace as governed by Ratchet, with its routing settings."""
    path = Path(workspace) / MARKER
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"governed_by": "ratchet", **asdict(config)}, indent=1) + "\n", encoding="utf-8")


def read_marker(workspace: str | Path) -> RouterConfig | None:
    """The workspace's Ratchet routing settings, or None when Ratchet does not govern it."""
    path = Path(workspace) / MARKER
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data.pop("governed_by")
        settings = RatchetSettings.from_params(data, str(path))
    except (ValueError, KeyError, AttributeError, TypeError) as exc:
        raise ConfigError(f"{path}: not a Ratchet router marker ({exc}); delete it or rerun the engine") from None
    return RouterConfig.from_settings(settings)


class _VectorIndex:
    """Unit vectors of one bank's skill documents; a query is one matrix product (numpy) or a loop without it."""

    def __init__(self, vectors: list[list[float]]) -> None:
        self.vectors = vectors
        try:
            np: Any = importlib.import_module("numpy")
        except ImportError:
            self._matrix = None
            return
        matrix = np.asarray(vectors, dtype=float)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self._np, self._matrix = np, matrix / np.where(norms == 0, 1.0, norms)

    def top(self, query: list[float], k: int) -> list[int]:
        if self._matrix is None:
            ranked = sorted(range(len(self.vectors)), key=lambda i: (-cosine(query, self.vectors[i]), i))
            return ranked[:k]
        np = self._np
        scores = self._matrix @ np.asarray(query, dtype=float)
        k = min(k, len(scores))
        best = np.argpartition(-scores, k - 1)[:k]
        return best[np.lexsort((best, -scores[best]))].tolist()


@functools.lru_cache(maxsize=INDEXES_KEPT)
def _vector_index(embedder: Embedder, documents: tuple[str, ...]) -> _VectorIndex:
    return _VectorIndex(embedder.embed(list(documents)))


def shortlist(task_text: str, skills: Sequence[SkillMeta], config: RouterConfig,
              embedder: Embedder | None = None) -> list[SkillMeta]:
    """What the router model is shown: every skill of a small bank, else lexical top-k united with embedding top-k."""
    if len(skills) <= config.full_bank_limit:
        return list(skills)
    chosen = [s for s, _ in match_skills(task_text, skills, config.shortlist_lexical)]
    if embedder is not None and config.shortlist_embedding:
        index = _vector_index(embedder, tuple(skill_document(s) for s in skills))
        seen = {s.name for s in chosen}
        query = embedder.embed([task_text])[0]
        chosen += [skills[i] for i in index.top(query, config.shortlist_embedding) if skills[i].name not in seen]
    return chosen


@functools.lru_cache(maxsize=INDEXES_KEPT)
def named_embedder(name: str) -> Embedder:
    """One embedder per name for the whole process (the agent's shortlists share it)."""
    return make_embedder(name)


def route(client: LLMClient, task_text: str, skills: Sequence[SkillMeta], config: RouterConfig,
          embedder: Embedder | None = None) -> RouteDecision:
    """Ratchet's routing decision for one task (0 or 1 skill); the marker's embedder unless one is given."""
    if config.routing == "none":
        return RouteDecision(None, [], "routing none: no skill is injected (ablation A1)")
    if not skills:
        return RouteDecision(None, [], "the skill bank is empty")
    if config.routing == "retrieval":
        best = match_skills(task_text, skills, 1)
        if not best:
            return RouteDecision(None, [], "retrieval routing: no skill shares a term with the task")
        return RouteDecision(best[0][0].name, [best[0][0].name], f"retrieval routing: lexical top-1 ({best[0][1]})")
    if embedder is None and len(skills) > config.full_bank_limit and config.shortlist_embedding:
        embedder = named_embedder(config.embedder)
    shown = shortlist(task_text, skills, config, embedder)
    if not shown:
        return RouteDecision(None, [], f"no skill of {len(skills)} is on the shortlist")
    router = SkillRouter(client, full_bank_limit=len(shown))
    return router.route(task_text, shown)
