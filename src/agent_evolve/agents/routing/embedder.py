"""The embedding protocol Ratchet's canonicalisation, cover guard, dedup and router shortlist rely on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["Embedder", "Vector"]

Vector = Sequence[float]


class Embedder(Protocol):
    """Texts to vectors of one fixed dimension, comparable across calls; similar texts have a high cosine."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order (an empty list for no texts)."""
        ...

    def similarity(self, a: Vector, b: Vector) -> float:
        """The cosine of two vectors this embedder produced (0 when either is zero)."""
        ...
