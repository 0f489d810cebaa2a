"""The client every caller gets: budget check, cache, shared concurrency limit, retries, then accounting."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from agent_evolve.llm.base import Completion, LLMClient, Message, ToolSpec
from agent_evolve.llm.cache import ResponseCache, cache_key
from agent_evolve.llm.concurrency import concurrency_limit
from agent_evolve.llm.draws import DrawCounter
from agent_evolve.llm.retry import RetryPolicy, call_with_retry
from agent_evolve.llm.usage import UsageLedger, cost_of, default_ledger

log = logging.getLogger(__name__)


class MeteredClient:
    """Wraps any LLMClient so its calls are budgeted, cached, limited, retried and recorded under a role."""

    def __init__(
        self,
        inner: LLMClient,
        *,
        role: str = "agent",
        ledger: UsageLedger | None = None,
        retry: RetryPolicy | None = None,
        cache: ResponseCache | None = None,
        prices: Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> None:
        self.inner = inner
        self.model = inner.model
        self.role = role
        self.ledger = ledger if ledger is not None else default_ledger()
        self.retry = retry or RetryPolicy()
        self.cache = cache
        self.prices = prices
        self.seed = seed  # the inner client's sampler seed: sampled replies of other seeds are other replies
        self._draws = DrawCounter()

    def __repr__(self) -> str:
        return f"MeteredClient({self.inner!r}, role={self.role!r})"

    def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        stop: list[str] | None = None,
    ) -> Completion:
        """Complete through the inner client once the ledger admits the call (BudgetExceededError when spent)."""
        with self.ledger.admit(max_tokens):
            key = None
            if self.cache is not None:
                params: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature, "stop": stop}
                if temperature > 0:  # a repeated sampled request is a new draw, cached apart from the first
                    draw = self._draws.next([self.model, [m.to_dict() for m in messages], tools, params])
                    params["seed"] = self.seed
                    if draw:
                        params["draw"] = draw
                key = cache_key(self.model, messages, tools, params)
                hit = self.cache.get(key)
                if hit is not None:
                    self.ledger.record(self.role, hit.usage)
                    return hit

            def attempt() -> Completion:
                with concurrency_limit().slot():
                    return self.inner.complete(
                        messages, tools=tools, max_tokens=max_tokens, temperature=temperature, stop=stop
                    )

            completion = call_with_retry(attempt, self.retry)
            usage = replace(completion.usage, cost=cost_of(self.model, completion.usage, self.prices))
            completion = replace(completion, usage=usage)
            self.ledger.record(self.role, usage)
            if completion.truncated and max_tokens != 1:  # a 1-token call is a probe: being cut is its point
                log.warning("%s: reply cut at the length limit (max_tokens=%s); %d output tokens",
                            self.model, max_tokens, usage.output_tokens)
            if self.cache is not None and key is not None:
                self.cache.put(key, completion)
            return completion
