"""Faults over the wire: rate limits, server errors, hangs, client errors and secrets, for each HTTP provider."""

from __future__ import annotations

import json
import time
import traceback

import pytest
from conftest import ANTHROPIC_KEY, HTTP_PROVIDERS, OPENAI_KEY
from wire_servers import ERRORS, Reply, ok_reply

from agent_evolve.errors import is_fatal
from agent_evolve.llm.base import Message
from agent_evolve.llm.errors import (
    AuthenticationError,
    ContextLengthError,
    LLMTimeoutError,
    ProviderConnectionError,
    ProviderRequestError,
    ProviderServerError,
    ProviderSetupError,
)
from agent_evolve.llm.factory import make_client
from agent_evolve.llm.providers._common import MalformedReplyError
from agent_evolve.llm.usage import UsageLedger

HELLO = [Message("user", "hello")]


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_rate_limited_twice_then_success_takes_three_attempts(provider, serve, client_for):
    def respond(request):
        attempts = len(server.requests)
        return ERRORS[provider](429, "slow down") if attempts <= 2 else ok_reply(provider, "finally")

    server = serve(respond)
    client = client_for(provider, server, max_retries=3)
    completion = client.complete(HELLO)
    assert completion.text == "finally"
    assert len(server.requests) == 3
    assert client.ledger.total().calls == 1


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_server_error_forever_raises_typed_error_after_configured_attempts(provider, serve, client_for):
    server = serve(lambda request: ERRORS[provider](500, "boom"))
    client = client_for(provider, server, max_retries=2)
    with pytest.raises(ProviderServerError) as info:
        client.complete(HELLO)
    assert len(server.requests) == 3
    assert info.value.provider == provider and info.value.model == "test-model"
    assert f"{provider}/test-model" in str(info.value)
    assert client.ledger.total().calls == 0


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_hanging_server_times_out_within_the_configured_seconds(provider, serve, client_for):
    server = serve(lambda request: Reply(hang=True))
    client = client_for(provider, server, timeout_s=1.0, max_retries=1)
    started = time.monotonic()
    with pytest.raises(LLMTimeoutError) as info:
        client.complete(HELLO)
    elapsed = time.monotonic() - started
    assert elapsed < 5.0
    assert len(server.requests) == 2  # timeouts are retried
    assert "test-model" in str(info.value)


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_other_client_errors_are_not_retried(provider, serve, client_for):
    server = serve(lambda request: ERRORS[provider](400, "bad field"))
    client = client_for(provider, server, max_retries=3)
    with pytest.raises(ProviderRequestError) as info:
        client.complete(HELLO)
    assert len(server.requests) == 1
    assert info.value.status_code == 400


def test_context_length_errors_are_typed(serve, client_for):
    server = serve(lambda request: ERRORS["openai"](400, "This model's maximum context length is 8192 tokens"))
    with pytest.raises(ContextLengthError):
        client_for("openai", server).complete(HELLO)
    assert len(server.requests) == 1


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_unauthorised_error_never_contains_the_api_key(provider, serve, client_for, caplog):
    key = OPENAI_KEY if provider == "openai" else ANTHROPIC_KEY

    def respond(request):
        sent = request.headers.get("authorization", "") + request.headers.get("x-api-key", "")
        assert key in sent  # the key really travelled, so the echo below is a real leak risk
        return ERRORS[provider](401, f"Incorrect API key provided: {key}")

    server = serve(respond)
    client = client_for(provider, server)
    with pytest.raises(ProviderRequestError) as info:
        client.complete(HELLO)
    assert info.value.status_code == 401
    rendered = "".join(traceback.format_exception(info.value)) + repr(info.value) + repr(client) + caplog.text
    assert key not in rendered
    assert "[REDACTED]" in str(info.value)


def test_a_length_cut_reply_is_reported_and_logged(serve, client_for, caplog):
    from wire_servers import openai_body

    server = serve(lambda request: Reply(200, openai_body("partial answ", [], finish="length")))
    completion = client_for("openai", server).complete(HELLO, max_tokens=3)
    assert completion.finish_reason == "length" and completion.truncated
    assert "cut at the length limit" in caplog.text
    assert server.requests[0].body["max_tokens"] == 3  # a compatible server (base_url) gets max_tokens
    caplog.clear()
    assert client_for("openai", server).complete(HELLO, max_tokens=1).truncated
    assert "cut at the length limit" not in caplog.text, "a 1-token probe (the pre-flight's) is cut on purpose"


MALFORMED = {
    "truncated": Reply(raw=b'{"choices": [{"message": {"content": "par'),
    "html": Reply(raw=b"<html><body>502 Bad Gateway</body></html>"),
    "empty body": Reply(raw=b""),
    "null": Reply(body=None),
    "a list": Reply(body=[1, 2, 3]),
    "wrong shapes": Reply(body={"choices": [{"message": 5}], "content": "x", "output": 5, "usage": "many"}),
    "text not a string": Reply(body={
        "choices": [{"message": {"content": 5}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1},
        "content": [{"type": "text", "text": 5}], "stop_reason": "end_turn",
        "output": {"message": {"content": [{"text": 5}]}}}),
}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_a_malformed_200_reply_is_a_typed_retryable_error(provider, kind, serve, client_for):
    def respond(request):
        return MALFORMED[kind] if len(server.requests) == 1 else ok_reply(provider, "recovered")

    server = serve(respond)
    assert client_for(provider, server, max_retries=1).complete(HELLO).text == "recovered"
    assert len(server.requests) == 2

    broken = serve(lambda request: MALFORMED[kind])
    with pytest.raises(MalformedReplyError) as info:
        client_for(provider, broken, max_retries=0).complete(HELLO)
    assert info.value.retryable and f"{provider}/test-model" in str(info.value)


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_an_empty_answer_is_an_empty_completion(provider, serve, client_for):
    server = serve(lambda request: ok_reply(provider, ""))
    assert client_for(provider, server).complete(HELLO).text == ""


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_retry_after_is_honoured(provider, serve, client_for):
    def respond(request):
        if len(server.requests) == 1:
            reply = ERRORS[provider](429, "slow down")
            reply.headers["Retry-After"] = "0.6"
            return reply
        return ok_reply(provider, "after the pause")

    server = serve(respond)
    started = time.monotonic()
    assert client_for(provider, server, max_retries=1).complete(HELLO).text == "after the pause"
    assert time.monotonic() - started >= 0.55  # the base delay is 1 ms; only Retry-After explains the wait


def test_a_lone_surrogate_in_model_text_is_replaced(serve, client_for):
    from wire_servers import openai_body

    server = serve(lambda request: Reply(raw=json.dumps(openai_body("bad \udc80 text", [])).encode()))
    text = client_for("openai", server).complete(HELLO).text
    assert text == "bad \ufffd text"
    text.encode("utf-8")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_server_echoing_the_key_in_a_malformed_reply_leaks_nothing(provider, serve, client_for, caplog):
    key = OPENAI_KEY if provider == "openai" else ANTHROPIC_KEY
    server = serve(lambda request: Reply(raw=f"<html>your key {key} was logged".encode()))
    client = client_for(provider, server, max_retries=1)
    with pytest.raises(MalformedReplyError) as info:
        client.complete(HELLO)
    rendered = "".join(traceback.format_exception(info.value)) + repr(info.value) + repr(client) + caplog.text
    assert key not in rendered


NOT_FOUND = {
    "openai": Reply(404, {"error": {"message": "The model `test-model` does not exist", "code": "model_not_found"}}),
    "anthropic": Reply(404, {"type": "error", "error": {"type": "not_found_error", "message": "model: test-model"}}),
    "bedrock": Reply(404, {"message": "model not found"}, headers={"x-amzn-ErrorType": "ResourceNotFoundException"}),
}


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_a_wrong_model_is_one_fatal_error_naming_the_model(provider, serve, client_for):
    server = serve(lambda request: NOT_FOUND[provider])
    with pytest.raises(ProviderSetupError) as info:
        client_for(provider, server, max_retries=3).complete(HELLO)
    assert is_fatal(info.value) and len(server.requests) == 1
    assert f"{provider}/test-model" in str(info.value) and "model name" in str(info.value)


def test_a_base_url_without_v1_names_the_url_it_asked(serve, client_for):
    server = serve(lambda request: Reply(404, {"detail": "Not Found"}))
    with pytest.raises(ProviderSetupError) as info:
        make_client("vllm/test-model", base_url=server.url, ledger=UsageLedger()).complete(HELLO)
    assert f"{server.url}/chat/completions" in str(info.value) and "base URL" in str(info.value)


@pytest.mark.parametrize("provider, reply", [
    ("openai", Reply(429, {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                                     "code": "insufficient_quota"}})),
    ("anthropic", ERRORS["anthropic"](400, "Your credit balance is too low to access the Anthropic API")),
])
def test_a_spent_quota_stops_at_once_instead_of_failing_every_task(provider, reply, serve, client_for):
    server = serve(lambda request: reply)
    with pytest.raises(ProviderSetupError) as info:
        client_for(provider, server, max_retries=3).complete(HELLO)
    assert is_fatal(info.value) and len(server.requests) == 1


@pytest.mark.parametrize("setup, expected", [({}, "AWS_PROFILE"), ({"AWS_PROFILE": "nosuch"}, "nosuch")])
def test_missing_aws_credentials_or_profile_are_one_fatal_error(setup, expected, serve, client_for, monkeypatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    for name, value in {"AWS_EC2_METADATA_DISABLED": "true", **setup}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("boto3.DEFAULT_SESSION", None)  # boto3's process-wide session keeps the credentials it found
    server = serve(lambda request: ok_reply("bedrock"))
    with pytest.raises(AuthenticationError) as info:
        client_for("bedrock", server).complete(HELLO)
    assert is_fatal(info.value) and expected in str(info.value) and not server.requests


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_refused_connection_names_the_url_and_why(provider, client_for):
    client = make_client(f"{provider}/test-model", base_url="http://127.0.0.1:9/v1", ledger=UsageLedger(),
                         max_retries=1, retry_base_delay_s=0.001)
    with pytest.raises(ProviderConnectionError) as info:
        client.complete(HELLO)
    assert "http://127.0.0.1:9/v1" in str(info.value) and "refused" in str(info.value).lower()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_streaming_only_server_is_named_as_such(provider, serve, client_for):
    stream = b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\ndata: [DONE]\n\n'
    server = serve(lambda request: Reply(raw=stream, headers={"Content-Type": "text/event-stream"}))
    with pytest.raises(MalformedReplyError) as info:
        client_for(provider, server, max_retries=0).complete(HELLO)
    assert "streaming" in str(info.value) and "data: " in str(info.value)


def test_a_server_without_token_counts_is_warned_about_once(serve, client_for, caplog):
    from wire_servers import openai_body

    server = serve(lambda request: Reply(body={k: v for k, v in openai_body("hi", []).items() if k != "usage"}))
    client = make_client("vllm/no-usage-model", base_url=server.url + "/v1", ledger=UsageLedger())
    assert [client.complete(HELLO).text for _ in range(2)] == ["hi", "hi"]
    assert client.ledger.total().calls == 2 and client.ledger.total().total_tokens == 0
    assert caplog.text.count("reports no token usage") == 1 and "vllm/no-usage-model" in caplog.text


def test_a_model_that_refuses_a_temperature_is_asked_again_without_one(serve, client_for, caplog):
    refusal = "Unsupported value: 'temperature' does not support 0.0 with this model. Only the default (1) value is"
    server = serve(lambda request: ERRORS["openai"](400, refusal) if "temperature" in request.body
                   else ok_reply("openai", "reasoned"))
    client = client_for("openai", server, max_retries=0)
    assert [client.complete(HELLO).text for _ in range(2)] == ["reasoned", "reasoned"]
    assert len(server.requests) == 3 and caplog.text.count("only its default temperature") == 1
    other = serve(lambda request: ERRORS["openai"](400, "Unsupported value: 'top_p'"))
    with pytest.raises(ProviderRequestError):
        client_for("openai", other, max_retries=0).complete(HELLO)
    assert len(other.requests) == 1


def test_a_password_in_the_base_url_is_never_shown(serve, caplog):
    server = serve(lambda request: Reply(404, {"detail": "Not Found"}))
    rendered = ""
    for url in (server.url.replace("://", "://me:hunter2pass@"), "http://me:hunter2pass@127.0.0.1:9/v1"):
        client = make_client("vllm/test-model", base_url=url, ledger=UsageLedger(), max_retries=0)
        with pytest.raises(ProviderRequestError if "127.0.0.1:9/" not in url else ProviderConnectionError) as info:
            client.complete(HELLO)
        rendered += "".join(traceback.format_exception(info.value)) + repr(client)
    from agent_evolve.cli.doctor import run_checks

    rows = run_checks({"OPENAI_BASE_URL": server.url.replace("://", "://me:hunter2pass@")}, probe=True, verify=False)
    rendered += " ".join(f"{r.detail} {r.fix}" for r in rows) + caplog.text
    assert "hunter2pass" not in rendered and "[REDACTED]" in rendered


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_a_tls_failure_is_a_connection_error(provider, serve):
    server = serve(lambda request: ok_reply(provider))
    url = server.url.replace("http://", "https://")  # the server speaks plain HTTP: the TLS handshake fails
    client = make_client(f"{provider}/test-model", base_url=url, ledger=UsageLedger(), max_retries=0)
    with pytest.raises(ProviderConnectionError) as info:
        client.complete(HELLO)
    assert f"{provider}/test-model" in str(info.value)
