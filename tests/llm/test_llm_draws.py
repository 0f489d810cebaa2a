"""Draw numbers: the n-th identical sampled request is draw n, whatever else is asked in between."""

from __future__ import annotations

from agent_evolve.llm.draws import DrawCounter, draw_seed


def test_identical_requests_count_up_and_others_count_apart() -> None:
    counter = DrawCounter()
    assert [counter.next(["q", 0.8]) for _ in range(3)] == [0, 1, 2]
    assert counter.next(["other", 0.8]) == 0
    assert counter.next(["q", 0.8]) == 3


def test_the_oldest_request_is_forgotten_beyond_the_cap() -> None:
    counter = DrawCounter(kept=2)
    counter.next("a"), counter.next("b"), counter.next("c")
    assert counter.next("a") == 0 and counter.next("c") == 1


def test_draw_zero_keeps_the_clients_seed_and_later_draws_move_it() -> None:
    assert draw_seed(5, 0) == 5
    seeds = {draw_seed(s, d) for s in range(1, 5) for d in range(4)}
    assert len(seeds) == 16 and all(0 <= x < 2**32 for x in seeds)
