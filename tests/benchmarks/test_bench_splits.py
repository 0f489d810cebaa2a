"""Deterministic splits and subset files."""

from __future__ import annotations

import json
import random

import pytest

from agent_evolve.benchmarks.support.splits import (
    TaskSplits,
    apply_subset,
    load_subset,
    split_ids,
    write_subset,
)
from agent_evolve.errors import ConfigError
from agent_evolve.task_order import stable_key

IDS = [f"task-{i}" for i in range(100)]


def test_split_is_disjoint_complete_and_sized() -> None:
    splits = split_ids(IDS, seed=0, test_fraction=0.3)
    assert set(splits.train).isdisjoint(splits.test)
    assert set(splits.train) | set(splits.test) == set(IDS)
    assert len(splits.test) == 30


def test_split_is_deterministic_and_independent_of_input_order() -> None:
    shuffled = list(IDS)
    random.Random(5).shuffle(shuffled)
    assert split_ids(IDS, 3, 0.5) == split_ids(IDS, 3, 0.5) == split_ids(shuffled, 3, 0.5)


def test_split_differs_across_seeds() -> None:
    assert set(split_ids(IDS, 0, 0.5).test) != set(split_ids(IDS, 1, 0.5).test)


def test_split_is_pinned_across_machines_and_pythons() -> None:
    # sha256 of "seed\0id": recorded once, the same on every machine, unlike hash() or random's algorithms
    assert stable_key(0, "a") == "5f1aa0c8dad9dc73c81e59f42198cf11c442fddd07f43065fcb236d9f3754071"
    splits = split_ids(list("abcdefghij"), seed=0, test_fraction=0.3)
    assert splits == TaskSplits(train=("e", "h", "a", "i", "g", "b", "j"), test=("f", "d", "c"))


def test_fixed_splits_are_kept_and_fraction_applies_to_the_rest() -> None:
    fixed = {"task-0": "test", "task-1": "train"}
    splits = split_ids(IDS, 0, 0.5, fixed)
    assert "task-0" in splits.test and "task-1" in splits.train
    assert len(splits.test) == 1 + round(98 * 0.5)


@pytest.mark.parametrize("fraction", [-0.1, 1.5])
def test_bad_fraction_is_rejected(fraction: float) -> None:
    with pytest.raises(ConfigError, match="test_fraction"):
        split_ids(IDS, 0, fraction)


def test_duplicate_ids_and_bad_fixed_split_are_rejected() -> None:
    with pytest.raises(ConfigError, match="unique"):
        split_ids(["a", "a"], 0, 0.5)
    with pytest.raises(ConfigError, match="holdout"):
        split_ids(["a", "b"], 0, 0.5, {"a": "holdout"})


def test_ids_limit_and_unknown_split() -> None:
    splits = split_ids(IDS, 0, 0.5)
    assert splits.ids("train", 3) == list(splits.train[:3])
    assert splits.ids("test", None) == list(splits.test)
    assert splits.ids("train", 0) == []
    with pytest.raises(ConfigError, match="unknown split"):
        splits.ids("holdout")
    with pytest.raises(ConfigError, match="limit"):
        splits.ids("train", -1)


def test_subset_round_trip_and_application(tmp_path) -> None:
    splits = split_ids(IDS, 0, 0.5)
    chosen = {"train": [splits.train[4], splits.train[1]], "test": [splits.test[0]], "meta": {"k": 3}}
    path = write_subset(tmp_path / "sub" / "hard.json", chosen)
    assert load_subset(path) == chosen
    narrowed = apply_subset(splits, path)
    assert narrowed.train == (splits.train[4], splits.train[1])
    assert narrowed.test == (splits.test[0],)
    assert apply_subset(splits, None) is splits


def test_write_subset_accepts_the_json_form(tmp_path) -> None:
    path = write_subset(tmp_path / "s.json", {"train": ["a"], "test": ["b"], "meta": {"seed": 1}})
    assert json.loads(path.read_text()) == {"train": ["a"], "test": ["b"], "meta": {"seed": 1}}


def test_subset_errors_name_the_file(tmp_path) -> None:
    splits = split_ids(IDS, 0, 0.5)
    missing = tmp_path / "missing.json"
    with pytest.raises(ConfigError, match=r"missing\.json"):
        apply_subset(splits, missing)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match=r"bad\.json.*not valid JSON"):
        apply_subset(splits, bad)
    bad.write_bytes(b'{"train": ["\xff"]}')
    with pytest.raises(ConfigError, match=r"bad\.json: not UTF-8"):
        apply_subset(splits, bad)
    unknown = write_subset(tmp_path / "unknown.json", {"train": ["nope"], "test": []})
    with pytest.raises(ConfigError, match=r"unknown\.json.*unknown task ids.*nope"):
        apply_subset(splits, unknown)
    both = write_subset(tmp_path / "both.json", {"train": ["task-1"], "test": ["task-1"]})
    with pytest.raises(ConfigError, match="both train and test"):
        apply_subset(splits, both)
    wrong_type = tmp_path / "wrong.json"
    wrong_type.write_text(json.dumps({"train": "task-1"}))
    with pytest.raises(ConfigError, match=r"wrong\.json.*list of task id strings"):
        apply_subset(splits, wrong_type)
