"""Amazon Bedrock through boto3's Converse API, with toolConfig for tool use."""

from __future__ import annotations

import os
from typing import Any

from agent_evolve.llm.base import Completion, Message, ToolCall, ToolSpec
from agent_evolve.llm.errors import (AuthenticationError, LLMError, LLMTimeoutError, ProviderServerError,
                                     RateLimitError, error_for_status)
from agent_evolve.llm.providers._common import (BLOCK_FINISH, SdkClient, decode_arguments, malformed_body,
                                                merged_turns, one_call, with_retry_after)

_THROTTLED = {"ThrottlingException", "TooManyRequestsException", "ServiceQuotaExceededException"}
_UNAVAILABLE = {"ServiceUnavailableException", "InternalServerException", "ModelNotReadyException"}


def _blocks(msg: Message) -> tuple[str, list[dict[str, Any]]]:
    if msg.role == "tool":
        result = {"toolUseId": msg.tool_call_id or "", "content": [{"text": msg.content}]}
        return "user", [{"toolResult": result}]
    blocks: list[dict[str, Any]] = [{"text": msg.content}] if msg.content else []
    if msg.role == "assistant":
        blocks += [{"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.arguments}} for c in msg.tool_calls]
    return msg.role, blocks


class BedrockConverseClient(SdkClient):
    """An LLMClient over boto3 bedrock-runtime `converse`; botocore's own retries are off so only ours count."""

    shown = "region"
    sdk = ("boto3", "bedrock", "")

    def __init__(self, model: str, name: str, *, base_url: str | None = None, timeout_s: float = 120.0,
                 client: Any = None) -> None:
        super().__init__(model, name, provider="bedrock", base_url=base_url, timeout_s=timeout_s)
        self.region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        self._client = client

    def _connect(self) -> Any:
        config = self.sdk_module("botocore.config").Config(read_timeout=self.timeout_s,
                                                           connect_timeout=min(self.timeout_s, 10.0),
                                                           retries={"total_max_attempts": 1, "mode": "standard"})
        return self.sdk_module().client("bedrock-runtime", region_name=self.region, endpoint_url=self.base_url,
                                        config=config)

    def _request(self, messages: list[Message], tools: list[ToolSpec] | None, max_tokens: int | None,
                 temperature: float, stop: list[str] | None) -> Any:
        """One converse request, with botocore errors turned into our typed errors."""
        exceptions = self.sdk_module("botocore.exceptions")
        system, wire = merged_turns(messages, _blocks)  # consecutive same-role turns merged
        request: dict[str, Any] = {"messages": wire}
        if system:
            request["system"] = [{"text": system}]
        if tools:
            request["toolConfig"] = {"tools": [{"toolSpec": {"name": t.name, "description": t.description,
                                                              "inputSchema": {"json": t.parameters}}} for t in tools]}
        inference: dict[str, Any] = {"temperature": temperature}
        if max_tokens is not None:
            inference["maxTokens"] = max_tokens
        if stop:
            inference["stopSequences"] = stop
        try:
            return self._sdk_client().converse(modelId=self.name, inferenceConfig=inference, **request)
        except (exceptions.ReadTimeoutError, exceptions.ConnectTimeoutError):
            raise self.timed_out() from None
        except (exceptions.ConnectionError, exceptions.HTTPClientError) as exc:  # refused, reset, proxy, TLS
            raise self.unreachable(exc, "the endpoint") from None
        except exceptions.NoCredentialsError:
            raise AuthenticationError(
                "no AWS credentials; set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
                provider=self.provider, model=self.name) from None
        except exceptions.ClientError as exc:
            raise self._client_error(exc) from None
        except exceptions.BotoCoreError as exc:  # an unknown profile, no region, a credential source that failed
            raise AuthenticationError(f"AWS configuration: {exc}", provider=self.provider, model=self.name) from None
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # botocore could not parse a 200 body
            raise malformed_body(exc, provider=self.provider, model=self.name) from None

    def _client_error(self, exc: Any) -> LLMError:
        error, metadata = exc.response.get("Error", {}), exc.response.get("ResponseMetadata", {})
        code, status = error.get("Code", ""), metadata.get("HTTPStatusCode")
        detail = f"{code}: {error.get('Message', '')}"
        where = {"provider": self.provider, "model": self.name}
        if code in _THROTTLED:
            throttled = RateLimitError(f"throttled: {detail}", **where, status_code=429)
            return with_retry_after(throttled, metadata.get("HTTPHeaders"))
        if code in _UNAVAILABLE:
            return ProviderServerError(f"unavailable: {detail}", **where, status_code=status)
        if code == "ModelTimeoutException":
            return LLMTimeoutError(f"model timed out: {detail}", **where, status_code=status)
        return error_for_status(status, detail, provider=self.provider, model=self.name)

    def _to_completion(self, response: dict[str, Any]) -> Completion:
        content = response["output"]["message"]["content"]
        texts = [b["text"] for b in content if "text" in b]
        uses = [b["toolUse"] for b in content if "toolUse" in b]
        calls = [ToolCall(id=u["toolUseId"], name=u["name"], arguments=decode_arguments(u.get("input"))) for u in uses]
        usage = response.get("usage", {})
        return one_call(self.model, "".join(texts), calls, BLOCK_FINISH.get(response.get("stopReason"), "stop"),
                        usage.get("inputTokens", 0), usage.get("outputTokens", 0))
