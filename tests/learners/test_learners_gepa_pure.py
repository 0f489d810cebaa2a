"""GEPA's pure parts: Pareto front and dominance, parent selection, minibatch acceptance, proposal parsing."""

from __future__ import annotations

import random

import pytest

from agent_evolve.algorithms.gepa.reflection import extract_proposal, proposal_prompt
from agent_evolve.algorithms.gepa.selection import (
    CurrentBestSelector,
    EpsilonGreedySelector,
    MinibatchImprovement,
    ParetoSelector,
    front_frequency,
    is_perfect,
    make_selector,
    mean_scores,
    pareto_front,
    prune_dominated,
)
from agent_evolve.errors import ConfigError

TABLE = {
    "a": {"t1": 1.0, "t2": 0.0, "t3": 0.0, "t4": 0.5},
    "b": {"t1": 0.0, "t2": 1.0, "t3": 0.0, "t4": 0.5},
    "c": {"t1": 1.0, "t2": 0.0, "t3": 1.0, "t4": 0.0},
    "d": {"t1": 0.0, "t2": 0.0, "t3": 0.0, "t4": 0.0},
}


def test_front_holds_every_candidate_with_the_best_score_of_each_task() -> None:
    assert pareto_front(TABLE) == {"t1": {"a", "c"}, "t2": {"b"}, "t3": {"c"}, "t4": {"a", "b"}}


def test_pruning_drops_a_candidate_whose_front_places_others_share() -> None:
    # a leads t1 (shared with c) and t4 (shared with b): every place it holds is covered, so it goes.
    pruned = prune_dominated(pareto_front(TABLE), mean_scores(TABLE))
    assert pruned == {"t1": {"c"}, "t2": {"b"}, "t3": {"c"}, "t4": {"b"}}
    assert front_frequency(TABLE, mean_scores(TABLE)) == {"c": 2, "b": 2}


def test_pruning_matches_the_gepa_library_on_the_same_table() -> None:
    gepa_utils = pytest.importorskip("gepa.gepa_utils")
    ids = sorted(TABLE)
    front = {t: {ids.index(c) for c in cands} for t, cands in pareto_front(TABLE).items()}
    means = mean_scores(TABLE)
    theirs = gepa_utils.remove_dominated_programs(front, scores=[means[c] for c in ids])
    ours = prune_dominated(pareto_front(TABLE), means)
    assert {t: {ids[i] for i in s} for t, s in theirs.items()} == ours


def test_pareto_selection_samples_only_front_leaders_in_proportion() -> None:
    rng = random.Random(0)
    draws = [ParetoSelector().select(TABLE, rng) for _ in range(400)]
    assert set(draws) == {"b", "c"}
    assert 150 < draws.count("c") < 250


def test_selection_is_reproducible_for_a_seed() -> None:
    first = [ParetoSelector().select(TABLE, random.Random(7)) for _ in range(5)]
    assert first == [ParetoSelector().select(TABLE, random.Random(7)) for _ in range(5)]


def test_current_best_takes_the_best_mean_and_the_earliest_on_a_tie() -> None:
    assert CurrentBestSelector().select(TABLE, random.Random(0)) == "c"
    assert CurrentBestSelector().select({"x": {"t": 1.0}, "y": {"t": 1.0}}, random.Random(0)) == "x"


def test_epsilon_greedy_explores_at_its_rate() -> None:
    rng = random.Random(3)
    draws = [EpsilonGreedySelector(0.5).select(TABLE, rng) for _ in range(400)]
    assert draws.count("c") > 200 and {"a", "b", "d"} <= set(draws)
    assert {EpsilonGreedySelector(0.0).select(TABLE, rng) for _ in range(20)} == {"c"}


def test_an_unknown_strategy_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="candidate_selection"):
        make_selector("tournament")


def test_child_must_beat_parent_on_the_same_minibatch() -> None:
    parent = {"t1": 0.0, "t2": 1.0}
    assert MinibatchImprovement().decide(parent, {"t1": 1.0, "t2": 1.0}).accept
    tie = MinibatchImprovement().decide(parent, {"t1": 1.0, "t2": 0.0})
    assert not tie.accept and tie.parent_sum == tie.child_sum == 1.0
    assert not MinibatchImprovement().decide(parent, {"t1": 0.0, "t2": 0.0, "t9": 5.0}).accept
    with pytest.raises(ValueError, match="t2"):
        MinibatchImprovement().decide(parent, {"t1": 1.0})


def test_perfect_minibatch_is_skipped() -> None:
    assert is_perfect({"t1": 1.0, "t2": 1.0}) and not is_perfect({"t1": 1.0, "t2": 0.5}) and not is_perfect({})


@pytest.mark.parametrize(
    "reply",
    ["Sure:\n```\nNew rules.\n```", "```markdown\nNew rules.\n```", "```\nNew rules.", "New rules.\n```",
     "New rules.", "a ```text\nNew rules.\n``` and ```x``` after"],
)
def test_proposal_parsing_matches_gepa(reply: str) -> None:
    proposal = pytest.importorskip("gepa.strategies.instruction_proposal")
    assert extract_proposal(reply) == proposal.InstructionProposalSignature.output_extractor(reply)["new_instruction"]


def test_proposal_prompt_matches_gepa() -> None:
    proposal = pytest.importorskip("gepa.strategies.instruction_proposal")
    examples = [{"Inputs": "2+2", "Generated Outputs": "5", "Feedback": "score 0. wrong"},
                {"Inputs": {"q": "x", "n": [1, 2]}, "Generated Outputs": "", "Feedback": "score 1."}]
    theirs = proposal.InstructionProposalSignature.prompt_renderer(
        {"current_instruction_doc": "Solve it.", "dataset_with_feedback": examples})
    assert proposal_prompt("Solve it.", examples) == theirs
