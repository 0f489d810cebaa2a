"""Anthropic messages API: system prompt apart, tool_use and tool_result content blocks."""

from __future__ import annotations

import inspect
from typing import Any

from agent_evolve.errors import MissingDependencyError
from agent_evolve.llm.base import Completion, Message, ToolCall, ToolSpec
from agent_evolve.llm.providers._common import (BLOCK_FINISH, SdkClient, decode_arguments, merged_turns, one_call,
                                                read_key)

DEFAULT_MAX_TOKENS = 4096  # the messages API requires max_tokens


def _blocks(msg: Message) -> tuple[str, list[dict[str, Any]]]:
    if msg.role == "tool":
        return "user", [{"type": "tool_result", "tool_use_id": msg.tool_call_id or "", "content": msg.content}]
    blocks: list[dict[str, Any]] = [{"type": "text", "text": msg.content}] if msg.content else []
    if msg.role == "assistant":
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in msg.tool_calls]
    return msg.role, blocks


class AnthropicMessagesClient(SdkClient):
    """An LLMClient over the anthropic SDK; the SDK's own retries are off so only ours count."""

    sdk = ("anthropic", "anthropic", "Anthropic")

    def __init__(self, model: str, name: str, *, base_url: str | None = None, timeout_s: float = 120.0) -> None:
        super().__init__(model, name, provider="anthropic", base_url=base_url, timeout_s=timeout_s)
        key = read_key("ANTHROPIC_API_KEY", model)
        if key is None:
            raise MissingDependencyError(f"{model}: no API key; set the ANTHROPIC_API_KEY environment variable")
        self._api_key = key

    def _request(self, messages: list[Message], tools: list[ToolSpec] | None, max_tokens: int | None,
                 temperature: float, stop: list[str] | None) -> Any:
        """One messages-API request, with SDK errors turned into our typed errors."""
        system, wire = merged_turns(messages, _blocks)  # consecutive same-role turns merged
        client = self._sdk_client()
        params: dict[str, Any] = {"model": self.name, "messages": wire, "max_tokens": max_tokens or DEFAULT_MAX_TOKENS}
        if "temperature" in inspect.signature(client.messages.create).parameters:
            params["temperature"] = temperature  # newer SDKs (2.x) no longer take sampling parameters
        if system:
            params["system"] = system
        if tools:
            params["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.parameters}
                               for t in tools]
        if stop:
            params["stop_sequences"] = stop
        with self.api_errors():
            return client.messages.create(**params)

    def _to_completion(self, response: Any) -> Completion:
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in response.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                calls.append(ToolCall(id=block.id, name=block.name, arguments=decode_arguments(block.input)))
        finish = BLOCK_FINISH.get(response.stop_reason, "stop")
        usage = response.usage
        input_tokens = (usage.input_tokens or 0) + (getattr(usage, "cache_creation_input_tokens", 0) or 0) + (
            getattr(usage, "cache_read_input_tokens", 0) or 0
        )
        return one_call(self.model, "".join(texts), calls, finish, input_tokens, usage.output_tokens or 0)
