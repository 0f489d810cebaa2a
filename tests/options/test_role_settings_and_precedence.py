"""Per-role model settings, and the precedence command line > manifest > extra > defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import agent_evolve as ae
from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.api import RunClients, resolve_engine
from agent_evolve.cli.run import build_config
from agent_evolve.errors import ConfigError
from agent_evolve.llm.factory import client_from_config, role_settings
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Task

TASK = Task(id="t1", input="What is 2+2?")


def seed_workspace(tmp_path: Path, agent_config: dict) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "prompts").mkdir(parents=True)
    (workspace / "prompts" / "system.md").write_text("Solve it.\n")
    manifest = {"name": "ref", "contract_version": "1.0",
                "agent": {"type": "reference", "entrypoint": "agent_evolve.agents.reference.ReferenceAgent",
                          "config": {"skill_mode": "none", **agent_config}},
                "evolvable_layers": ["prompts"]}
    (workspace / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    return workspace


def test_base_url_goes_to_the_agent_only_and_each_role_has_its_own() -> None:
    config = ae.EvolveConfig(agent_model="openai/qwen", llm_base_url="http://vllm:8000/v1",
                             evolver_model="anthropic/claude-sonnet-4-5", llm_timeout_s=30.0, evolver_timeout_s=300.0)
    agent, engine = role_settings(config, "agent"), role_settings(config, "engine")
    assert (agent.base_url, agent.timeout_s) == ("http://vllm:8000/v1", 30.0)
    assert engine.base_url is None, "an Anthropic engine client must never get the agent's vLLM URL"
    assert (engine.model, engine.timeout_s, engine.max_tokens) == ("anthropic/claude-sonnet-4-5", 300.0, 16384)
    named = ae.EvolveConfig(agent_model="openai/a", agent_base_url="http://agent/v1", llm_base_url="http://x/v1",
                            evolver_model="openai/e", evolver_base_url="http://engine/v1", agent_timeout_s=7.0)
    assert role_settings(named, "agent").base_url == "http://agent/v1"
    assert role_settings(named, "agent").timeout_s == 7.0
    assert role_settings(named, "judge").base_url == "http://engine/v1"


def test_the_clients_are_built_with_their_role_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-real-123456")
    config = ae.EvolveConfig(agent_model="openai/qwen", llm_base_url="http://vllm:8000/v1", agent_timeout_s=11.0,
                             evolver_model="anthropic/claude-sonnet-4-5", evolver_timeout_s=99.0)
    agent, engine = client_from_config(config, "agent"), client_from_config(config, "engine")
    assert (agent.inner.base_url, agent.inner.timeout_s) == ("http://vllm:8000/v1", 11.0)
    assert (engine.inner.base_url, engine.inner.timeout_s) == (None, 99.0)
    local = client_from_config(ae.EvolveConfig(llm_timeout_s=45.0), "agent", seed=3)
    assert (local.inner.timeout_s, local.inner.seed) == (45.0, 3), "the local model gets its timeout and seed"


def test_command_line_options_reach_the_config_and_beat_the_yaml(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"agent_max_tokens": 100, "evolver_base_url": "http://yaml/v1",
                                    "engine_params": {"max_edits": 2, "free_form": False}}))
    config = build_config(str(path), agent_max_tokens=5, evolver_base_url="http://cli/v1", base_url="http://a/v1",
                          evolver_timeout=9.0, engine_param=("max_edits=4",), grader="numeric")
    assert (config.agent_max_tokens, config.evolver_base_url, config.llm_base_url) == (5, "http://cli/v1", "http://a/v1")
    assert config.evolver_timeout_s == 9.0 and config.grader == "numeric"
    assert config.engine_params == {"max_edits": 4, "free_form": False}
    assert build_config(str(path)).agent_max_tokens == 100


def test_agent_settings_order_is_command_line_then_manifest_then_extra(tmp_path: Path) -> None:
    workspace = seed_workspace(tmp_path, {"max_tokens": 77})
    llm = ScriptedLLM(["4", "4", "4"])
    extra = {"agent": {"temperature": 0.4, "max_tokens": 9}}
    ReferenceAgent(workspace, config=ae.EvolveConfig(extra=extra), llm=llm).solve(TASK)
    assert (llm.calls[0].max_tokens, llm.calls[0].temperature) == (77, 0.4), "manifest beats extra; extra beats defaults"
    ReferenceAgent(workspace, config=ae.EvolveConfig(agent_max_tokens=333, agent_temperature=0.9), llm=llm).solve(TASK)
    assert (llm.calls[1].max_tokens, llm.calls[1].temperature) == (333, 0.9), "--agent-max-tokens beats the manifest"
    ReferenceAgent(seed_workspace(tmp_path / "plain", {}), llm=llm).solve(TASK)
    assert llm.calls[2].max_tokens == 1024
    with pytest.raises(ConfigError, match=r"'extra.agent' has unknown keys \['colour'\]"):
        ReferenceAgent(workspace, config=ae.EvolveConfig(extra={"agent": {"colour": "red"}}), llm=llm)


def test_the_run_hands_its_agent_and_engine_their_role_clients(tmp_path: Path) -> None:
    workspace = seed_workspace(tmp_path, {})
    config = ae.EvolveConfig(agent_model="openai/a", llm_base_url="http://agent/v1", evolver_model="openai/e",
                             evolver_base_url="http://engine/v1", engine_params={"max_edits": 4})
    evolver = ae.Evolver(str(workspace), ae.BenchmarkAdapter(), config, "skillforge")
    assert evolver.agent.llm is evolver.clients["agent"] and evolver.agent.llm.inner.base_url == "http://agent/v1"
    assert evolver.engine.llm is evolver.clients["engine"]  # metered once: the run's own client
    assert evolver.clients["engine"].inner.base_url == "http://engine/v1"
    assert evolver.engine.params["max_edits"] == 4


def test_engine_params_from_yaml_and_unknown_ones_name_the_accepted(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("engine_params:\n  max_edits: 3\n")
    engine = resolve_engine("skillforge", ae.EvolveConfig.from_yaml(path))
    assert engine.params["max_edits"] == 3
    with pytest.raises(ConfigError, match=r"unknown params \['bogus'\]; known: \[.*'max_edits'"):
        resolve_engine("skillforge", ae.EvolveConfig(engine_params={"bogus": 1}))
    with pytest.raises(ConfigError, match="apply to an engine built by name"):
        resolve_engine(ae.EvolutionEngine.__new__(ae.EvolutionEngine), ae.EvolveConfig(engine_params={"x": 1}))


def test_an_engine_without_kwargs_refuses_unknown_params_naming_the_accepted(monkeypatch) -> None:
    from agent_evolve.registry import ENGINE_REGISTRY

    monkeypatch.setitem(ENGINE_REGISTRY, "plain", "test_role_settings_and_precedence.PlainEngine")
    assert resolve_engine("plain", ae.EvolveConfig(engine_params={"depth": 5})).depth == 5
    with pytest.raises(ConfigError, match=r"unknown engine_params \['width'\]; accepted: \['depth'\]"):
        resolve_engine("plain", ae.EvolveConfig(engine_params={"width": 5}))


class PlainEngine(ae.EvolutionEngine):
    def __init__(self, depth: int = 1) -> None:
        self.depth = depth

    def step(self, workspace, observations, history, trial=None):
        raise NotImplementedError


def test_run_clients_share_one_ledger_and_build_each_role_once() -> None:
    ledger = UsageLedger()
    roles = RunClients(ae.EvolveConfig(), ledger, seed=2)
    assert roles("agent") is roles("agent") and roles("agent").ledger is ledger
    assert roles("engine").inner.seed == 2


def test_a_config_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "evolve.yaml"
    path.write_text("batch_size: 4\n", encoding="utf-8-sig")
    assert ae.EvolveConfig.from_yaml(path).batch_size == 4
