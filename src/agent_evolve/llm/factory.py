"""Build the metered client for a model string, or for a role from an EvolveConfig."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agent_evolve.errors import ConfigError
from agent_evolve.llm.base import LLMClient
from agent_evolve.llm.cache import ResponseCache
from agent_evolve.llm.errors import redact
from agent_evolve.llm.metered import MeteredClient, RetryPolicy, set_concurrency_limit
from agent_evolve.llm.models import LOCAL_MODELS, OPENAI_COMPATIBLE, ModelRef, parse_model
from agent_evolve.llm.usage import UsageLedger, default_ledger, validate_prices

if TYPE_CHECKING:
    from agent_evolve.config import EvolveConfig

ROLES = ("agent", "engine", "judge")
# Per-call timeouts when none is configured: a remote provider answers in seconds or is stuck; the embedded model
# on 2 cores generates about 4 tokens/s per stream when 4 requests share a batch, so a 512-token answer needs minutes.
REMOTE_TIMEOUT_S = 120.0
LOCAL_TIMEOUT_S = 1800.0


def make_provider(ref: ModelRef, *, base_url: str | None = None, timeout_s: float | None = None, seed: int = 0
                  ) -> LLMClient:
    """The raw (unmetered) client for a parsed model string (SDK imported on first use); `seed` is the local model's
    sampling seed, `timeout_s` None the provider kind's default (REMOTE_TIMEOUT_S or LOCAL_TIMEOUT_S)."""
    url = base_url or ref.default_base_url
    if url is not None and not _is_http_url(url):
        raise ConfigError(f"{ref.full}: base URL {redact(url)!r} is not an http:// or https:// URL with a host "
                          "(and a numeric port, if any)")
    if timeout_s is None:
        timeout_s = LOCAL_TIMEOUT_S if ref.provider == "local" else REMOTE_TIMEOUT_S
    if ref.provider in OPENAI_COMPATIBLE:
        from agent_evolve.llm.providers.openai_chat import OpenAIChatClient

        return OpenAIChatClient(ref.full, ref.name, provider=ref.provider, base_url=url, timeout_s=timeout_s)
    if ref.provider == "anthropic":
        from agent_evolve.llm.providers.anthropic_messages import AnthropicMessagesClient

        return AnthropicMessagesClient(ref.full, ref.name, base_url=url, timeout_s=timeout_s)
    if ref.provider == "bedrock":
        from agent_evolve.llm.providers.bedrock_converse import BedrockConverseClient

        return BedrockConverseClient(ref.full, ref.name, base_url=url, timeout_s=timeout_s)
    from agent_evolve.llm.providers.llama_cpp_local import LocalLlamaClient

    return LocalLlamaClient(ref.full, LOCAL_MODELS[ref.name], timeout_s=timeout_s, seed=seed)


def _is_http_url(url: str) -> bool:
    """Whether url is http(s)://host[:port][/path]: the shape every provider's SDK can send to."""
    try:
        parts = urlsplit(url)
        return (parts.scheme in ("http", "https") and bool(parts.hostname) and not any(c.isspace() for c in url)
                and (parts.port is None or parts.port > 0))
    except ValueError:  # a port that is not a number in range
        return False


def make_client(model: str, *, role: str = "agent", base_url: str | None = None, timeout_s: float | None = None,
                max_retries: int = 3, retry_base_delay_s: float = 1.0, ledger: UsageLedger | None = None,
                cache_dir: str | None = None, prices: Mapping[str, Any] | None = None, seed: int = 0
                ) -> MeteredClient:
    """A metered client for model ('provider/name' or a bare Bedrock id), recording under role."""
    ref = parse_model(model)
    validate_prices(prices or {})
    inner = make_provider(ref, base_url=base_url, timeout_s=timeout_s, seed=seed)
    return MeteredClient(inner, role=role, ledger=ledger, prices=prices, seed=seed,
                         retry=RetryPolicy(max_retries=max_retries, base_delay_s=retry_base_delay_s),
                         cache=ResponseCache(cache_dir) if cache_dir else None)


def metered_on(client: LLMClient, role: str, ledger: UsageLedger, prices: Mapping[str, Any] | None = None
               ) -> MeteredClient:
    """`client` recording into `ledger` under `role`: one already metered there as it is, any other wrapped without
    retries or a cache (it keeps its own), so a user's own client counts toward the run's usage and budgets."""
    if isinstance(client, MeteredClient) and client.ledger is ledger:
        return client
    return MeteredClient(client, role=role, ledger=ledger, retry=RetryPolicy(max_retries=0), prices=prices)


@dataclass(frozen=True)
class RoleSettings:
    """The model settings of one role: the agent's come from agent_*, the engine's and judge's from evolver_*."""

    model: str
    base_url: str | None
    timeout_s: float | None
    max_tokens: int | None


def role_settings(config: EvolveConfig, role: str) -> RoleSettings:
    """A role's settings; `llm_base_url` applies to the agent only, `llm_timeout_s` to every role without its own."""
    if role not in ROLES:
        raise ConfigError(f"unknown model role {role!r}; roles: {', '.join(ROLES)}")
    if role == "agent":
        return RoleSettings(config.agent_model, config.agent_base_url or config.llm_base_url,
                            config.agent_timeout_s or config.llm_timeout_s, config.agent_max_tokens)
    return RoleSettings(config.evolver_model, config.evolver_base_url,
                        config.evolver_timeout_s or config.llm_timeout_s, config.evolver_max_tokens)


def client_from_config(config: EvolveConfig, role: str, *, ledger: UsageLedger | None = None,
                       seed: int = 0) -> MeteredClient:
    """The client for a role (see `role_settings`), recording into `ledger` (the process-wide one when None)."""
    settings = role_settings(config, role)
    return make_client(settings.model, role=role, base_url=settings.base_url, timeout_s=settings.timeout_s,
                       max_retries=config.llm_max_retries, ledger=ledger, cache_dir=config.llm_cache_dir,
                       prices=config.prices, seed=seed)


def apply_config_limits(config: EvolveConfig, ledger: UsageLedger | None = None) -> UsageLedger:
    """Set the process-wide concurrency limit (it protects the machine and the provider, not a run) and the
    ledger's budgets from config; return the ledger."""
    target = ledger if ledger is not None else default_ledger()
    set_concurrency_limit(config.in_flight)
    target.set_budget(max_total_tokens=config.max_total_tokens, max_cost_usd=config.max_cost_usd)
    return target
