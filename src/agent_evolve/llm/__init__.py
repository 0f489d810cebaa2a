"""LLM clients for every provider, the tool loop, structured output and usage accounting; names load on first access,
so importing this package imports no provider SDK."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_MODULES: dict[str, tuple[str, ...]] = {
    "base": ("Completion", "LLMClient", "Message", "ToolCall", "ToolSpec"),
    "errors": ("AuthenticationError", "ContextLengthError", "LLMError", "LLMTimeoutError", "ModelChecksumError",
               "ProviderConnectionError", "ProviderRequestError", "ProviderServerError", "RateLimitError",
               "StructuredOutputError", "ToolLoopError", "redact"),
    "models": ("DEFAULT_MODEL", "LOCAL_MODELS", "ModelRef", "parse_model"),
    "usage": ("Price", "UsageLedger", "cost_of", "default_ledger", "price_for"),
    "cache": ("ResponseCache",),
    "metered": ("MeteredClient", "RetryPolicy", "concurrency_limit", "set_concurrency_limit"),
    "tool_loop": ("Tool", "ToolExecution", "ToolLoopResult", "run_tool_loop"),
    "structured": ("complete_json", "extract_json"),
    "factory": ("apply_config_limits", "client_from_config", "make_client"),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agent_evolve.llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"agent_evolve.llm.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from agent_evolve.llm.base import Completion, LLMClient, Message, ToolCall, ToolSpec
    from agent_evolve.llm.cache import ResponseCache
    from agent_evolve.llm.errors import (
        AuthenticationError,
        ContextLengthError,
        LLMError,
        LLMTimeoutError,
        ModelChecksumError,
        ProviderConnectionError,
        ProviderRequestError,
        ProviderServerError,
        RateLimitError,
        StructuredOutputError,
        ToolLoopError,
        redact,
    )
    from agent_evolve.llm.factory import apply_config_limits, client_from_config, make_client
    from agent_evolve.llm.metered import MeteredClient, RetryPolicy, concurrency_limit, set_concurrency_limit
    from agent_evolve.llm.models import DEFAULT_MODEL, LOCAL_MODELS, ModelRef, parse_model
    from agent_evolve.llm.structured import complete_json, extract_json
    from agent_evolve.llm.tool_loop import Tool, ToolExecution, ToolLoopResult, run_tool_loop
    from agent_evolve.llm.usage import Price, UsageLedger, cost_of, default_ledger, price_for
