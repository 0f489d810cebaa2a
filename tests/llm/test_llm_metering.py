"""The metered client: one shared concurrency limit, budgets checked before sending, the response cache, costs."""

from __future__ import annotations

import logging
import threading
from dataclasses import replace

import pytest
from wire_servers import ok_reply

from agent_evolve.errors import BudgetExceededError
from agent_evolve.llm.base import Message
from agent_evolve.llm.cache import ResponseCache
from agent_evolve.llm.factory import metered_on
from agent_evolve.llm.metered import concurrency_limit, set_concurrency_limit
from agent_evolve.llm.usage import UsageLedger

HELLO = [Message("user", "hello")]


def test_sixteen_threads_never_exceed_the_shared_limit_of_four(serve, client_for, restore_concurrency):
    set_concurrency_limit(4)
    server = serve(lambda request: ok_reply("openai"), delay_s=0.02)
    ledger = UsageLedger()
    agent = client_for("openai", server, ledger=ledger, role="agent")
    judge = client_for("openai", server, ledger=ledger, role="judge")  # a second client shares the same limit
    errors: list[BaseException] = []

    def work(index: int) -> None:
        client = agent if index % 2 else judge
        try:
            for _ in range(10):
                client.complete(HELLO)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(server.requests) == 160
    assert server.max_in_flight == 4  # reached, never exceeded
    assert ledger.total().calls == 160
    assert ledger.by_role()["agent"].calls == 80 and ledger.by_role()["judge"].calls == 80
    assert concurrency_limit().in_flight == 0


def test_a_metered_client_wrapped_in_another_meter_takes_one_slot_and_never_waits_on_itself(
        serve, client_for, restore_concurrency):
    """A user's own metered client given to a run is metered again into the run's ledger; with every slot held by
    the outer meter, the inner one must not wait for a second slot (it would wait forever)."""
    set_concurrency_limit(2)
    server = serve(lambda request: ok_reply("openai"), delay_s=0.05)
    users, runs = UsageLedger(), UsageLedger()
    wrapped = metered_on(client_for("openai", server, ledger=users, role="agent"), "agent", runs)
    threads = [threading.Thread(target=lambda: [wrapped.complete(HELLO) for _ in range(3)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert not any(thread.is_alive() for thread in threads), "nested meters deadlocked on the shared limit"
    assert server.max_in_flight == 2 and len(server.requests) == 12
    assert users.total().calls == runs.total().calls == 12, "both ledgers count every call"
    assert concurrency_limit().in_flight == 0


def test_a_spent_token_budget_stops_the_next_call_before_it_is_sent(serve, client_for):
    server = serve(lambda request: ok_reply("openai", usage=(10, 5)))
    ledger = UsageLedger(max_total_tokens=20)
    client = client_for("openai", server, ledger=ledger)
    client.complete(HELLO)
    client.complete(HELLO)  # 15 < 20 tokens before this call
    with pytest.raises(BudgetExceededError, match="30 of 20 tokens"):
        client.complete(HELLO)
    assert len(server.requests) == 2


def test_a_spent_cost_budget_stops_the_next_call(serve, client_for):
    server = serve(lambda request: ok_reply("openai", usage=(1_000_000, 0)))
    ledger = UsageLedger()
    ledger.set_budget(max_cost_usd=1.5)
    client = client_for("openai", server, ledger=ledger, prices={"openai/test-model": {"input": 2.0, "output": 8.0}})
    assert client.complete(HELLO).usage.cost == pytest.approx(2.0)
    with pytest.raises(BudgetExceededError, match="cost budget"):
        client.complete(HELLO)
    assert len(server.requests) == 1


def test_second_identical_call_is_served_from_the_disk_cache(serve, client_for, tmp_path):
    server = serve(lambda request: ok_reply("openai", f"answer {len(server.requests)}"))
    ledger = UsageLedger()
    client = client_for("openai", server, ledger=ledger, cache_dir=str(tmp_path))
    first = client.complete(HELLO, max_tokens=50)
    second = client.complete(HELLO, max_tokens=50)
    assert second.text == first.text == "answer 1"
    assert second.usage == first.usage, "a replayed reply is accounted as the call it replays"
    assert len(server.requests) == 1
    assert ledger.total().calls == 2 and ledger.total().total_tokens == 30
    again = client_for("openai", server, ledger=ledger, cache_dir=str(tmp_path))  # a new process would see it too
    assert again.complete(HELLO, max_tokens=50).text == "answer 1"
    client.complete(HELLO, max_tokens=51)  # other parameters are another key
    assert len(server.requests) == 2


def test_repeated_sampled_calls_are_new_draws_and_replay_in_order_from_the_cache(serve, client_for, tmp_path):
    server = serve(lambda request: ok_reply("openai", f"draw {len(server.requests)}"))
    client = client_for("openai", server, ledger=UsageLedger(), cache_dir=str(tmp_path))
    drawn = [client.complete(HELLO, max_tokens=50, temperature=0.8).text for _ in range(3)]
    assert drawn == ["draw 1", "draw 2", "draw 3"] and len(server.requests) == 3
    replay = client_for("openai", server, ledger=UsageLedger(), cache_dir=str(tmp_path))
    assert [replay.complete(HELLO, max_tokens=50, temperature=0.8).text for _ in range(3)] == drawn
    assert len(server.requests) == 3


def test_sampled_replies_of_clients_seeded_apart_are_cached_apart_and_greedy_ones_are_shared(serve, client_for, tmp_path):
    server = serve(lambda request: ok_reply("openai", f"reply {len(server.requests)}"))
    seeded = [client_for("openai", server, cache_dir=str(tmp_path), seed=seed) for seed in (0, 1)]
    assert [c.complete(HELLO, max_tokens=50, temperature=0.8).text for c in seeded] == ["reply 1", "reply 2"]
    assert [c.complete(HELLO, max_tokens=50).text for c in seeded] == ["reply 3", "reply 3"]
    assert len(server.requests) == 3


@pytest.mark.parametrize("bad", ["empty", "blank", "filtered"])
def test_an_empty_or_failed_reply_is_not_cached_and_the_next_call_asks_again(bad, serve, client_for, tmp_path,
                                                                           caplog):
    from wire_servers import Reply, openai_body

    first = {"empty": openai_body(None, []), "blank": openai_body(" \n", []),
             "filtered": openai_body("partial", [], finish="content_filter")}[bad]
    server = serve(lambda request: Reply(body=first) if len(server.requests) == 1 else ok_reply("openai", "real"))
    client = client_for("openai", server, cache_dir=str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="agent_evolve.llm.metered"):
        assert client.complete(HELLO).text != "real"
    assert [r for r in caplog.records if "not cached" in r.getMessage()], "an empty or failed reply is warned about"
    assert client.complete(HELLO).text == "real" and len(server.requests) == 2
    assert client.complete(HELLO).text == "real" and len(server.requests) == 2, "a good reply is cached"


def test_an_empty_reply_cached_by_an_earlier_version_is_asked_again(serve, client_for, tmp_path):
    server = serve(lambda request: ok_reply("openai", f"reply {len(server.requests)}"))
    client = client_for("openai", server, cache_dir=str(tmp_path))
    first = client.complete(HELLO)
    cache = ResponseCache(tmp_path)
    [(key, _)] = list(cache.store.items())
    cache.put(key, replace(first, text=""))  # what the cache held before empty replies were refused
    assert client.complete(HELLO).text == "reply 2" and len(server.requests) == 2
    assert client.complete(HELLO).text == "reply 2" and len(server.requests) == 2, "the new reply replaced it"
