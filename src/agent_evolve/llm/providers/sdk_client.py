"""SdkClient: what the providers over a vendor SDK share (the lazily built SDK client, the repr, typed errors)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, ClassVar

from agent_evolve.llm.errors import LLMTimeoutError, ProviderConnectionError, error_for_status
from agent_evolve.llm.providers._common import import_sdk, malformed_body, with_retry_after


class SdkClient:
    """Base of the SDK-backed LLMClients; a subclass builds its SDK client in `_connect`."""

    model: str
    name: str
    provider: str
    timeout_s: float
    base_url: str | None
    _api_key: str
    _client: Any = None
    shown: ClassVar[str] = "base_url"  # the attribute the repr shows besides the model
    sdk: ClassVar[tuple[str, str, str]] = ("", "", "")  # the SDK's module, the extra installing it, its client class

    def __init__(self, model: str, name: str, *, provider: str, base_url: str | None, timeout_s: float) -> None:
        self.model = model
        self.name = name
        self.provider = provider
        self.base_url = base_url
        self.timeout_s = timeout_s

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, {self.shown}={getattr(self, self.shown)!r})"

    def _sdk_client(self) -> Any:
        """The SDK client, built on first use (so a client can be made without the SDK installed)."""
        if self._client is None:
            self._client = self._connect()
        return self._client

    def sdk_module(self) -> ModuleType:
        """The vendor SDK, or MissingDependencyError naming the extra that installs it."""
        return import_sdk(self.sdk[0], self.sdk[1])

    def _connect(self) -> Any:
        """A new SDK client (of the openai/anthropic family) with the SDK's own retries off, so only ours count."""
        client_class = getattr(self.sdk_module(), self.sdk[2])
        return client_class(api_key=self._api_key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0)

    def timed_out(self) -> LLMTimeoutError:
        """The error for a request that got no answer within `timeout_s`."""
        return LLMTimeoutError(f"no answer within {self.timeout_s:g}s", provider=self.provider, model=self.name)

    def unreachable(self, exc: BaseException, what: str = "the server") -> ProviderConnectionError:
        """The error for a request that could not reach `what`."""
        return ProviderConnectionError(f"cannot reach {what}: {exc}", provider=self.provider, model=self.name)

    @contextmanager
    def api_errors(self, sdk: ModuleType) -> Iterator[None]:
        """Errors of the openai and anthropic SDKs (one family: timeout, connection, status) as our typed errors."""
        try:
            yield
        except sdk.APITimeoutError:
            raise self.timed_out() from None
        except sdk.APIConnectionError as exc:
            raise self.unreachable(exc) from None
        except sdk.APIStatusError as exc:
            error = error_for_status(exc.status_code, str(exc), provider=self.provider, model=self.name)
            raise with_retry_after(error, exc.response.headers) from None
        except ValueError as exc:
            raise malformed_body(exc, provider=self.provider, model=self.name) from None
