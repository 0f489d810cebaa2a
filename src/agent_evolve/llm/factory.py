"""Build the metered client for a model string, or for a role from an EvolveConfig."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent_evolve.errors import ConfigError
from agent_evolve.llm.base import LLMClient
from agent_evolve.llm.cache import ResponseCache
from agent_evolve.llm.concurrency import set_concurrency_limit
from agent_evolve.llm.metered import MeteredClient
from agent_evolve.llm.models import LOCAL_MODELS, ModelRef, parse_model
from agent_evolve.llm.retry import RetryPolicy
from agent_evolve.llm.usage import UsageLedger, default_ledger, validate_prices

if TYPE_CHECKING:
    from agent_evolve.config import EvolveConfig

ROLES = ("agent", "engine", "judge")


def make_provider(
    ref: ModelRef, *, base_url: str | None = None, timeout_s: float = 120.0, n_ctx: int = 4096
) -> LLMClient:
    """The raw (unmetered) client for a parsed model string; the SDK itself is imported on first use."""
    url = base_url or ref.default_base_url
    if ref.provider in ("openai", "ollama", "vllm"):
        from agent_evolve.llm.providers.openai_chat import OpenAIChatClient

        return OpenAIChatClient(ref.full, ref.name, provider=ref.provider, base_url=url, timeout_s=timeout_s)
    if ref.provider == "anthropic":
        from agent_evolve.llm.providers.anthropic_messages import AnthropicMessagesClient

        return AnthropicMessagesClient(ref.full, ref.name, base_url=url, timeout_s=timeout_s)
    if ref.provider == "bedrock":
        from agent_evolve.llm.providers.bedrock_converse import BedrockConverseClient

        return BedrockConverseClient(ref.full, ref.name, base_url=url, timeout_s=timeout_s)
    from agent_evolve.llm.providers.llama_cpp_local import LocalLlamaClient

    return LocalLlamaClient(ref.full, LOCAL_MODELS[ref.name], n_ctx=n_ctx, timeout_s=timeout_s)


def make_client(
    model: str,
    *,
    role: str = "agent",
    base_url: str | None = None,
    timeout_s: float = 120.0,
    max_retries: int = 3,
    retry_base_delay_s: float = 1.0,
    ledger: UsageLedger | None = None,
    cache_dir: str | None = None,
    prices: Mapping[str, Any] | None = None,
    n_ctx: int = 4096,
) -> MeteredClient:
    """A metered client for model ('provider/name' or a bare Bedrock id), recording under role."""
    ref = parse_model(model)
    validate_prices(prices or {})
    inner = make_provider(ref, base_url=base_url, timeout_s=timeout_s, n_ctx=n_ctx)
    return MeteredClient(
        inner,
        role=role,
        ledger=ledger if ledger is not None else default_ledger(),
        retry=RetryPolicy(max_retries=max_retries, base_delay_s=retry_base_delay_s),
        cache=ResponseCache(cache_dir) if cache_dir else None,
        prices=prices,
    )


def client_from_config(config: EvolveConfig, role: str, *, ledger: UsageLedger | None = None) -> MeteredClient:
    """The client for a role: agent_model for 'agent', evolver_model for 'engine' and 'judge'."""
    if role not in ROLES:
        raise ConfigError(f"unknown model role {role!r}; roles: {', '.join(ROLES)}")
    return make_client(
        config.agent_model if role == "agent" else config.evolver_model,
        role=role,
        base_url=config.llm_base_url,
        timeout_s=config.llm_timeout_s,
        max_retries=config.llm_max_retries,
        ledger=ledger,
        cache_dir=config.llm_cache_dir,
        prices=config.prices,
    )


def apply_config_limits(config: EvolveConfig, ledger: UsageLedger | None = None) -> UsageLedger:
    """Set the process-wide concurrency limit and the ledger's budgets from config; return the ledger."""
    target = ledger if ledger is not None else default_ledger()
    set_concurrency_limit(config.concurrency)
    target.set_budget(max_total_tokens=config.max_total_tokens, max_cost_usd=config.max_cost_usd)
    return target
