"""Fixtures for the LLM-layer tests: loopback servers, fake credentials and clients pointed at the servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from wire_servers import Reply, Request, WireServer

from agent_evolve.llm.metered import concurrency_limit
from agent_evolve.llm.factory import make_client
from agent_evolve.llm.metered import MeteredClient
from agent_evolve.llm.usage import UsageLedger

OPENAI_KEY = "sk-test-openai-0123456789abcdef"
ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef"
HTTP_PROVIDERS = ("openai", "anthropic", "bedrock")


@pytest.fixture(autouse=True)
def fake_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Fake keys for every provider and no user AWS config, so nothing real is ever contacted or used."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDTESTTESTTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    empty = tmp_path_factory.mktemp("aws")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(empty / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(empty / "credentials"))
    for name in ("OPENAI_BASE_URL", "AWS_PROFILE", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def serve() -> Iterator[Callable[..., WireServer]]:
    """Start loopback servers on demand; all are stopped (and hung handlers released) at teardown."""
    servers: list[WireServer] = []

    def start(respond: Callable[[Request], Reply], delay_s: float = 0.0) -> WireServer:
        server = WireServer(respond, delay_s).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def base_url_for(provider: str, server: WireServer) -> str:
    return server.url + "/v1" if provider == "openai" else server.url


@pytest.fixture
def client_for() -> Callable[..., MeteredClient]:
    """A metered client for provider pointed at a server, with near-zero retry delays and its own ledger."""

    def build(provider: str, server: WireServer, **options: Any) -> MeteredClient:
        options.setdefault("ledger", UsageLedger())
        options.setdefault("retry_base_delay_s", 0.001)
        options.setdefault("timeout_s", 10.0)
        return make_client(f"{provider}/test-model", base_url=base_url_for(provider, server), **options)

    return build


@pytest.fixture
def restore_concurrency() -> Iterator[None]:
    """Put the process-wide concurrency limit back after a test changes it."""
    before = concurrency_limit().limit
    yield
    concurrency_limit().set_limit(before)
