"""OpenAI chat completions, for OpenAI itself and any compatible server (vLLM, Ollama, llama.cpp server)."""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from agent_evolve.errors import MissingDependencyError
from agent_evolve.llm.base import Completion, FinishReason, Message, ToolCall, ToolSpec
from agent_evolve.llm.errors import ProviderRequestError
from agent_evolve.llm.providers._common import SdkClient, decode_arguments, one_call, read_key

log = logging.getLogger(__name__)
_without_usage: set[str] = set()  # models whose server sent a reply without token counts (warned about once)
_FINISH: dict[str, FinishReason] = {
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "error",
}


def to_wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Our messages in the chat-completions format (tool calls with JSON-string arguments)."""
    wire: list[dict[str, Any]] = []
    for msg in messages:
        if msg.role == "tool":
            wire.append({"role": "tool", "tool_call_id": msg.tool_call_id or "", "content": msg.content})
        elif msg.role == "assistant" and msg.tool_calls:
            calls = [{"id": c.id, "type": "function",
                      "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for c in msg.tool_calls]
            wire.append({"role": "assistant", "content": msg.content or None, "tool_calls": calls})
        else:
            wire.append({"role": msg.role, "content": msg.content})
    return wire


class OpenAIChatClient(SdkClient):
    """An LLMClient over the openai SDK; the SDK's own retries are off so only ours count."""

    sdk = ("openai", "openai", "OpenAI")
    default_temperature_only = False  # found true when the model refuses a temperature (OpenAI's reasoning models)

    def __init__(self, model: str, name: str, *, provider: str = "openai", base_url: str | None = None,
                 timeout_s: float = 120.0) -> None:
        super().__init__(model, name, provider=provider, base_url=base_url, timeout_s=timeout_s)
        key = read_key("OPENAI_API_KEY", model)
        if key is None and provider == "openai" and base_url is None and not os.environ.get("OPENAI_BASE_URL"):
            raise MissingDependencyError(
                f"{model}: no API key; set the OPENAI_API_KEY environment variable "
                "(or give a base_url for a compatible server that needs none)"
            )
        self._api_key = key or "not-needed"  # compatible servers often need no key, but the SDK wants one

    def _request(self, messages: list[Message], tools: list[ToolSpec] | None, max_tokens: int | None,
                 temperature: float, stop: list[str] | None) -> Any:
        """One chat-completions request, with SDK errors turned into our typed errors."""
        params: dict[str, Any] = {"model": self.name, "messages": to_wire_messages(messages)}
        if not self.default_temperature_only:
            params["temperature"] = temperature
        if tools:
            params["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                                 "parameters": t.parameters}} for t in tools]
        if max_tokens is not None:
            # OpenAI itself wants max_completion_tokens; compatible servers know max_tokens.
            key = "max_completion_tokens" if self.provider == "openai" and self.base_url is None else "max_tokens"
            params[key] = max_tokens
        if stop:
            params["stop"] = stop
        try:
            with self.api_errors():
                return self._sdk_client().chat.completions.create(**params)
        except ProviderRequestError as exc:
            if "temperature" not in params or exc.status_code != 400 or "'temperature'" not in str(exc):
                raise
        self.default_temperature_only = True
        log.warning("%s takes only its default temperature; its requests no longer set one", self.model)
        return self._request(messages, tools, max_tokens, temperature, stop)

    def _to_completion(self, response: Any) -> Completion:
        if not response.choices:
            raise ValueError("the server returned no choices")
        choice = response.choices[0]
        calls = [ToolCall(id=c.id, name=c.function.name, arguments=decode_arguments(c.function.arguments))
                 for c in (choice.message.tool_calls or []) if getattr(c, "function", None) is not None]
        finish = _FINISH.get(choice.finish_reason or "stop", "stop")
        if calls and finish == "stop":
            finish = "tool_calls"
        usage = response.usage
        if usage is None and self.model not in _without_usage:
            _without_usage.add(self.model)
            log.warning("%s: the server reports no token usage; token and cost budgets cannot count its calls",
                        self.model)
        return one_call(self.model, choice.message.content or "", calls, finish,
                        (usage.prompt_tokens or 0) if usage else 0, (usage.completion_tokens or 0) if usage else 0)
