"""Accounting: what each model call cost, a thread-safe ledger by role, and token/cost budgets."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from agent_evolve.errors import BudgetExceededError, ConfigError
from agent_evolve.types import Usage

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


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


def _bare_name(model: str) -> str:
    name = model.split("/", 1)[1] if "/" in model else model
    for region in ("us.", "eu.", "apac.", "global.", "us-gov.", "jp.", "au.", "ca."):
        if name.startswith(region):
            name = name[len(region):]
            break
    return name.removeprefix("anthropic.")


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
    bare = _bare_name(model)
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
    return price.cost(usage.input_tokens, usage.output_tokens)


class UsageLedger:
    """Thread-safe running totals of model usage per role, with optional token and cost budgets."""

    def __init__(self, *, max_total_tokens: int | None = None, max_cost_usd: float | None = None) -> None:
        self._lock = threading.Lock()
        self._by_role: dict[str, Usage] = {}
        self.max_total_tokens = max_total_tokens
        self.max_cost_usd = max_cost_usd

    def record(self, role: str, usage: Usage) -> None:
        """Add usage to role's total."""
        with self._lock:
            self._by_role[role] = self._by_role.get(role, Usage()) + usage

    def total(self, role: str | None = None) -> Usage:
        """Usage of one role, or of all roles together when role is None."""
        with self._lock:
            if role is not None:
                return replace(self._by_role.get(role, Usage()))
            return sum(self._by_role.values(), Usage())

    def by_role(self) -> dict[str, Usage]:
        """A copy of the per-role totals."""
        with self._lock:
            return {role: replace(usage) for role, usage in self._by_role.items()}

    def set_budget(self, max_total_tokens: int | None = None, max_cost_usd: float | None = None) -> None:
        """Set (or clear, with None) the token and cost budgets shared by every role."""
        with self._lock:
            self.max_total_tokens = max_total_tokens
            self.max_cost_usd = max_cost_usd

    def budget_problem(self) -> str | None:
        """Why the budget is spent, or None while calls may continue."""
        spent = self.total()
        if self.max_total_tokens is not None and spent.total_tokens >= self.max_total_tokens:
            return f"token budget spent: {spent.total_tokens} of {self.max_total_tokens} tokens used"
        if self.max_cost_usd is not None and spent.cost >= self.max_cost_usd:
            return f"cost budget spent: ${spent.cost:.4f} of ${self.max_cost_usd:.4f} used"
        return None

    def check_budget(self) -> None:
        """Raise BudgetExceededError when a budget is spent; called before every metered request."""
        problem = self.budget_problem()
        if problem is not None:
            raise BudgetExceededError(problem)

    def reset(self) -> None:
        """Forget all recorded usage (budgets stay)."""
        with self._lock:
            self._by_role.clear()

    def to_dict(self) -> dict[str, Any]:
        """Totals by role and overall, for run records."""
        return {"by_role": {r: u.to_dict() for r, u in self.by_role().items()}, "total": self.total().to_dict()}


_default_ledger = UsageLedger()


def default_ledger() -> UsageLedger:
    """The process-wide ledger every metered client records into unless given another."""
    return _default_ledger
