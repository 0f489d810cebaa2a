"""Text shared by agents, engines and adapters: one tokeniser, one stop-word list, tf-idf and its index; `fences` holds
the code-fence patterns."""

from __future__ import annotations

from agent_evolve.text.index import TfIdfIndex
from agent_evolve.text.tfidf import STOP_WORDS, ascii_words, cosine, terms, text_similarity, tfidf_vectors, words

__all__ = ["STOP_WORDS", "TfIdfIndex", "ascii_words", "cosine", "terms", "text_similarity", "tfidf_vectors", "words"]
