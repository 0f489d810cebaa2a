"""Loopback HTTP servers speaking the OpenAI, Anthropic and Bedrock wire formats, for provider tests."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    status: int = 200
    body: Any = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False
    raw: bytes | None = None  # sent as is instead of the JSON of `body` (truncated or malformed replies)


class WireServer:
    """A server on 127.0.0.1 whose replies come from `respond`; it records requests and peak concurrency."""

    def __init__(self, respond: Callable[[Request], Reply], delay_s: float = 0.0) -> None:
        self.respond = respond
        self.delay_s = delay_s
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> WireServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                request = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with server._lock:
                    server.requests.append(request)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                counted = True
                try:
                    reply = server.respond(request)
                    if reply.hang:
                        server.release.wait(30)
                        return
                    if server.delay_s:
                        time.sleep(server.delay_s)
                    data = json.dumps(reply.body).encode("utf-8") if reply.raw is None else reply.raw
                    # done before the reply is sent: its client may send the next request as soon as it has read it
                    with server._lock:
                        server.in_flight -= 1
                        counted = False
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    if counted:
                        with server._lock:
                            server.in_flight -= 1

            do_POST = _handle
            do_GET = _handle

        return Handler


# ---- the shared tool-loop scenario: the model calls `add` twice, then answers with the last result ----

ADD_PARAMETERS = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}


def scenario_step(tool_results: list[str]) -> tuple[str, list[tuple[str, str, dict[str, Any]]]]:
    """What the fake model does next given the tool results it has seen: (text, [(id, name, args)])."""
    if not tool_results:
        return "", [("call_1", "add", {"a": 2, "b": 3})]
    if len(tool_results) == 1:
        return "Adding ten.", [("call_2", "add", {"a": int(tool_results[0]), "b": 10})]
    return f"The total is {tool_results[-1]}.", []


# ---- OpenAI chat completions ----

def openai_body(text: str | None, calls: list[tuple[str, str, dict[str, Any]]], *, finish: str | None = None,
                usage: tuple[int, int] = (10, 5)) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for i, n, a in calls
        ]
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish or ("tool_calls" if calls else "stop")}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
    }


def openai_error(status: int, message: str) -> Reply:
    return Reply(status, {"error": {"message": message, "type": "test_error", "code": None, "param": None}})


def openai_tool_results(body: dict[str, Any]) -> list[str]:
    """Tool results in an OpenAI request, checking each answers a call the assistant made earlier."""
    seen_ids: set[str] = set()
    results = []
    for message in body["messages"]:
        for call in message.get("tool_calls") or []:
            assert call["type"] == "function" and isinstance(call["function"]["arguments"], str)
            seen_ids.add(call["id"])
        if message["role"] == "tool":
            assert message["tool_call_id"] in seen_ids, "tool result for an unknown call id"
            results.append(message["content"])
    return results


def openai_scenario(request: Request) -> Reply:
    assert request.path.endswith("/chat/completions")
    assert [t["function"]["name"] for t in request.body["tools"]] == ["add"]
    text, calls = scenario_step(openai_tool_results(request.body))
    return Reply(200, openai_body(text or None, calls))


# ---- Anthropic messages ----

def anthropic_body(text: str, calls: list[tuple[str, str, dict[str, Any]]], *, stop: str | None = None,
                   usage: tuple[int, int] = (10, 5)) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
    return {
        "id": "msg_test", "type": "message", "role": "assistant", "model": "test-model", "content": content,
        "stop_reason": stop or ("tool_use" if calls else "end_turn"), "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def anthropic_error(status: int, message: str) -> Reply:
    kind = {429: "rate_limit_error", 401: "authentication_error", 400: "invalid_request_error"}.get(status, "api_error")
    return Reply(status, {"type": "error", "error": {"type": kind, "message": message}})


def anthropic_tool_results(body: dict[str, Any]) -> list[str]:
    """Tool results in an Anthropic request, checking roles alternate and ids match earlier tool_use blocks."""
    seen_ids: set[str] = set()
    results = []
    roles = [m["role"] for m in body["messages"]]
    assert all(a != b for a, b in zip(roles, roles[1:], strict=False)), f"roles must alternate: {roles}"
    for message in body["messages"]:
        blocks = message["content"] if isinstance(message["content"], list) else []
        for block in blocks:
            if block["type"] == "tool_use":
                seen_ids.add(block["id"])
            if block["type"] == "tool_result":
                assert message["role"] == "user" and block["tool_use_id"] in seen_ids
                results.append(block["content"])
    return results


def anthropic_scenario(request: Request) -> Reply:
    assert request.path.endswith("/v1/messages")
    assert request.body["system"] == "You add numbers."
    assert [t["name"] for t in request.body["tools"]] == ["add"]
    text, calls = scenario_step(anthropic_tool_results(request.body))
    return Reply(200, anthropic_body(text, calls))


# ---- Bedrock converse (REST JSON) ----

def bedrock_body(text: str, *, stop: str = "end_turn", usage: tuple[int, int] = (10, 5)) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": stop,
        "usage": {"inputTokens": usage[0], "outputTokens": usage[1], "totalTokens": sum(usage)},
        "metrics": {"latencyMs": 1},
    }


def bedrock_error(status: int, message: str) -> Reply:
    code = {429: "ThrottlingException", 401: "UnrecognizedClientException", 400: "ValidationException",
            500: "InternalServerException"}.get(status, "InternalServerException")
    return Reply(status, {"message": message}, headers={"x-amzn-ErrorType": code})


def bedrock_tool_results(body: dict[str, Any]) -> list[str]:
    """Tool results in a converse request, checking roles alternate and ids match earlier toolUse blocks."""
    seen_ids: set[str] = set()
    results = []
    roles = [m["role"] for m in body["messages"]]
    assert all(a != b for a, b in zip(roles, roles[1:], strict=False)), f"roles must alternate: {roles}"
    for message in body["messages"]:
        for block in message["content"]:
            if "toolUse" in block:
                seen_ids.add(block["toolUse"]["toolUseId"])
            if "toolResult" in block:
                assert block["toolResult"]["toolUseId"] in seen_ids
                results.append(block["toolResult"]["content"][0]["text"])
    return results


def bedrock_scenario(request: Request) -> Reply:
    assert request.path.endswith("/converse")
    assert request.body["system"] == [{"text": "You add numbers."}]
    assert [t["toolSpec"]["name"] for t in request.body["toolConfig"]["tools"]] == ["add"]
    text, calls = scenario_step(bedrock_tool_results(request.body))
    content: list[dict[str, Any]] = [{"text": text}] if text else []
    content += [{"toolUse": {"toolUseId": i, "name": n, "input": a}} for i, n, a in calls]
    body = bedrock_body(text, stop="tool_use" if calls else "end_turn")
    body["output"]["message"]["content"] = content
    return Reply(200, body)


SCENARIOS = {"openai": openai_scenario, "anthropic": anthropic_scenario, "bedrock": bedrock_scenario}
ERRORS = {"openai": openai_error, "anthropic": anthropic_error, "bedrock": bedrock_error}


def ok_reply(provider: str, text: str = "ok", usage: tuple[int, int] = (10, 5)) -> Reply:
    """A plain successful answer in provider's wire format."""
    if provider == "openai":
        return Reply(200, openai_body(text, [], usage=usage))
    if provider == "anthropic":
        return Reply(200, anthropic_body(text, [], usage=usage))
    return Reply(200, bedrock_body(text, usage=usage))


REFERENCE_MANIFEST = """name: churning
version: 0.1.0
contract_version: "1.0"
agent: {type: reference, entrypoint: agent_evolve.agents.reference.ReferenceAgent}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""
"""A workspace manifest of the built-in reference agent, for runs against a loopback model."""


def churning_keyword_model() -> Callable[[Request], Reply]:
    """A model that answers "task i" with its keyword k(i % 2) except on every fifth call, whatever was asked: a
    repeated question can get another answer, as greedy decoding batched with other requests can."""
    calls = itertools.count(1)

    def reply(request: Request) -> Reply:
        number = int(re.search(r"task (\d+)", request.body["messages"][-1]["content"]).group(1))
        return Reply(body=openai_body(f"k{number % 2}" if next(calls) % 5 else "?", []))

    return reply


def churning_server() -> Iterator[WireServer]:
    """A loopback server of `churning_keyword_model` (use as a pytest fixture), stopped afterwards."""
    wire = WireServer(churning_keyword_model()).start()
    yield wire
    wire.stop()
