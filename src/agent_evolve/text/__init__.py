"""Text shared by agents, engines and adapters: one tokeniser, one stop-word list, tf-idf and its index; `fences` holds
the code-fence patterns."""

from __future__ import annotations

from agent_evolve.text.index import TfIdfIndex
from agent_evolve.text.tfidf import cosine, text_similarity, tfidf_vectors
from agent_evolve.text.tokens import STOP_WORDS, terms, words

__all__ = ["STOP_WORDS", "TfIdfIndex", "cosine", "terms", "text_similarity", "tfidf_vectors", "words"]
