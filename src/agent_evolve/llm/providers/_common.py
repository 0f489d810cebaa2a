"""What every provider shares: API keys, argument decoding, reply checks, turn merging, and :class:`SdkClient`, the
base of the providers over a vendor SDK (built on first use, its errors typed)."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from email.utils import parsedate_to_datetime
from types import ModuleType
from typing import Any, ClassVar

from agent_evolve.contract.paths import clean_text
from agent_evolve.errors import AgentEvolveError, ConfigError, optional_module
from agent_evolve.io.safe_json import parse_json
from agent_evolve.llm.base import UNPARSED_ARGUMENTS, Completion, FinishReason, Message, ToolCall, ToolSpec
from agent_evolve.llm.errors import (LLMError, LLMTimeoutError, ProviderConnectionError, ProviderServerError,
                                     error_for_status, redact, register_secret)
from agent_evolve.types import Usage

MAX_ARGUMENT_CHARS = 1_000_000
_SHAPE_ERRORS = (AttributeError, TypeError, KeyError, IndexError, ValueError)
# How the content-block APIs (Anthropic messages, Bedrock Converse) say why a reply ended; any other reason: stop.
BLOCK_FINISH: dict[str, FinishReason] = {
    "max_tokens": "length", "model_context_window_exceeded": "length", "tool_use": "tool_calls", "refusal": "error",
    "guardrail_intervened": "error", "content_filtered": "error",
}


class MalformedReplyError(ProviderServerError):
    """The server answered 200 with a body that is not the API's reply shape (truncated, HTML, wrong types); retried."""


def decode_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict, whether the wire sent a JSON string, a dict or something malformed."""
    if isinstance(raw, dict):
        return raw
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = parse_json(raw, "tool-call arguments", max_chars=MAX_ARGUMENT_CHARS)
        except AgentEvolveError:  # not bounded JSON
            return {UNPARSED_ARGUMENTS: raw[:MAX_ARGUMENT_CHARS]}
    return raw if isinstance(raw, dict) else {"_value": raw}


def read_key(env_var: str, model: str) -> str | None:
    """The API key in `env_var` (None when unset), stripped and registered for redaction; ConfigError when
    it cannot travel in an HTTP header (a line break, space or quote pasted inside it)."""
    key = (os.environ.get(env_var) or "").strip() or None
    register_secret(key)
    if key is not None and not (key.isascii() and key.isprintable() and " " not in key):
        raise ConfigError(f"{model}: the API key in {env_var} has a space, line break or non-ASCII character inside; "
                          "set it again without them")
    return key


def checked_completion(build: Callable[[Any], Completion], response: Any, *, provider: str, model: str) -> Completion:
    """``build(response)`` with its text's lone surrogates replaced, or :class:`MalformedReplyError` when the reply
    does not have the API's shape."""
    try:
        if isinstance(response, str):  # what the SDKs return for a body that is not JSON, such as an event stream
            raise ValueError(f"the body is text, not JSON (a streaming-only server?): {response[:80]!r}")
        completion = build(response)
        problem = _completion_problem(completion)
    except _SHAPE_ERRORS as exc:
        problem = f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    if problem:
        raise MalformedReplyError(f"malformed reply: {problem}", provider=provider, model=model)
    return replace(completion, text=clean_text(completion.text))


def one_call(model: str, text: str, calls: list[ToolCall], finish: FinishReason, input_tokens: int,
             output_tokens: int) -> Completion:
    """The Completion of one model call: its text, tool calls, why it ended and its token counts."""
    return Completion(text=text, tool_calls=calls, finish_reason=finish, model=model,
                      usage=Usage(calls=1, input_tokens=input_tokens, output_tokens=output_tokens))


def malformed_body(exc: BaseException, *, provider: str, model: str) -> MalformedReplyError:
    """The error for a 200 reply whose body could not even be decoded (truncated, empty, not JSON)."""
    return MalformedReplyError(f"the reply body could not be decoded: {' '.join(str(exc).split())[:200]}",
                               provider=provider, model=model)


def with_retry_after(error: LLMError, headers: Any) -> LLMError:
    """``error`` carrying the server's ``Retry-After`` (seconds or an HTTP date), so the retry waits that long."""
    try:
        raw = headers.get("retry-after") if headers is not None else None
    except (AttributeError, TypeError):
        raw = None
    if isinstance(raw, str) and raw.strip():
        try:
            seconds = float(raw)
        except ValueError:
            try:
                seconds = parsedate_to_datetime(raw).timestamp() - time.time()
            except (TypeError, ValueError, IndexError):
                return error
        if math.isfinite(seconds):
            error.retry_after_s = max(0.0, seconds)
    return error


def _completion_problem(completion: Completion) -> str | None:
    if not isinstance(completion.text, str):
        return f"the text is a {type(completion.text).__name__}, not a string"
    for call in completion.tool_calls:
        if not isinstance(call.id, str) or not isinstance(call.name, str) or not call.name:
            return "a tool call has no string id or name"
    usage = completion.usage
    for name in ("input_tokens", "output_tokens"):
        value = getattr(usage, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"usage {name} is {value!r}, not a count"
    return None


def merged_turns(messages: list[Message],
                 blocks_of: Callable[[Message], tuple[str, list[dict[str, Any]]]]) -> tuple[str, list[dict[str, Any]]]:
    """(system prompt, turns) for the content-block APIs: each message as `blocks_of` gives (role, blocks), empty
    ones dropped and consecutive same-role turns merged into one; every system message is joined into the prompt."""
    system = "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
    wire: list[dict[str, Any]] = []
    for msg in (m for m in messages if m.role != "system"):
        role, blocks = blocks_of(msg)
        if not blocks:
            continue
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    return system, wire


class SdkClient:
    """Base of the SDK-backed LLMClients; a subclass builds its SDK client in `_connect`."""

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
        return redact(f"{type(self).__name__}(model={self.model!r}, {self.shown}={getattr(self, self.shown)!r})")

    def _sdk_client(self) -> Any:
        """The SDK client, built on first use (so a client can be made without the SDK installed)."""
        if self._client is None:
            self._client = self._connect()
        return self._client

    def sdk_module(self, module: str = "") -> ModuleType:
        """The vendor SDK (or its `module`), or MissingDependencyError naming the extra that installs it."""
        return optional_module(module or self.sdk[0], self.sdk[1], f"{self.model}: this model")

    def _connect(self) -> Any:
        """A new SDK client (of the openai/anthropic family) with the SDK's own retries off, so only ours count."""
        client_class = getattr(self.sdk_module(), self.sdk[2])
        return client_class(api_key=self._api_key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0)

    def timed_out(self) -> LLMTimeoutError:
        """The error for a request that got no answer within `timeout_s`."""
        return LLMTimeoutError(f"no answer within {self.timeout_s:g}s", provider=self.provider, model=self.name)

    def unreachable(self, exc: BaseException, what: str = "") -> ProviderConnectionError:
        """The error for a request that could not reach `what` (the base URL by default), with the SDK's cause."""
        cause = f" ({exc.__cause__})" if exc.__cause__ is not None and str(exc.__cause__) not in str(exc) else ""
        return ProviderConnectionError(f"cannot reach {what or self.base_url or 'the provider'}: {exc}{cause}",
                                       provider=self.provider, model=self.name)

    def complete(self, messages: list[Message], *, tools: list[ToolSpec] | None = None, max_tokens: int | None = None,
                 temperature: float = 0.0, stop: list[str] | None = None) -> Completion:
        """One request to the vendor (`_request`), its reply checked and converted (`_to_completion`)."""
        response = self._request(messages, tools, max_tokens, temperature, stop)
        return checked_completion(self._to_completion, response, provider=self.provider, model=self.name)

    def _request(self, messages: list[Message], tools: list[ToolSpec] | None, max_tokens: int | None,
                 temperature: float, stop: list[str] | None) -> Any:
        """The vendor's raw reply to one request, its errors raised as our typed errors."""
        raise NotImplementedError

    def _to_completion(self, response: Any) -> Completion:
        """The vendor's raw reply as a Completion (a reply of the wrong shape raises one of `_SHAPE_ERRORS`)."""
        raise NotImplementedError

    @contextmanager
    def api_errors(self) -> Iterator[None]:
        """Errors of the openai and anthropic SDKs (one family: timeout, connection, status) as our typed errors."""
        sdk = self.sdk_module()
        try:
            yield
        except sdk.APITimeoutError:
            raise self.timed_out() from None
        except sdk.APIConnectionError as exc:
            raise self.unreachable(exc) from None
        except sdk.APIStatusError as exc:
            detail = f"{exc} ({exc.request.method} {exc.request.url})"  # the URL shows a base URL's missing /v1
            error = error_for_status(exc.status_code, detail, provider=self.provider, model=self.name)
            raise with_retry_after(error, exc.response.headers) from None
        except ValueError as exc:
            raise malformed_body(exc, provider=self.provider, model=self.name) from None
