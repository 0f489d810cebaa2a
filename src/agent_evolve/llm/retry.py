"""Retries with exponential backoff and jitter for rate limits, server errors and timeouts; nothing else."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from agent_evolve.llm.errors import LLMError

log = logging.getLogger(__name__)
T = TypeVar("T")


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


def call_with_retry(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
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
