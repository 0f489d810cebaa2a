"""Accounting: what each model call cost, a thread-safe ledger by role, and token/cost budgets."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from agent_evolve.errors import BudgetExceededError, ConfigError
from agent_evolve.llm.models import BEDROCK_REGION
from agent_evolve.types import Usage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input: float
    output: float


# List prices per million tokens, keyed by model name without provider or Bedrock region/vendor prefix;
# the longest key that prefixes a model name applies. Override with EvolveConfig.prices.
BUILTIN_PRICES: dict[str, Price] = {
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1": Price(2.00, 8.00),
    "o4-mini": Price(1.10, 4.40),
    "claude-3-haiku": Price(0.25, 1.25),
    "claude-3-5-haiku": Price(0.80, 4.00),
    "claude-haiku-4-5": Price(1.00, 5.00),
    "claude-3-5-sonnet": Price(3.00, 15.00),
    "claude-3-7-sonnet": Price(3.00, 15.00),
    "claude-sonnet-4": Price(3.00, 15.00),
    "claude-opus-4": Price(15.00, 75.00),
    "claude-opus-4-1": Price(15.00, 75.00),
    "claude-opus-4-5": Price(5.00, 25.00),
    "amazon.nova-micro": Price(0.035, 0.14),
    "amazon.nova-lite": Price(0.06, 0.24),
    "amazon.nova-pro": Price(0.80, 3.20),
}
_FREE_PROVIDERS = ("local/", "ollama/", "vllm/")
_warned: set[str] = set()


def _parse_override(model: str, value: Any) -> Price:
    if isinstance(value, Price):
        return value
    if not isinstance(value, Mapping) or not {"input", "output"} <= set(value):
        raise ConfigError(f"prices[{model!r}] must be a mapping with 'input' and 'output' (USD per million tokens)")
    return Price(float(value["input"]), float(value["output"]))


def validate_prices(overrides: Mapping[str, Any]) -> None:
    """Raise ConfigError for the first override that is not {'input': x, 'output': y}."""
    for model, value in overrides.items():
        _parse_override(model, value)


def price_for(model: str, overrides: Mapping[str, Any] | None = None) -> Price | None:
    """The price of a model string: a user override (full string or bare name), else the built-in table."""
    bare = re.sub(f"^{BEDROCK_REGION}", "", model.split("/", 1)[-1]).removeprefix("anthropic.")  # no provider or prefix
    for key in (model, bare):
        if overrides and key in overrides:
            return _parse_override(key, overrides[key])
    if model.startswith(_FREE_PROVIDERS):
        return Price(0.0, 0.0)
    matches = [k for k in BUILTIN_PRICES if bare.startswith(k)]
    return BUILTIN_PRICES[max(matches, key=len)] if matches else None


def cost_of(model: str, usage: Usage, overrides: Mapping[str, Any] | None = None) -> float:
    """Dollar cost of usage on model; an unknown model costs 0 and is warned about once."""
    price = price_for(model, overrides)
    if price is None:
        if model not in _warned:
            _warned.add(model)
            log.warning("no price known for %s; counting its cost as 0 (set prices in the config)", model)
        return 0.0
    return (usage.input_tokens * price.input + usage.output_tokens * price.output) / 1_000_000


def require_prices(models: list[str], overrides: Mapping[str, Any] | None = None) -> None:
    """ConfigError naming every model without a known price, for runs with a cost budget."""
    unknown = sorted({m for m in models if price_for(m, overrides) is None})
    if unknown:
        raise ConfigError(
            f"max_cost_usd is set but no price is known for {', '.join(unknown)}: the budget could never fire; "
            "add them to 'prices' ({model: {input: USD per Mtok, output: USD per Mtok}}) or drop max_cost_usd"
        )


class UsageLedger:
    """Thread-safe running totals of model usage per role, with token and cost budgets; `admit` lets a call start
    only while the calls in flight cannot spend the rest, so concurrent calls overshoot by at most what they spend."""

    def __init__(self, *, max_total_tokens: int | None = None, max_cost_usd: float | None = None) -> None:
        self._cond = threading.Condition()
        self._by_role: dict[str, Usage] = {}
        self.in_flight = 0  # calls admitted and not yet finished
        self._reserved = Usage()
        self.max_total_tokens = max_total_tokens
        self.max_cost_usd = max_cost_usd

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, max_total_tokens: int | None = None,
                  max_cost_usd: float | None = None) -> UsageLedger:
        """A ledger holding the totals of `to_dict()` output, so a resumed run continues the spent total."""
        ledger = cls(max_total_tokens=max_total_tokens, max_cost_usd=max_cost_usd)
        ledger.restore(data)
        return ledger

    def restore(self, data: Mapping[str, Any]) -> None:
        """Replace the per-role totals with those of `to_dict()` output (ConfigError when malformed)."""
        by_role = data.get("by_role", {}) if isinstance(data, Mapping) else None
        if not isinstance(by_role, Mapping):
            raise ConfigError(f"usage record must be a mapping with 'by_role', got {data!r}")
        try:
            totals = {str(role): Usage(**dict(usage)) for role, usage in by_role.items()}
        except TypeError as exc:
            raise ConfigError(f"usage record has a malformed role total: {exc}") from None
        with self._cond:
            self._by_role = totals
            self._cond.notify_all()

    def record(self, role: str, usage: Usage) -> None:
        """Add usage to role's total."""
        with self._cond:
            self._by_role[role] = self._by_role.get(role, Usage()) + usage
            self._cond.notify_all()

    def total(self, role: str | None = None) -> Usage:
        """Usage of one role, or of all roles together when role is None."""
        with self._cond:
            if role is not None:
                return replace(self._by_role.get(role, Usage()))
            return sum(self._by_role.values(), Usage())

    def by_role(self) -> dict[str, Usage]:
        """A copy of the per-role totals."""
        with self._cond:
            return {role: replace(usage) for role, usage in self._by_role.items()}

    def set_budget(self, max_total_tokens: int | None = None, max_cost_usd: float | None = None) -> None:
        """Set (or clear, with None) the token and cost budgets shared by every role."""
        with self._cond:
            self.max_total_tokens = max_total_tokens
            self.max_cost_usd = max_cost_usd
            self._cond.notify_all()

    def budget_problem(self) -> str | None:
        """Why the budget is spent, or None while calls may continue."""
        with self._cond:
            spent = self.total()
            if self.max_total_tokens is not None and spent.total_tokens >= self.max_total_tokens:
                return f"token budget spent: {spent.total_tokens} of {self.max_total_tokens} tokens used"
            if self.max_cost_usd is not None and spent.cost >= self.max_cost_usd:
                return f"cost budget spent: ${spent.cost:.4f} of ${self.max_cost_usd:.4f} used"
            return None

    def check_budget(self) -> None:
        """Raise BudgetExceededError when a budget is spent."""
        problem = self.budget_problem()
        if problem is not None:
            raise BudgetExceededError(problem)

    @contextmanager
    def admit(self, max_tokens: int | None = None) -> Iterator[None]:
        """Hold a place for one call; waits while admitted calls could spend the rest, raises once it is spent (a
        call is always admitted when none is in flight)."""
        with self._cond:
            while True:
                self.check_budget()  # the condition's lock is re-entrant
                spent = self.total()  # one more call may spend its output limit or the mean call, whichever is more
                mean = (spent.total_tokens // spent.calls, spent.cost / spent.calls) if spent.calls else (0, 0.0)
                estimate = Usage(calls=1, output_tokens=max(max_tokens or 0, mean[0]), cost=mean[1])
                planned = spent + self._reserved + estimate
                tokens_fit = self.max_total_tokens is None or planned.total_tokens <= self.max_total_tokens
                cost_fits = self.max_cost_usd is None or planned.cost <= self.max_cost_usd
                if self.in_flight == 0 or (tokens_fit and cost_fits):
                    break
                self._cond.wait()
            self.in_flight += 1
            self._reserved = self._reserved + estimate
        try:
            yield
        finally:
            with self._cond:
                self.in_flight -= 1
                self._reserved = self._reserved - estimate
                self._cond.notify_all()

    def to_dict(self) -> dict[str, Any]:
        """Totals by role and overall, for run records (`from_dict` reads it back)."""
        return {"by_role": {r: u.to_dict() for r, u in self.by_role().items()}, "total": self.total().to_dict()}


_default_ledger = UsageLedger()


def default_ledger() -> UsageLedger:
    """The process-wide ledger of clients built without a run (a run's `Evolver` makes its own)."""
    return _default_ledger
