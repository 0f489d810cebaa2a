"""Every text parser returns a value or raises one of our errors, for any input (hypothesis, bounded)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import counted, fuzz, json_text, jsonish, skill_text, yaml_text

from agent_evolve.config import EvolveConfig
from agent_evolve.contract.manifest import manifest_problems
from agent_evolve.contract.skills import parse_skill, render_skill, validate_skill
from agent_evolve.errors import ConfigError, SkillFormatError, WorkspaceError
from agent_evolve.io.safe_json import parse_json
from agent_evolve.io.safe_yaml import load_yaml


@fuzz(1200)
@given(yaml_text())
def test_load_yaml_returns_a_value_or_our_error(text: str) -> None:
    counted()
    try:
        load_yaml(text, "fuzz.yaml")
    except WorkspaceError as exc:
        assert str(exc).startswith("fuzz.yaml")


@fuzz(1200)
@given(skill_text())
def test_parse_skill_then_validate_never_raises_anything_else(text: str) -> None:
    counted()
    try:
        skill = parse_skill(text, path="skills/good/SKILL.md")
    except SkillFormatError as exc:
        assert "skills/good/SKILL.md" in str(exc)
        return
    problems = validate_skill(skill, dir_name="good")
    assert all(isinstance(p, str) for p in problems)
    if not problems:
        assert parse_skill(render_skill(skill)).description == skill.description


@fuzz(600)
@given(yaml_text())
def test_manifest_problems_are_listed_never_raised(text: str) -> None:
    counted()
    try:
        data = load_yaml(text, "manifest.yaml")
    except WorkspaceError:
        return
    if isinstance(data, dict):
        assert all(p.startswith("manifest.yaml") for p in manifest_problems(data, "manifest.yaml"))


@fuzz(600)
@given(yaml_text())
def test_config_from_yaml_text_is_a_config_or_a_config_error(text: str) -> None:
    counted()
    try:
        data = load_yaml(text, "run.yaml", ConfigError)
        EvolveConfig.from_dict({} if data is None else data, source="run.yaml")
    except ConfigError as exc:
        assert "run.yaml" in str(exc)


FIELDS = ["batch_size", "max_cycles", "holdout_ratio", "extra", "engine_params", "seed", "gate_alpha",
          "evolver_model", "concurrency", "max_cost_usd", "llm_timeout_s", "patience", "holdout_limit", "prices"]
VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5),
                   st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@fuzz(800)
@given(st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.integers(), st.text(max_size=4)), VALUES, max_size=5))
def test_config_from_dict_is_a_valid_config_or_a_config_error(data: dict) -> None:
    counted()
    try:
        config = EvolveConfig.from_dict(data, source="fuzz")
    except ConfigError as exc:
        assert str(exc).startswith("fuzz")
        return
    for value in (config.holdout_ratio, config.gate_alpha, config.llm_timeout_s):
        assert value is None or (value == value and abs(value) != float("inf"))


@fuzz(1000)
@given(st.one_of(json_text(), jsonish().map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_parse_json_returns_a_value_or_our_error(text: str | bytes) -> None:
    counted()
    try:
        parse_json(text, "fuzz.json")
    except WorkspaceError as exc:
        assert str(exc).startswith("fuzz.json")
