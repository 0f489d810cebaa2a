"""Deterministic splits (the external adapters' rule), fraction checks, fenced blocks and the lazy index."""

from __future__ import annotations

import pytest

from agent_evolve.benchmarks.adapters.arc_agi3 import ArcAgi3Benchmark
from agent_evolve.benchmarks.support.common import LazyIndex, fenced_blocks, resolve_path
from agent_evolve.benchmarks.support.splits import split_ids as task_splits
from agent_evolve.errors import ConfigError, UnknownNameError

IDS = [f"task-{n}" for n in range(20)]


def split_ids(ids: list[str], split: str, seed: int, test_fraction: float) -> list[str]:
    """One split of `ids` as the external adapters draw it (at least one id on each side)."""
    return task_splits(ids, seed, test_fraction, both_sides=True).ids(split)


def test_split_is_deterministic_and_partitions() -> None:
    train = split_ids(IDS, "train", seed=0, test_fraction=0.3)
    test = split_ids(IDS, "test", seed=0, test_fraction=0.3)
    assert train == split_ids(list(reversed(IDS)), "train", seed=0, test_fraction=0.3)
    assert len(test) == 6 and len(train) == 14
    assert set(train).isdisjoint(test) and set(train) | set(test) == set(IDS)


def test_split_depends_on_seed() -> None:
    assert split_ids(IDS, "test", 0, 0.3) != split_ids(IDS, "test", 1, 0.3)


def test_tiny_data_still_has_both_splits() -> None:
    assert len(split_ids(["a", "b"], "test", 0, 0.1)) == 1
    assert len(split_ids(["a", "b"], "train", 0, 0.9)) == 1


def test_split_rejects_unknown_split_and_duplicates() -> None:
    with pytest.raises(ConfigError, match="unknown split"):
        split_ids(IDS, "holdout", 0, 0.3)
    with pytest.raises(ConfigError, match="unique"):
        split_ids(["a", "a"], "train", 0, 0.3)


@pytest.mark.parametrize("fraction", [0.0, 1.0])
def test_fraction_checks(fraction: float) -> None:
    with pytest.raises(ConfigError, match="test_fraction must be between 0 and 1"):
        ArcAgi3Benchmark(data_path="unused", test_fraction=fraction)


def test_resolve_path_prefers_argument_then_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AE_TEST_DATA", "/from/env")
    assert resolve_path("/arg", "AE_TEST_DATA") == "/arg"
    assert resolve_path(None, "AE_TEST_DATA") == "/from/env"
    monkeypatch.delenv("AE_TEST_DATA")
    assert resolve_path(None, "AE_TEST_DATA") is None


def test_fenced_blocks_keep_language_and_body() -> None:
    text = "intro\n```diff\n-a\n+b\n```\nmiddle\n```\nplain\n```\n"
    assert fenced_blocks(text) == [("diff", "-a\n+b\n"), ("", "plain\n")]
    assert fenced_blocks("```PY\nx\n```") == [("py", "x\n")]


def test_lazy_index_loads_once_and_names_unknown_ids() -> None:
    calls = []

    def load() -> dict[str, int]:
        calls.append(1)
        return {"x": 1}

    index = LazyIndex(load)
    assert index.get("x", "bench") == 1 and index.value() == {"x": 1} and len(calls) == 1
    with pytest.raises(UnknownNameError, match="bench: no task with id 'y'"):
        index.get("y", "bench")
