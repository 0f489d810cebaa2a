"""Model strings, the factory and the package's names: what provider each string means and what gets built."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_evolve.config import EvolveConfig
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.llm.base import Message
from agent_evolve.llm.factory import apply_config_limits, client_from_config, make_client
from agent_evolve.llm.models import DEFAULT_MODEL, ModelRef, parse_model
from agent_evolve.llm.usage import UsageLedger


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local/qwen2.5-coder-1.5b", ModelRef("local", "qwen2.5-coder-1.5b")),
        ("local/qwen2.5-coder-0.5b", ModelRef("local", "qwen2.5-coder-0.5b")),
        ("local/smollm2-135m", ModelRef("local", "smollm2-135m")),
        ("openai/gpt-4.1-mini", ModelRef("openai", "gpt-4.1-mini")),
        ("anthropic/claude-sonnet-4-5", ModelRef("anthropic", "claude-sonnet-4-5")),
        ("bedrock/us.anthropic.claude-opus-4-6-v1", ModelRef("bedrock", "us.anthropic.claude-opus-4-6-v1")),
        ("us.anthropic.claude-opus-4-6-v1", ModelRef("bedrock", "us.anthropic.claude-opus-4-6-v1")),
        ("anthropic.claude-3-haiku-20240307-v1:0", ModelRef("bedrock", "anthropic.claude-3-haiku-20240307-v1:0")),
        ("ollama/qwen2.5:7b", ModelRef("ollama", "qwen2.5:7b", "http://localhost:11434/v1")),
        ("vllm/Qwen/Qwen2.5-7B-Instruct", ModelRef("vllm", "Qwen/Qwen2.5-7B-Instruct", "http://localhost:8000/v1")),
    ],
)
def test_model_strings_parse_to_provider_and_name(text, expected):
    assert parse_model(text) == expected


def test_the_default_model_is_the_embedded_one():
    assert DEFAULT_MODEL == EvolveConfig().agent_model == EvolveConfig().evolver_model
    assert parse_model(DEFAULT_MODEL).provider == "local"


@pytest.mark.parametrize("text", ["mystery/model-1", "gpt-4o", "", "local/unknown-model", "openai/"])
def test_bad_model_strings_raise_config_errors_that_list_the_providers(text):
    with pytest.raises(ConfigError) as info:
        parse_model(text)
    if text.startswith("mystery") or text == "gpt-4o":
        assert "anthropic, bedrock, local, ollama, openai, vllm" in str(info.value)


def test_make_client_builds_a_metered_client_for_each_provider():
    for model, inner in [("openai/gpt-4.1-mini", "OpenAIChatClient"), ("ollama/llama3", "OpenAIChatClient"),
                         ("anthropic/claude-sonnet-4-5", "AnthropicMessagesClient"),
                         ("us.anthropic.claude-opus-4-6-v1", "BedrockConverseClient"),
                         ("local/qwen2.5-coder-1.5b", "LocalLlamaClient")]:
        client = make_client(model, role="judge")
        assert type(client.inner).__name__ == inner
        assert client.model == model if "/" in model else client.model == f"bedrock/{model}"
        assert client.role == "judge"


def test_a_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(MissingDependencyError, match="OPENAI_API_KEY"):
        make_client("openai/gpt-4.1-mini")
    assert make_client("ollama/llama3").inner.base_url == "http://localhost:11434/v1"  # needs no key


@pytest.mark.parametrize("url", ["localhost:8000/v1", "http://localhost:abc/v1", "http:///v1", "http://a b/v1"])
@pytest.mark.parametrize("model", ["vllm/m", "anthropic/claude-haiku-4-5", "bedrock/amazon.nova-lite-v1:0"])
def test_a_base_url_that_is_not_an_http_url_is_a_config_error_before_any_call(model, url):
    with pytest.raises(ConfigError, match="http://"):
        make_client(model, base_url=url)
    assert make_client(model, base_url="https://proxy.example:8443/v1").inner.base_url.endswith("/v1")


@pytest.mark.parametrize("model, sdk, extra", [("anthropic/claude-haiku-4-5", "anthropic", "anthropic"),
                                                ("us.anthropic.claude-opus-4-6-v1", "boto3", "bedrock"),
                                                ("openai/gpt-4.1-mini", "openai", "openai")])
def test_a_missing_sdk_names_the_model_and_the_extra_to_install(model, sdk, extra, monkeypatch):
    monkeypatch.setitem(sys.modules, sdk, None)
    client = make_client(model, ledger=UsageLedger(), max_retries=0)
    with pytest.raises(MissingDependencyError) as info:
        client.complete([Message("user", "hi")])
    assert str(info.value).startswith(f"{client.model}: ") and f"agent-evolve[{extra}]" in str(info.value)


@pytest.mark.parametrize("provider, env_var", [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")])
def test_a_pasted_key_is_stripped_and_one_broken_inside_is_refused_unshown(provider, env_var, monkeypatch):
    monkeypatch.setenv(env_var, " sk-pasted-0123456789abcdef\n")
    assert make_client(f"{provider}/m").inner._api_key == "sk-pasted-0123456789abcdef"
    for bad in ("sk-pasted-0123\n456789abcdef", "\u201csk-pasted-0123456789abcdef\u201d"):
        monkeypatch.setenv(env_var, bad)
        with pytest.raises(ConfigError, match=env_var) as info:
            make_client(f"{provider}/m")
        assert "0123" not in str(info.value)
    monkeypatch.setenv(env_var, "")
    with pytest.raises(MissingDependencyError, match=env_var):
        make_client(f"{provider}/m")


def test_client_from_config_picks_the_model_by_role(tmp_path):
    config = EvolveConfig(agent_model="openai/gpt-4.1-mini", evolver_model="anthropic/claude-sonnet-4-5",
                          llm_timeout_s=7.0, llm_max_retries=5, llm_cache_dir=str(tmp_path))
    ledger = UsageLedger()
    agent = client_from_config(config, "agent", ledger=ledger)
    engine = client_from_config(config, "engine", ledger=ledger)
    judge = client_from_config(config, "judge", ledger=ledger)
    assert agent.model == "openai/gpt-4.1-mini" and agent.role == "agent"
    assert engine.model == judge.model == "anthropic/claude-sonnet-4-5"
    assert agent.retry.max_retries == 5 and agent.inner.timeout_s == 7.0 and agent.cache is not None
    with pytest.raises(ConfigError, match="roles: agent, engine, judge"):
        client_from_config(config, "critic")
    with pytest.raises(ConfigError, match="prices"):
        client_from_config(EvolveConfig(prices={"openai/gpt-4.1": 3}), "agent")


def test_apply_config_limits_sets_budgets_and_the_shared_limit(restore_concurrency):
    from agent_evolve.llm.metered import concurrency_limit

    ledger = apply_config_limits(EvolveConfig(concurrency=3, max_total_tokens=99), UsageLedger())
    assert ledger.max_total_tokens == 99 and ledger.max_cost_usd is None
    assert concurrency_limit().limit == 3


def test_importing_the_package_imports_no_provider_sdk():
    code = (
        "import sys, agent_evolve, agent_evolve.llm, agent_evolve.testing\n"
        "from agent_evolve.llm import make_client, run_tool_loop, complete_json, default_ledger\n"
        "make_client('local/qwen2.5-coder-1.5b')\n"
        "heavy = [m for m in ('openai', 'anthropic', 'boto3', 'botocore', 'llama_cpp') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_every_public_name_resolves():
    import agent_evolve.llm as llm

    for name in llm.__all__:
        assert getattr(llm, name) is not None, name
    with pytest.raises(AttributeError):
        llm.no_such_name  # noqa: B018
