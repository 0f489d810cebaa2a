"""The embedded engine's speed settings: documented defaults, and bad values refused naming the variable."""

from __future__ import annotations

import os

import pytest

from agent_evolve.config import EMBEDDED_SLOTS, REMOTE_CONCURRENCY, EvolveConfig
from agent_evolve.errors import ConfigError
from agent_evolve.llm.local_settings import EngineSettings


def test_defaults_are_todays_measured_choices() -> None:
    settings = EngineSettings.from_env({})
    assert (settings.slots, settings.n_batch, settings.n_ubatch, settings.draft) == (16, 512, 512, "none")
    assert settings.kv_unified
    assert settings.n_threads == len(os.sched_getaffinity(0))


def test_a_run_keeps_the_embedded_engine_full_unless_told_otherwise() -> None:
    assert EvolveConfig().in_flight == EngineSettings().slots == EMBEDDED_SLOTS
    assert EvolveConfig(agent_model="openai/gpt-4.1-mini").in_flight == REMOTE_CONCURRENCY
    assert EvolveConfig(concurrency=2).in_flight == 2
    assert EvolveConfig(concurrency=8, agent_model="openai/gpt-4.1-mini").in_flight == 8
    assert EvolveConfig(executor="processes").in_flight == REMOTE_CONCURRENCY, "each process loads its own model"


def test_variables_set_each_setting() -> None:
    settings = EngineSettings.from_env({
        "AGENT_EVOLVE_LOCAL_SLOTS": "8", "AGENT_EVOLVE_N_THREADS": "1", "AGENT_EVOLVE_N_BATCH": "256",
        "AGENT_EVOLVE_N_UBATCH": "64", "AGENT_EVOLVE_DRAFT": "prompt-lookup", "AGENT_EVOLVE_DRAFT_TOKENS": "4",
        "AGENT_EVOLVE_DRAFT_NGRAM": "2", "AGENT_EVOLVE_KV_UNIFIED": "0", "AGENT_EVOLVE_N_CTX": "ignored"})
    assert settings == EngineSettings(slots=8, n_threads=1, n_batch=256, n_ubatch=64, draft="prompt-lookup",
                                      draft_tokens=4, draft_ngram=2, kv_unified=False)


@pytest.mark.parametrize(("variable", "value"), [
    ("AGENT_EVOLVE_LOCAL_SLOTS", "four"), ("AGENT_EVOLVE_N_THREADS", "0"), ("AGENT_EVOLVE_N_BATCH", "-1"),
    ("AGENT_EVOLVE_DRAFT", "medusa"), ("AGENT_EVOLVE_DRAFT_TOKENS", "2.5"), ("AGENT_EVOLVE_KV_UNIFIED", "maybe")])
def test_a_bad_value_is_refused_naming_its_variable(variable: str, value: str) -> None:
    with pytest.raises(ConfigError, match=variable):
        EngineSettings.from_env({variable: value})


@pytest.mark.parametrize("settings", [
    {"n_batch": 64, "n_ubatch": 128}, {"slots": 65}, {"slots": 16, "n_batch": 8}, {"draft_ngram": 0}])
def test_inconsistent_settings_are_refused(settings: dict[str, int]) -> None:
    with pytest.raises(ConfigError):
        EngineSettings(**settings)  # type: ignore[arg-type]
