"""The one similarity module: tokens, stop words, tf-idf vectors, cosine, and the inverted index's ranking."""

from __future__ import annotations

import math
import random

import pytest

from agent_evolve.text import STOP_WORDS, TfIdfIndex, cosine, terms, text_similarity, tfidf_vectors, words


def test_words_keep_everything_and_terms_keep_content() -> None:
    assert words("The Units of the hours, 2x!") == ["the", "units", "of", "the", "hours", "2x"]
    assert terms("The Units of the hours!") == ["unit", "hour"]
    assert terms("class glass bus") == ["class", "glass", "bus"], "'ss' and short words keep their s"
    assert {"the", "which", "would", "those"} <= STOP_WORDS and "unit" not in STOP_WORDS


def test_words_of_other_scripts_keep_their_letters_and_marks() -> None:
    assert words("Привет, мир! café naïve") == ["привет", "мир", "café", "naïve"]
    assert words("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"], "Devanagari vowel signs stay in their word"
    assert words("苹果价格 x2") == ["苹果", "果价", "价格", "x2"], "Han text has no spaces: character pairs"
    assert words("東") == ["東"]


def test_questions_in_scripts_without_spaces_are_similar_when_they_share_words() -> None:
    assert text_similarity("一个苹果多少钱", "三个苹果多少钱") > 0.5
    assert text_similarity("一个苹果多少钱", "火车几点出发") == 0.0
    assert text_similarity("Сколько стоит яблоко", "яблоко стоит") > 0.5


def test_tfidf_vectors_use_the_smoothed_idf_and_are_normalised() -> None:
    a, b = tfidf_vectors(["apple apple pear", "pear"])
    idf_apple, idf_pear = math.log(3 / 2) + 1, 1.0
    norm = math.hypot(2 * idf_apple, idf_pear)
    assert a == pytest.approx({"apple": 2 * idf_apple / norm, "pear": idf_pear / norm})
    assert b == {"pear": 1.0}
    assert cosine(a, b) == pytest.approx(idf_pear / norm)


def test_text_similarity_bounds() -> None:
    assert text_similarity("convert hours to minutes", "convert hours to minutes") == pytest.approx(1.0)
    assert text_similarity("apples and pears", "sorting lists") == 0.0
    assert 0.0 < text_similarity("sort a list of numbers", "sort a list of names") < 1.0


BOTH_PATHS = pytest.mark.parametrize("vectorised", [True, False], ids=["sklearn", "python"])


@BOTH_PATHS
def test_index_ranks_by_overlap_and_skips_unrelated_documents(vectorised: bool) -> None:
    index = TfIdfIndex(["apples and pears", "hours minutes units", "sorting lists"], vectorised=vectorised)
    assert [i for i, _ in index.top("convert 3 hours to minutes", 3)] == [1]
    assert index.top("nothing shared", 3) == []
    assert index.scores("pears")[1:] == [0.0, 0.0] and index.scores("pears")[0] > 0.0


@BOTH_PATHS
def test_ties_go_to_the_lower_index(vectorised: bool) -> None:
    index = TfIdfIndex([f"word{i} shared" for i in range(6)] + ["shared"], vectorised=vectorised)
    assert [i for i, _ in index.top("shared", 4)] == [6, 0, 1, 2]


def brute_force_scores(docs: list[str], query: str) -> list[float]:
    """Cosine of dense smoothed tf-idf vectors over the documents' vocabulary, written out from the formula."""
    vocabulary = sorted({w for d in docs for w in d.split()})
    n = len(docs)
    idf = {t: math.log((1 + n) / (1 + sum(t in d.split() for d in docs))) + 1 for t in vocabulary}

    def dense(text: str) -> list[float]:
        vector = [text.split().count(t) * idf[t] for t in vocabulary]
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    q = dense(query)
    return [sum(x * y for x, y in zip(q, dense(d))) for d in docs]


@BOTH_PATHS
def test_index_scores_equal_the_brute_force_cosine(vectorised: bool) -> None:
    rng = random.Random(7)
    vocabulary = [f"term{i}" for i in range(40)]
    docs = [" ".join(rng.choices(vocabulary, k=rng.randint(1, 12))) for _ in range(60)]
    query = " ".join(rng.choices(vocabulary, k=8)) + " unseen"
    expected = brute_force_scores(docs, query)
    index = TfIdfIndex(docs, analyzer=words, vectorised=vectorised)
    assert index.scores(query) == pytest.approx(expected)
    ranked = [i for i in sorted(range(60), key=lambda i: (-expected[i], i)) if expected[i] > 0][:5]
    assert [i for i, _ in index.top(query, 5)] == ranked


def test_both_paths_give_the_same_numbers() -> None:
    rng = random.Random(3)
    vocabulary = [f"w{i}" for i in range(300)]
    docs = [" ".join(rng.choices(vocabulary, k=rng.randint(3, 30))) for _ in range(500)]
    fast, plain = TfIdfIndex(docs), TfIdfIndex(docs, vectorised=False)
    assert fast._vectorizer is not None and plain._vectorizer is None, "the sklearn path is the one under test"
    for _ in range(20):
        query = " ".join(rng.choices(vocabulary, k=40))
        fast_top, plain_top = fast.top(query, 10), plain.top(query, 10)
        assert [i for i, _ in fast_top] == [i for i, _ in plain_top]
        assert [s for _, s in fast_top] == pytest.approx([s for _, s in plain_top], rel=1e-12)
        found, expected = fast.matches(query), plain.matches(query)
        assert found.keys() == expected.keys()
        assert [found[i] for i in expected] == pytest.approx(list(expected.values()), rel=1e-12)


def test_documents_without_any_term_match_nothing() -> None:
    index = TfIdfIndex(["the of", "and"])
    assert index.top("the apples", 3) == [] and index.scores("apples") == [0.0, 0.0]
    assert TfIdfIndex([]).top("apples", 3) == []
