"""The client every caller gets: budget check, cache, shared concurrency limit, retries, then accounting. The limit is
one process-wide count of model requests in flight, shared by agents, engines and judges; retries back off
exponentially with jitter, for rate limits, server errors and timeouts, nothing else."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from agent_evolve.llm.base import Completion, LLMClient, Message, ToolSpec
from agent_evolve.llm.cache import ResponseCache, cache_key
from agent_evolve.llm.draws import DrawCounter, drawing
from agent_evolve.llm.errors import LLMError
from agent_evolve.llm.usage import UsageLedger, cost_of, default_ledger

log = logging.getLogger(__name__)
T = TypeVar("T")
DEFAULT_LIMIT = 4


class ConcurrencyLimit:
    """A resizable counting semaphore; a thread that holds a slot takes no second one (a metered client wrapping
    another is one request, and nesting must not wait on itself)."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._cond = threading.Condition()
        self.in_flight = 0  # requests holding a slot now
        self._held = threading.local()
        self.set_limit(limit)

    def set_limit(self, limit: int) -> None:
        """Change the limit; waiters are woken so a larger limit takes effect at once."""
        if limit < 1:
            raise ValueError(f"concurrency limit must be at least 1, got {limit}")
        with self._cond:
            self.limit = limit
            self._cond.notify_all()

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one of the limited slots for the duration of the with-block (the thread's own, when it has one)."""
        if getattr(self._held, "slot", False):
            yield
            return
        with self._cond:
            self._cond.wait_for(lambda: self.in_flight < self.limit)
            self.in_flight += 1
        self._held.slot = True
        try:
            yield
        finally:
            self._held.slot = False
            with self._cond:
                self.in_flight -= 1
                self._cond.notify()


_limit = ConcurrencyLimit()


def concurrency_limit() -> ConcurrencyLimit:
    """The process-wide limit every metered client goes through."""
    return _limit


def set_concurrency_limit(n: int) -> None:
    """Set how many model requests may be in flight at once in this process."""
    _limit.set_limit(n)


def install_concurrency_limit(limit: ConcurrencyLimit) -> None:
    """Replace the process-wide limit; an executor's worker process uses this to share its driver's limit."""
    global _limit
    _limit = limit


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry: `max_retries` retries after the first attempt."""

    max_retries: int = 3
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter: float = 0.5  # each delay is scaled by a random factor in [1 - jitter, 1 + jitter]

    def delay(self, retry_index: int, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number retry_index (0-based): base * 2^i, capped, with jitter."""
        raw = min(self.max_delay_s, self.base_delay_s * (2**retry_index))
        factor = 1.0 + (rng or random).uniform(-self.jitter, self.jitter)
        return max(0.0, raw * factor)


def call_with_retry(fn: Callable[[], T], policy: RetryPolicy, *, sleep: Callable[[float], None] = time.sleep) -> T:
    """Call fn, retrying LLMErrors marked retryable up to policy.max_retries times; re-raise the last one."""
    retries = 0
    while True:
        try:
            return fn()
        except LLMError as exc:
            if not exc.retryable or retries >= policy.max_retries:
                raise
            wait = max(policy.delay(retries), min(exc.retry_after_s or 0.0, policy.max_delay_s))
            retries += 1
            log.warning("%s; retry %d/%d in %.2fs", exc, retries, policy.max_retries, wait)
            sleep(wait)


class MeteredClient:
    """Wraps any LLMClient so its calls are budgeted, cached, limited, retried and recorded under a role."""

    def __init__(self, inner: LLMClient, *, role: str = "agent", ledger: UsageLedger | None = None,
                 retry: RetryPolicy | None = None, cache: ResponseCache | None = None,
                 prices: Mapping[str, Any] | None = None, seed: int = 0) -> None:
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

    def complete(self, messages: list[Message], *, tools: list[ToolSpec] | None = None, max_tokens: int | None = None,
                 temperature: float = 0.0, stop: list[str] | None = None) -> Completion:
        """Complete through the inner client once the ledger admits the call (BudgetExceededError when spent)."""
        with self.ledger.admit(max_tokens):
            key, draw = None, 0
            params: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature, "stop": stop}
            if temperature > 0:  # a repeated sampled request is a new draw: its own seed, cached apart from the first
                draw = self._draws.next([self.model, [m.to_dict() for m in messages], tools, params])
            if self.cache is not None:
                if temperature > 0:
                    params["seed"] = self.seed
                    if draw:
                        params["draw"] = draw
                key = cache_key(self.model, messages, tools, params)
                hit = self.cache.get(key)
                if hit is not None and _worth_replaying(hit):  # one cached before that rule is asked again
                    self.ledger.record(self.role, hit.usage)
                    return hit

            def attempt() -> Completion:
                with concurrency_limit().slot(), drawing(draw):
                    return self.inner.complete(messages, tools=tools, max_tokens=max_tokens, temperature=temperature,
                                               stop=stop)

            completion = call_with_retry(attempt, self.retry)
            usage = replace(completion.usage, cost=cost_of(self.model, completion.usage, self.prices))
            completion = replace(completion, usage=usage)
            self.ledger.record(self.role, usage)
            if completion.truncated and max_tokens != 1:  # a 1-token call is a probe: being cut is its point
                log.warning("%s: reply cut at the length limit (max_tokens=%s); %d output tokens",
                            self.model, max_tokens, usage.output_tokens)
            if not _worth_replaying(completion):  # else a run can end "all cycles done" on empty answers, silently
                log.warning("%s: an empty or failed reply (finish reason %r); not cached", self.model,
                            completion.finish_reason)
            elif self.cache is not None and key is not None:
                self.cache.put(key, completion)
            return completion


def _worth_replaying(completion: Completion) -> bool:
    """Whether a reply may be cached: not an empty one (no text, no tool call) nor one the provider ended as an
    error (a filter, a refusal), which are often transient and would otherwise be replayed forever."""
    return completion.finish_reason != "error" and bool(completion.text.strip() or completion.tool_calls)
