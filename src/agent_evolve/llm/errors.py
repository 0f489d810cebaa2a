"""Typed errors of the LLM layer, and secret redaction so no API key reaches a message or a log."""

from __future__ import annotations

import os
import re
import threading

from agent_evolve.errors import AgentEvolveError

REDACTED = "[REDACTED]"

# Key shapes worth hiding even when we were never told the value (OpenAI, Anthropic, AWS, bearer tokens, the
# user:password of a URL such as a base URL with basic auth).
_KEY_PATTERNS = re.compile(
    r"(sk-[A-Za-z0-9_\-]{8,}|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|(?<=Bearer )[A-Za-z0-9._\-]{8,}|(?<=://)[^/@\s]+(?=@))"
)
_SECRET_ENV_HINTS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
_secrets: set[str] = set()
_secrets_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Remember a secret (an API key a client was built with) so every later redact() hides it."""
    if value and len(value) >= 6:
        with _secrets_lock:
            _secrets.add(value)


def redact(text: str) -> str:
    """Return text with registered secrets, secret-looking env values and key-shaped strings replaced."""
    from_env = {v for k, v in os.environ.items() if any(h in k.upper() for h in _SECRET_ENV_HINTS) and len(v) >= 12}
    with _secrets_lock:
        known = sorted(_secrets | from_env, key=len, reverse=True)
    for secret in known:
        text = text.replace(secret, REDACTED)
    return _KEY_PATTERNS.sub(REDACTED, text)


class LLMError(AgentEvolveError):
    """A model call failed; the message names provider and model and never contains a secret."""

    retryable: bool = False
    retry_after_s: float | None = None  # the server's Retry-After, when it sent one

    def __init__(self, message: str, *, provider: str, model: str, status_code: int | None = None) -> None:
        self.provider = provider
        self.model = model
        self.status_code = status_code
        prefix = f"{provider}/{model}: "
        text = message if message.startswith(prefix) else prefix + message
        super().__init__(redact(text))


class RateLimitError(LLMError):
    """The provider answered 429 (rate limit or throttling); retried with backoff."""

    retryable = True


class ProviderServerError(LLMError):
    """The provider answered 5xx or was overloaded; retried with backoff."""

    retryable = True


class LLMTimeoutError(LLMError):
    """The call did not finish within the configured timeout; retried with backoff."""

    retryable = True


class ProviderConnectionError(LLMError):
    """The provider could not be reached (refused, reset, DNS); retried with backoff."""

    retryable = True


class ProviderRequestError(LLMError):
    """The provider rejected the request (4xx other than 429: bad request, auth, not found); not retried."""


class ProviderSetupError(ProviderRequestError):
    """No request can succeed as configured: no such model or endpoint (404), the account's quota or credit spent;
    fatal: no retry or task can fix it."""

    fatal = True


class AuthenticationError(ProviderSetupError):
    """The provider refused the credentials (401) or the permission (403); fatal."""


class ContextLengthError(ProviderRequestError):
    """The prompt does not fit the model's context window; not retried."""


class StructuredOutputError(LLMError):
    """The model's reply was not JSON matching the schema, even after one repair attempt."""

    def __init__(self, message: str, *, provider: str, model: str, raw_text: str) -> None:
        super().__init__(message, provider=provider, model=model)
        self.raw_text = raw_text


class ToolLoopError(AgentEvolveError):
    """A tool loop was set up wrongly (duplicate tool names, a turn limit below one)."""


class ModelChecksumError(AgentEvolveError):
    """A joined local model file does not have the expected sha256; the bad file was deleted."""


_SPENT = ("current quota", "insufficient_quota", "credit balance")  # an account out of money


def error_for_status(status: int | None, detail: str, *, provider: str, model: str) -> LLMError:
    """Map an HTTP status (None when unknown) and a provider message to the matching typed error."""
    lowered = detail.lower()
    where = {"provider": provider, "model": model, "status_code": status}
    if status is not None and 400 <= status < 500 and any(k in lowered for k in _SPENT):
        return ProviderSetupError(f"quota or credit spent ({status}): check the plan and billing: {detail}", **where)
    if status == 429:
        return RateLimitError(f"rate limited (429): {detail}", **where)
    if status is not None and (status >= 500 or status == 408):
        return ProviderServerError(f"server error ({status}): {detail}", **where)
    if any(k in lowered for k in ("context length", "context_length", "too long", "context window", "context size")):
        return ContextLengthError(f"prompt too long for the context window: {detail}", **where)
    if status in (401, 403):
        return AuthenticationError(f"credentials rejected ({status}): check the API key or permissions: {detail}",
                                   **where)
    if status == 404:
        return ProviderSetupError(f"not found (404): check the model name and the base URL: {detail}", **where)
    if status is not None and 400 <= status < 500:
        return ProviderRequestError(f"request rejected ({status}): {detail}", **where)
    return LLMError(detail, **where)
