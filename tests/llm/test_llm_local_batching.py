"""The batched local model's scheduling decisions, without a model: prefix reuse, step plans, stop strings."""

from __future__ import annotations

import pytest

from agent_evolve.llm.llama_batching import (Active, Placement, accepted_tokens, common_prefix, lookup_draft, place,
                                             plan_step, reply_end, stop_index)
from agent_evolve.llm.stops import answer_line_end


def test_common_prefix() -> None:
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2
    assert common_prefix([], [1]) == 0


def test_a_request_reuses_the_free_slot_whose_cache_is_a_prefix_of_its_prompt() -> None:
    assert place([1, 2, 3, 4, 7], [0, 1, 2], {0: [9, 9], 1: [1, 2]}) == Placement(slot=1, source=1, reuse=2)


def test_a_longer_prefix_is_copied_into_a_slot_whose_cache_survives_rather_than_overwriting_it() -> None:
    cached = {0: [9, 9], 1: [1, 2, 3, 4, 5], 2: [1, 2]}
    assert place([1, 2, 3, 4, 7], [0, 1, 2], cached) == Placement(slot=2, source=1, reuse=4)


def test_a_prefix_cached_by_a_busy_slot_is_copied_into_an_empty_one() -> None:
    cached = {0: [1, 2, 3, 4, 5, 6], 1: [8]}
    assert place([1, 2, 3, 4, 9], free=[1, 2], cached=cached) == Placement(slot=2, source=0, reuse=4)


def test_prompts_sharing_only_a_system_prompt_do_not_evict_each_other_while_a_slot_is_empty() -> None:
    system = [7, 7, 7]
    cached: dict[int, list[int]] = {}
    for stream in range(4):
        prompt = [*system, 100 + stream, 5, 6]
        placed = place(prompt, list(range(4)), cached)
        cached[placed.slot] = prompt
    assert sorted(cached) == [0, 1, 2, 3] and all(cached[s][3] == 100 + s for s in range(4))


def test_when_every_free_slot_holds_more_the_least_recently_used_gives_way() -> None:
    cached = {0: [1, 1, 1], 1: [2, 2, 2], 2: [3, 3, 3]}
    assert place([4, 4], [0, 1, 2], cached, last_used={0: 5, 1: 2, 2: 9}) == Placement(1, 1, 0)
    assert place([2, 2, 9], [0, 2], cached, last_used={0: 5, 1: 2, 2: 9}) == Placement(0, 1, 2)


def test_the_last_prompt_token_is_always_read_again() -> None:
    assert place([1, 2, 3], [0], {0: [1, 2, 3]}) == Placement(0, 0, 2)
    assert place([5], [0], {0: [5, 6]}) == Placement(0, 0, 0)


def test_without_a_shared_prefix_the_lowest_free_slot_is_used() -> None:
    assert place([7, 7], [3, 1], {0: [1]}) == Placement(1, 1, 0)
    with pytest.raises(ValueError):
        place([1], [], {})


def active(slot: int, pending: list[int], next_token: int | None = None, n_past: int = 0) -> Active:
    return Active(slot, pending, n_past, max_tokens=8, stops=(), deadline=None, next_token=next_token)


def test_a_step_decodes_every_generating_sequence_then_prompt_chunks() -> None:
    running = [active(0, [], next_token=42, n_past=10), active(1, list(range(100, 106))), active(2, [7, 8])]
    entries = plan_step(running, n_batch=5)
    assert [(e.slot, e.tokens, e.start, e.outputs) for e in entries] == [
        (0, [42], 10, 1), (1, [100, 101, 102, 103], 0, 0)]
    rest = plan_step([active(1, [104, 105], n_past=4), active(2, [7, 8])], n_batch=5)
    assert [(e.slot, e.tokens, e.start, e.outputs) for e in rest] == [(1, [104, 105], 4, 1), (2, [7, 8], 0, 1)]


def test_deadlines() -> None:
    timed = Active(0, [1], 0, 8, (), deadline=100.0)
    assert timed.expired(now=100.0) and not timed.expired(now=99.9)
    assert not active(0, [1]).expired(now=1e12)


def test_stop_index_finds_the_earliest_stop() -> None:
    assert stop_index("answer: 4\n<|im_end|>x", ["<|im_end|>", "\n"]) == 9
    assert stop_index("no stop here", ["###", ""]) is None


def test_a_draft_rides_with_its_next_token_and_is_cut_to_the_room_left() -> None:
    drafting = active(0, [], next_token=42, n_past=10)
    drafting.draft = [1, 2, 3, 4]
    entries = plan_step([drafting, active(1, [], next_token=7, n_past=3), active(2, [9, 9])], n_batch=5)
    assert [(e.slot, e.tokens, e.start, e.outputs) for e in entries] == [(0, [42, 1, 2, 3], 10, 4), (1, [7], 3, 1)]


def test_prompt_lookup_drafts_what_followed_the_latest_matching_ngram() -> None:
    history = [5, 6, 7, 8, 9, 1, 5, 6, 7, 2, 3, 5, 6]
    assert lookup_draft(history, max_ngram=3, max_tokens=2) == [7, 2]
    assert lookup_draft([1, 2, 3, 4], max_ngram=3, max_tokens=4) == []
    assert lookup_draft([1, 2, 9, 2], max_ngram=2, max_tokens=5) == [9, 2]


def test_a_draft_keeps_only_the_tokens_the_model_chose_then_the_models_own() -> None:
    model = [11, 12, 99, 14]  # the model's greedy token after each input of the step
    assert accepted_tokens([11, 12, 13], lambda i: model[i]) == [11, 12, 99]
    assert accepted_tokens([11, 12], lambda i: model[i]) == [11, 12, 99]
    assert accepted_tokens([], lambda i: model[i]) == [11]
    asked: list[int] = []
    accepted_tokens([50, 51, 52], lambda i: asked.append(i) or model[i])
    assert asked == [0]  # nothing is sampled past the first rejected draft token


def test_a_reply_ends_at_the_first_stop_string_or_where_its_answer_is_complete() -> None:
    text = "3 + 4 = 7\nAnswer: 7\nAlso, more"
    assert reply_end(text, (), answer_line_end) == text.index("\nAlso")
    assert reply_end(text, ("+",), answer_line_end) == 2
    assert reply_end(text, (), None) is None
