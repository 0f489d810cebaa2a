"""Retry policy, redaction, the usage ledger and the price table, without any server."""

from __future__ import annotations

import random
import threading

import pytest

from agent_evolve.errors import BudgetExceededError, ConfigError
from agent_evolve.llm.errors import (
    ContextLengthError,
    LLMTimeoutError,
    ProviderRequestError,
    RateLimitError,
    error_for_status,
    redact,
    register_secret,
)
from agent_evolve.llm.metered import RetryPolicy, call_with_retry
from agent_evolve.llm.usage import UsageLedger, cost_of, default_ledger, price_for
from agent_evolve.types import Usage


def test_backoff_doubles_is_capped_and_jittered():
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0, jitter=0.5)
    rng = random.Random(0)
    delays = [[policy.delay(i, rng) for _ in range(200)] for i in range(5)]
    for i, samples in enumerate(delays):
        nominal = min(5.0, 2.0**i)
        assert nominal * 0.5 <= min(samples) and max(samples) <= nominal * 1.5
        assert len(set(samples)) > 1  # jittered
    assert RetryPolicy(jitter=0.0, base_delay_s=0.5).delay(3) == 4.0


def test_retryable_errors_are_retried_with_the_policys_delays_and_others_are_not():
    waits: list[float] = []
    attempts = {"n": 0}

    def flaky() -> str:
        attempts["n"] += 1
        if attempts["n"] < 3:
            raise LLMTimeoutError("slow", provider="p", model="m")
        return "ok"

    policy = RetryPolicy(max_retries=5, base_delay_s=0.1, jitter=0.0)
    assert call_with_retry(flaky, policy, sleep=waits.append) == "ok"
    assert waits == [0.1, 0.2]

    def rejected() -> str:
        attempts["n"] += 1
        raise ProviderRequestError("bad", provider="p", model="m", status_code=400)

    attempts["n"] = 0
    with pytest.raises(ProviderRequestError):
        call_with_retry(rejected, policy, sleep=waits.append)
    assert attempts["n"] == 1


def test_status_codes_map_to_typed_errors():
    assert isinstance(error_for_status(429, "x", provider="p", model="m"), RateLimitError)
    assert error_for_status(503, "x", provider="p", model="m").retryable
    assert not error_for_status(404, "x", provider="p", model="m").retryable
    llama_server = "the request exceeds the available context size, try increasing it"  # llama.cpp's server
    assert isinstance(error_for_status(400, llama_server, provider="p", model="m"), ContextLengthError)


def test_redaction_hides_registered_and_key_shaped_secrets():
    register_secret("my-very-own-secret-value")
    text = redact("key my-very-own-secret-value and sk-abcdefghijklmnop and AKIAABCDEFGHIJKLMNOP Bearer abc.def-123456")
    assert "my-very-own" not in text and "sk-abc" not in text and "AKIA" not in text and "abc.def" not in text
    assert RateLimitError("used sk-live-123456789012", provider="openai", model="m").args[0].count("[REDACTED]") == 1
    assert redact("POST http://me:hunter2@host:8000/v1/chat") == "POST http://[REDACTED]@host:8000/v1/chat"


def test_ledger_totals_by_role_are_thread_safe():
    ledger = UsageLedger()

    def record(role: str) -> None:
        for _ in range(1000):
            ledger.record(role, Usage(calls=1, input_tokens=2, output_tokens=1, cost=0.001))

    threads = [threading.Thread(target=record, args=(r,)) for r in ["agent", "engine", "judge", "agent"]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ledger.total("agent").calls == 2000 and ledger.total("judge").input_tokens == 2000
    assert ledger.total().calls == 4000 and ledger.total().cost == pytest.approx(4.0)
    assert set(ledger.by_role()) == {"agent", "engine", "judge"}
    snapshot = ledger.by_role()["agent"]
    ledger.record("agent", Usage(calls=1))
    assert snapshot.calls == 2000  # by_role returns copies
    assert ledger.to_dict()["total"]["calls"] == 4001


def test_budgets_are_checked_and_can_be_cleared():
    ledger = UsageLedger(max_total_tokens=10)
    ledger.check_budget()
    ledger.record("agent", Usage(calls=1, input_tokens=6, output_tokens=4))
    with pytest.raises(BudgetExceededError, match="token budget"):
        ledger.check_budget()
    ledger.set_budget(None, None)
    ledger.check_budget()
    assert default_ledger() is default_ledger()


def test_prices_come_from_the_table_overrides_win_and_local_is_free():
    usage = Usage(calls=1, input_tokens=1_000_000, output_tokens=1_000_000)
    assert cost_of("openai/gpt-4.1-mini", usage) == pytest.approx(0.40 + 1.60)
    assert cost_of("openai/gpt-4o-mini-2024-07-18", usage) == pytest.approx(0.15 + 0.60)  # longest prefix wins
    assert cost_of("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", usage) == pytest.approx(18.0)
    assert cost_of("local/qwen2.5-coder-1.5b", usage) == 0.0
    assert cost_of("openai/never-heard-of-it", usage) == 0.0
    overrides = {"openai/gpt-4.1-mini": {"input": 1, "output": 2}, "claude-haiku-4-5": {"input": 0, "output": 0}}
    assert cost_of("openai/gpt-4.1-mini", usage, overrides) == pytest.approx(3.0)
    assert cost_of("anthropic/claude-haiku-4-5", usage, overrides) == 0.0
    with pytest.raises(ConfigError, match="input"):
        price_for("openai/x", {"openai/x": {"in": 1}})
