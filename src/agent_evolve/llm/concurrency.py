"""One process-wide limit on model requests in flight, shared by agents, engines and judges."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

DEFAULT_LIMIT = 4


class ConcurrencyLimit:
    """A resizable counting semaphore."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._cond = threading.Condition()
        self._in_flight = 0
        self.set_limit(limit)

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def set_limit(self, limit: int) -> None:
        """Change the limit; waiters are woken so a larger limit takes effect at once."""
        if limit < 1:
            raise ValueError(f"concurrency limit must be at least 1, got {limit}")
        with self._cond:
            self._limit = limit
            self._cond.notify_all()

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one of the limited slots for the duration of the with-block."""
        with self._cond:
            self._cond.wait_for(lambda: self._in_flight < self._limit)
            self._in_flight += 1
        try:
            yield
        finally:
            with self._cond:
                self._in_flight -= 1
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
