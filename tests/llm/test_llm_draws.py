"""Draw numbers: the n-th identical sampled request is draw n, whatever else is asked in between."""

from __future__ import annotations

from pathlib import Path

from agent_evolve.llm.base import Completion, Message
from agent_evolve.llm.cache import ResponseCache
from agent_evolve.llm.draws import DrawCounter, current_draw, draw_seed, drawing
from agent_evolve.llm.metered import MeteredClient
from agent_evolve.llm.models import LOCAL_MODELS
from agent_evolve.llm.providers._common import one_call
from agent_evolve.llm.providers.llama_cpp_local import LocalLlamaClient
from agent_evolve.llm.usage import UsageLedger


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


class _SeededModel:
    """A sampling model that answers with the draw it was handed (as the embedded client seeds by it)."""

    model = "local/fake"

    def __init__(self) -> None:
        self.draws: list[int | None] = []

    def complete(self, messages: list[Message], **_: object) -> Completion:
        self.draws.append(current_draw())
        return one_call(self.model, f"reply of draw {self.draws[-1]}", [], "stop", 5, 3)


def _ask(client: MeteredClient, times: int) -> list[str]:
    return [client.complete([Message("user", "pick a number")], temperature=0.8).text for _ in range(times)]


def test_a_draw_served_from_the_cache_does_not_shift_the_seeds_of_later_draws(tmp_path: Path) -> None:
    first = _SeededModel()
    assert _ask(MeteredClient(first, ledger=UsageLedger(), cache=ResponseCache(tmp_path)), 2) == [
        "reply of draw 0", "reply of draw 1"]
    resumed = _SeededModel()  # a resumed run: fresh counters, the first two draws in the cache
    replies = _ask(MeteredClient(resumed, ledger=UsageLedger(), cache=ResponseCache(tmp_path)), 3)
    assert replies == ["reply of draw 0", "reply of draw 1", "reply of draw 2"] and resumed.draws == [2]


def test_the_embedded_client_seeds_by_the_handed_draw_else_by_its_own_count() -> None:
    client = LocalLlamaClient("local/x", LOCAL_MODELS["qwen2.5-coder-1.5b"], seed=7)
    with drawing(3):
        assert client._seed([1, 2], 64, None, 0.8) == draw_seed(7, 3)
    assert [client._seed([1, 2], 64, None, 0.8) for _ in range(2)] == [draw_seed(7, 0), draw_seed(7, 1)]
    assert client._seed([1, 2], 64, None, 0.0) == 7
