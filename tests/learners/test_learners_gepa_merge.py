"""GEPA's merge of two Pareto parents: ancestors, the triplet and component choice, the subsample and the keep rule
as pure functions (checked against the gepa library on the same inputs), and a scripted run where a merge is kept."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from learner_fakes import AlternatingBenchmark, KeywordAgent, add_skill, keyword_per_component, make_workspace

import agent_evolve as ae
from agent_evolve.algorithms.candidates import Candidate
from agent_evolve.algorithms.gepa import GepaEngine
from agent_evolve.algorithms.gepa.merge import (
    ancestors,
    decide_merge,
    find_merge_triplet,
    merge_components,
    merge_subsample,
    plan_merge,
)
from agent_evolve.algorithms.gepa.scores import LEDGER_NAME
from agent_evolve.testing import ScriptedLLM

# s0 -> a (changed the prompt), s0 -> b (changed the skill), a -> c (changed both); m merged a and b.
FILES = {
    "s0": {"prompt": "base", "skill": "notes"},
    "a": {"prompt": "base k0", "skill": "notes"},
    "b": {"prompt": "base", "skill": "notes k1"},
    "c": {"prompt": "base k0 x", "skill": "notes y"},
}
LINEAGE = {"a": ["s0"], "b": ["s0"], "c": ["a"], "m": ["a", "b"]}
AGG = {"s0": 0.0, "a": 0.5, "b": 0.4, "c": 0.6}
ORDER = ["s0", "a", "b", "c"]


def test_ancestors_follow_every_parent() -> None:
    assert ancestors(LINEAGE, "c") == {"a", "s0"}
    assert ancestors(LINEAGE, "m") == {"a", "b", "s0"}
    assert ancestors(LINEAGE, "s0") == set()


def test_a_triplet_needs_unrelated_parents_a_weaker_common_ancestor_and_a_component_to_take() -> None:
    rng = random.Random(0)
    assert find_merge_triplet(rng, LINEAGE, ["a", "b"], set(), AGG, FILES, ORDER) == ("a", "b", "s0")
    assert find_merge_triplet(rng, LINEAGE, ["a", "c"], set(), AGG, FILES, ORDER) is None      # a is c's parent
    assert find_merge_triplet(rng, LINEAGE, ["a", "b"], {("a", "b", "s0")}, AGG, FILES, ORDER) is None
    assert find_merge_triplet(rng, LINEAGE, ["a", "b"], set(), {**AGG, "s0": 0.45}, FILES, ORDER) is None
    same = {**FILES, "b": dict(FILES["a"])}                        # nothing one kept and the other changed
    assert find_merge_triplet(rng, LINEAGE, ["a", "b"], set(), AGG, same, ORDER) is None


def test_each_component_comes_from_the_parent_that_changed_it() -> None:
    merged, sources = merge_components(FILES, ("a", "b", "s0"), AGG, random.Random(0))
    assert merged == {"prompt": "base k0", "skill": "notes k1"} and sources == ("a", "b")
    both = {**FILES, "b": {"prompt": "base k9", "skill": "notes"}}   # both changed the prompt: the better mean wins
    assert merge_components(both, ("a", "b", "s0"), AGG, random.Random(0))[0]["prompt"] == "base k0"
    assert merge_components(both, ("a", "b", "s0"), {**AGG, "b": 0.9}, random.Random(0))[0]["prompt"] == "base k9"


def test_a_merge_is_not_made_twice() -> None:
    rng = random.Random(0)
    plan = plan_merge(rng, LINEAGE, ["a", "b"], set(), set(), AGG, FILES, ORDER)
    assert plan is not None and (plan.a, plan.b, plan.ancestor, plan.sources) == ("a", "b", "s0", ("a", "b"))
    assert plan_merge(rng, LINEAGE, ["a", "b"], {("a", "b", "s0")}, set(), AGG, FILES, ORDER) is None
    assert plan_merge(rng, LINEAGE, ["a", "b"], set(), {("a", "b", ("a", "b"))}, AGG, FILES, ORDER) is None
    assert plan_merge(rng, LINEAGE, ["a", "b"], set(), set(), AGG, FILES, ORDER, lambda x, y: False) is None
    assert plan_merge(rng, LINEAGE, ["a", "b"], set(), set(), AGG, FILES, ORDER[:2]) is None   # under 3 candidates


def test_the_subsample_takes_tasks_where_each_parent_wins_and_ties() -> None:
    a = {"t1": 1.0, "t2": 1.0, "t3": 0.0, "t4": 0.0, "t5": 1.0, "t6": 0.0}
    b = {"t1": 0.0, "t2": 0.0, "t3": 1.0, "t4": 1.0, "t5": 1.0, "t6": 0.0}
    chosen = merge_subsample(a, b, random.Random(0), size=5)
    assert len(chosen) == 5 and len(set(chosen)) == 5
    assert {"t1", "t2"} & set(chosen) and {"t3", "t4"} & set(chosen) and {"t5", "t6"} & set(chosen)
    assert sorted(merge_subsample({"t1": 1.0}, {"t1": 0.0}, random.Random(0), size=3)) == ["t1", "t1", "t1"]


def test_a_merged_child_is_kept_when_it_matches_the_better_parent() -> None:
    a, b = {"t1": 1.0, "t2": 0.0}, {"t1": 0.0, "t2": 0.0}
    assert decide_merge(a, b, {"t1": 0.0, "t2": 1.0}, ["t1", "t2"]).accept         # a tie with the better parent
    lower = decide_merge(a, b, {"t1": 0.0, "t2": 0.0}, ["t1", "t2"])
    assert not lower.accept and (lower.parent_sum, lower.child_sum) == (1.0, 0.0)


@pytest.mark.parametrize("seed", range(6))
def test_the_merge_matches_the_gepa_library_on_the_same_inputs(seed: int) -> None:
    merge = pytest.importorskip("gepa.proposer.merge")
    ids = ["s0", "a", "b", "c", "d"]
    files = {**FILES, "d": {"prompt": "base", "skill": "notes z"}}
    agg = {**AGG, "s0": 0.1, "d": 0.3}   # the library cannot draw an ancestor when all weights are 0
    lineage = {"a": ["s0"], "b": ["s0"], "c": ["a"], "d": ["b"]}
    candidates = ["a", "b", "c", "d"]
    theirs = merge.sample_and_attempt_merge_programs_by_common_predictors(
        agg_scores=[agg[i] for i in ids], rng=random.Random(seed), merge_candidates=[ids.index(c) for c in candidates],
        merges_performed=([], []), program_candidates=[files[i] for i in ids],
        parent_program_for_candidate=[[ids.index(p) for p in lineage.get(i, [])] or [None] for i in ids])
    ours = plan_merge(random.Random(seed), lineage, candidates, set(), set(), agg, files, ids)
    assert theirs is not None and ours is not None
    program, i, j, ancestor = theirs
    assert (ours.files, ours.a, ours.b, ours.ancestor) == (program, ids[i], ids[j], ids[ancestor])


@pytest.mark.parametrize("seed", range(4))
def test_the_subsample_matches_the_gepa_library(seed: int) -> None:
    merge = pytest.importorskip("gepa.proposer.merge")
    proposer = merge.MergeProposer(logger=None, valset=None, evaluator=None, use_merge=True, max_merge_invocations=5,
                                   rng=random.Random(seed))
    a = {i: float(i % 3 == 0) for i in range(9)}
    b = {i: float(i % 3 == 1) for i in range(9)}
    theirs = proposer.select_eval_subsample_for_merged_program(a, b, num_subsample_ids=5)
    ours = merge_subsample({str(k): v for k, v in a.items()}, {str(k): v for k, v in b.items()}, random.Random(seed))
    assert ours == [str(t) for t in theirs]


def test_a_run_keeps_a_merge_of_two_pareto_parents_in_engine_state(tmp_path: Path) -> None:
    workspace = add_skill(make_workspace(tmp_path / "ws", prompt="base\n"))
    engine = GepaEngine(llm=ScriptedLLM([keyword_per_component] * 4), use_merge=True,
                        candidate_selection="epsilon_greedy", epsilon=1.0)
    # Seed 1: the uniform draw after cycle 1 picks the seed candidate, so cycle 2 grows a sibling of cycle 1's child.
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.2, val_ratio=0.25, concurrency=1, seed=1)
    ae.Evolver(KeywordAgent(workspace), AlternatingBenchmark(n=30), config, engine).run(3)
    state = json.loads((workspace / "evolution" / "engine" / "state" / "gepa.json").read_text())
    log = state["log"]
    assert log[0]["decision"].startswith("kept child") and log[0]["component"] == "prompts/system.md"
    assert log[1]["decision"].startswith("kept child") and log[1]["component"] == "skills/notes/SKILL.md"
    assert log[1]["parent"] == log[0]["parent"], "the second child is the first one's sibling"
    assert log[2]["decision"].startswith("kept merge") and "component" not in log[2]
    pool = {c["files"]["prompts/system.md"].split()[-1] + "/" + c["files"]["skills/notes/SKILL.md"].split()[-1]:
            Candidate.from_dict(c) for c in state["candidates"]}
    assert list(pool) == ["base/notes", "k0/notes", "base/k1", "k0/k1"]
    merged, a, b = pool["k0/k1"], pool["k0/notes"], pool["base/k1"]
    assert log[2]["merge"]["parents"] == [a.id, b.id] and log[2]["merge"]["ancestor"] == pool["base/notes"].id
    assert state["merge"]["parents"] == {merged.id: [a.id, b.id]} and state["merge"]["tested"] == 1
    assert log[2]["val_means"][merged.id] == 1.0 > max(log[2]["val_means"][a.id], log[2]["val_means"][b.id])
    entries = [json.loads(line) for line in (workspace / "evolution" / "engine" / LEDGER_NAME).read_text().splitlines()]
    pairs = [(e["candidate"], e["task_id"]) for e in entries]
    assert len(pairs) == len(set(pairs)) and {t for c, t in pairs if c == merged.id} == set(state["val_ids"])


def test_without_use_merge_no_merge_is_tried(tmp_path: Path) -> None:
    workspace = add_skill(make_workspace(tmp_path / "ws", prompt="base\n"))
    engine = GepaEngine(llm=ScriptedLLM([keyword_per_component] * 4), candidate_selection="epsilon_greedy", epsilon=1.0)
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.2, val_ratio=0.25, concurrency=1, seed=1)
    ae.Evolver(KeywordAgent(workspace), AlternatingBenchmark(n=30), config, engine).run(3)
    state = json.loads((workspace / "evolution" / "engine" / "state" / "gepa.json").read_text())
    assert not any("merge" in e["decision"] for e in state["log"]) and state["merge"]["tried"] == []
