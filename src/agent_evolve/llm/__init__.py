"""LLM clients for every provider, the tool loop, structured output and usage accounting; a provider's SDK is
imported only when a client of that provider is first used."""

from __future__ import annotations

from agent_evolve.llm.base import Completion, LLMClient, Message, ToolCall, ToolSpec
from agent_evolve.llm.cache import ResponseCache
from agent_evolve.llm.errors import (AuthenticationError, ContextLengthError, LLMError, LLMTimeoutError,
                                     ModelChecksumError, ProviderConnectionError, ProviderRequestError,
                                     ProviderServerError, ProviderSetupError, RateLimitError, StructuredOutputError,
                                     ToolLoopError, redact)
from agent_evolve.llm.factory import apply_config_limits, client_from_config, make_client
from agent_evolve.llm.metered import MeteredClient, RetryPolicy, concurrency_limit, set_concurrency_limit
from agent_evolve.llm.models import DEFAULT_MODEL, LOCAL_MODELS, ModelRef, parse_model
from agent_evolve.llm.structured import complete_json, extract_json
from agent_evolve.llm.tool_loop import Tool, ToolExecution, ToolLoopResult, run_tool_loop
from agent_evolve.llm.usage import Price, UsageLedger, cost_of, default_ledger, price_for

__all__ = [
    "AuthenticationError", "Completion", "ContextLengthError", "DEFAULT_MODEL", "LLMClient", "LLMError",
    "LLMTimeoutError", "LOCAL_MODELS", "Message", "MeteredClient", "ModelChecksumError", "ModelRef", "Price",
    "ProviderConnectionError", "ProviderRequestError", "ProviderServerError", "ProviderSetupError", "RateLimitError",
    "ResponseCache", "RetryPolicy", "StructuredOutputError", "Tool", "ToolCall", "ToolExecution", "ToolLoopError",
    "ToolLoopResult", "ToolSpec", "UsageLedger", "apply_config_limits", "client_from_config", "complete_json",
    "concurrency_limit", "cost_of", "default_ledger", "extract_json", "make_client", "parse_model", "price_for",
    "redact", "run_tool_loop", "set_concurrency_limit",
]
