"""Ratchet's router (0 or 1 skill per task) and its workspace marker (`skills/_ratchet/router.json`): a small bank
is shown whole, a large one as lexical top-k plus embedding top-k; `routing: retrieval` and `none` skip the model."""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, get_args

from agent_evolve.agents.routing.embedder import Embedder
from agent_evolve.agents.routing.embeddings import EMBEDDERS, cosine, make_embedder
from agent_evolve.agents.routing.router import (BANK_INDEXES_KEPT, BankShortlist, RouteDecision, SkillRouter,
                                                skill_document, united)
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.contract.settings_rules import Rules, check_settings, is_int
from agent_evolve.contract.skill_bank import scan_bank
from agent_evolve.errors import ConfigError
from agent_evolve.llm.base import LLMClient
from agent_evolve.types import SkillMeta

MARKER = "skills/_ratchet/router.json"
EMBED_CHUNK = 512
PROJECTED_DIM = 128
RERANK_FACTOR = 50

Routing = Literal["llm", "retrieval", "none"]
ROUTINGS: tuple[str, ...] = get_args(Routing)
ROUTER_RULES: Rules = {  # the routing keys and their rules (Ratchet's settings check the same keys by these)
    "routing": (lambda v: v in ROUTINGS, "one of " + ", ".join(ROUTINGS)),
    "full_bank_limit": (lambda v: is_int(v) and v >= 0, "a non-negative integer"),
    "shortlist_lexical": (lambda v: is_int(v) and v >= 1, "a positive integer"),
    "shortlist_embedding": (lambda v: is_int(v) and v >= 0, "a non-negative integer"),
    "embedder": (lambda v: isinstance(v, str) and v in EMBEDDERS, "one of " + ", ".join(sorted(EMBEDDERS))),
}


@dataclass(frozen=True)
class RouterConfig:
    """What the reference agent needs to route like Ratchet (written into the workspace by the engine)."""

    routing: Routing = "llm"
    full_bank_limit: int = 20
    shortlist_lexical: int = 10
    shortlist_embedding: int = 10
    embedder: str = "hashing"

    @classmethod
    def from_params(cls, params: Mapping[str, Any], source: str) -> RouterConfig:
        """Validated routing settings from a mapping; ConfigError naming `source` and the key otherwise."""
        check_settings(params, ROUTER_RULES, source, ConfigError)
        return cls(**dict(params))


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
        data = json.loads(read_regular_text(path))
        data.pop("governed_by")
        return RouterConfig.from_params(data, str(path))
    except (ValueError, KeyError, AttributeError, TypeError) as exc:
        raise ConfigError(f"{path}: not a Ratchet router marker ({exc}); delete it or rerun the engine") from None


class _VectorIndex:
    """Unit vectors of one bank's skill documents, embedded in chunks; with numpy a random projection ranks roughly
    and the best `RERANK_FACTOR` x k are re-ranked by exact cosine; without numpy, a plain loop."""

    def __init__(self, embedder: Embedder, documents: Sequence[str]) -> None:
        try:
            self._np: Any = importlib.import_module("numpy")
        except ImportError:
            self._np, self.vectors = None, embedder.embed(list(documents))
            return
        np = self._np
        chunks = [_unit(np, np.asarray(embedder.embed(list(documents[i:i + EMBED_CHUNK])), dtype=np.float32))
                  for i in range(0, len(documents), EMBED_CHUNK)]
        self._matrix = np.concatenate(chunks) if chunks else np.zeros((0, 1), dtype=np.float32)
        width = self._matrix.shape[1]
        self._projection = (np.random.default_rng(0).standard_normal((width, PROJECTED_DIM)).astype(np.float32)
                            if width > PROJECTED_DIM else None)
        self._projected = self._matrix @ self._projection if self._projection is not None else self._matrix

    def top(self, query: list[float], k: int) -> list[int]:
        """The ``k`` documents closest to ``query``, best first (ties: lower index)."""
        if self._np is None:
            ranked = sorted(range(len(self.vectors)), key=lambda i: (-cosine(query, self.vectors[i]), i))
            return ranked[:k]
        np = self._np
        vector = np.asarray(query, dtype=np.float32)
        if self._projection is None:
            return _best(np, _dot(np, self._projected, vector), np.arange(len(self._projected)), k)
        rough = _dot(np, self._projected, _dot(np, self._projection.T, vector))
        pool = np.asarray(_best(np, rough, np.arange(len(rough)), min(len(rough), RERANK_FACTOR * k)))
        return _best(np, _dot(np, self._matrix[pool], vector), pool, k)


def _dot(np: Any, matrix: Any, vector: Any) -> Any:
    """matrix @ vector summed on this thread (BLAS threads thrash on a busy machine)."""
    return np.einsum("ij,j->i", matrix, vector)


def _unit(np: Any, matrix: Any) -> Any:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _best(np: Any, scores: Any, ids: Any, k: int) -> list[int]:
    """The ids of the ``k`` highest scores, best first (ties: lower id)."""
    k = min(k, len(scores))
    if k == 0:
        return []
    best = np.argpartition(-scores, k - 1)[:k]
    return ids[best[np.lexsort((ids[best], -scores[best]))]].tolist()


@functools.lru_cache(maxsize=BANK_INDEXES_KEPT)
def _vector_index(embedder: Embedder, names: tuple[str, ...], descriptions: tuple[str, ...]) -> _VectorIndex:
    """The embedding index of one bank version (its names and descriptions): built once, then reused."""
    return _VectorIndex(embedder, [skill_document(SkillMeta(n, d, "")) for n, d in zip(names, descriptions)])


@functools.lru_cache(maxsize=BANK_INDEXES_KEPT)
def named_embedder(name: str) -> Embedder:
    """One embedder per name for the whole process (the agent's shortlists share it)."""
    return make_embedder(name)


class BankRouter:
    """Ratchet's router over one bank version: its indexes are built once (on first need), reused for every task."""

    def __init__(self, skills: Sequence[SkillMeta], config: RouterConfig, embedder: Embedder | None = None) -> None:
        self.skills, self.config = list(skills), config
        self._embedder = embedder
        self._lexical = BankShortlist(self.skills)
        self._vectors: _VectorIndex | None = None

    def lexical(self, task_text: str, k: int) -> list[SkillMeta]:
        """The ``k`` best tf-idf matches (the shared index of `routing.router`), best first."""
        return [skill for skill, _ in self._lexical.top(task_text, k)]

    def embedded(self, task_text: str, k: int) -> list[SkillMeta]:
        """The ``k`` skills closest in embedding space, best first (two-stage)."""
        embedder = self._embedder or named_embedder(self.config.embedder)
        if self._vectors is None:
            self._vectors = _vector_index(embedder, tuple([s.name for s in self.skills]),
                                          tuple([s.description for s in self.skills]))
        query = embedder.embed([task_text])[0]
        return [self.skills[i] for i in self._vectors.top(query, k)]

    def shortlist(self, task_text: str) -> list[SkillMeta]:
        """What the router model is shown: the whole small bank, else lexical top-k united with embedding top-k."""
        if len(self.skills) <= self.config.full_bank_limit:
            return list(self.skills)
        chosen = self.lexical(task_text, self.config.shortlist_lexical)
        if not self.config.shortlist_embedding:
            return chosen
        return united(chosen, self.embedded(task_text, self.config.shortlist_embedding))

    def route(self, client: LLMClient, task_text: str) -> RouteDecision:
        """Ratchet's routing decision for one task (0 or 1 skill)."""
        if self.config.routing == "none":
            return RouteDecision(None, [], "routing none: no skill is injected (ablation A1)")
        if not self.skills:
            return RouteDecision(None, [], "the skill bank is empty")
        if self.config.routing == "retrieval":
            best = self.lexical(task_text, 1)
            if not best:
                return RouteDecision(None, [], "retrieval routing: no skill shares a term with the task")
            return RouteDecision(best[0].name, [best[0].name], "retrieval routing: the lexical top-1")
        shown = self.shortlist(task_text)
        if not shown:
            return RouteDecision(None, [], f"no skill of {len(self.skills)} is on the shortlist")
        return SkillRouter(client, full_bank_limit=len(shown)).route(task_text, shown)


def routing_surface(description: str, fields: Mapping[str, Any]) -> str:
    """What a skill is routed on besides its name: description, intent, signals, tags and preconditions (the
    README's retriever surface; empty fields dropped)."""
    parts = [description.strip()]
    intent = str(fields.get("intent") or "").strip()
    if intent and intent != description.strip():
        parts.append(f"Intent: {intent}.")
    for key, title in (("signals_match", "Signals"), ("tags", "Tags"), ("preconditions", "Preconditions")):
        items = fields.get(key) or []
        words = [str(item).replace("_", " ").strip() for item in (items if isinstance(items, list) else [items])]
        if any(words):
            parts.append(f"{title}: {', '.join(w for w in words if w)}.")
    return " ".join(p for p in parts if p)


def routing_views(workspace: str | Path, skills: Sequence[SkillMeta]) -> list[SkillMeta]:
    """The skills with their routing surface as description (the router's shortlists and prompt read it)."""
    fields = {entry.folder: entry.skill.metadata.get("ratchet") for entry in scan_bank(Path(workspace))
              if entry.skill is not None}
    return [replace(s, description=routing_surface(s.description, f)) if isinstance(f := fields.get(s.name), dict)
            else s for s in skills]


def workspace_router(workspace: str | Path, skills: Sequence[SkillMeta]) -> BankRouter | None:
    """The router of a workspace Ratchet governs, over its current skills' routing surfaces; None when Ratchet
    does not govern it."""
    config = read_marker(workspace)
    return BankRouter(routing_views(workspace, skills), config) if config is not None else None
