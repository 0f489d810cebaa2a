"""Generators of hostile input for the fuzz properties: YAML-ish, JSON-ish and JSONL-ish text, skill files."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

SCALE_ENV = "AGENT_EVOLVE_FUZZ_EXAMPLES"
TOTAL = {"examples": 0}
DEFAULTS: list[int] = []  # every property's default example count, for the 10,000-input floor


def fuzz(default: int) -> settings:
    """Bounded settings: ``default`` examples (every property runs AGENT_EVOLVE_FUZZ_EXAMPLES when it is set)."""
    DEFAULTS.append(default)
    count = int(os.environ.get(SCALE_ENV) or default)
    return settings(max_examples=count, deadline=None, database=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.filter_too_much, HealthCheck.data_too_large])


def counted() -> None:
    TOTAL["examples"] += 1


YAML_TOKENS = [
    "name", "description", "metadata", "license", "compatibility", "allowed-tools", "agent", "entrypoint",
    "evolvable_layers", "contract_version", "type", "config", "holdout_ratio", "extra", "batch_size", "file",
    "parameters", ":", ": ", "- ", "-", "? ", "[", "]", "{", "}", ",", "'", '"', "#", "|", ">", "&a", "*a", "&b",
    "*b", "<<: *a", "!!bool", "!!int", "!!float", "!!str", "!!binary", "!!timestamp", "!!set", "!!omap", "!!pairs",
    "!!map", "!!seq", "!!null", "!!python/object:os.system", "!custom", "2024-13-45", "2024-02-30 25:61:00",
    "1" * 5000, "0x" + "f" * 40, ".nan", ".inf", "-.inf", "~", "null", "yes", "no", "on", "1e999", "1_000",
    "\t", "\x00", "\ufeff", "\ud800", "é", "💥", "%YAML 1.1", "---", "...", "\\", "\\x", "\r\n",
]
SEPARATORS = [" ", "\n", "\n  ", "\n- ", ": ", ", "]


def yamlish(max_parts: int = 30) -> st.SearchStrategy[str]:
    """Text made of YAML syntax, tags, anchors and awkward scalars, glued by random separators."""
    return st.lists(st.sampled_from(YAML_TOKENS + SEPARATORS * 4), max_size=max_parts).map("".join)


def yaml_text() -> st.SearchStrategy[str]:
    return st.one_of(yamlish(), yamlish(), yamlish(), st.text(max_size=100))


JSON_TOKENS = ["{", "}", "[", "]", ",", ":", '"a"', '"k"', "1", "-0", "1e400", "NaN", "Infinity", "true", "null",
               '"\\ud800"', '"\\u00"', "9" * 4500, "[" * 300, "]" * 300, '{"a":' * 200, " ", "\n", "\x00"]


def jsonish() -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(JSON_TOKENS), max_size=40).map("".join)


def json_text() -> st.SearchStrategy[str]:
    return st.one_of(jsonish(), jsonish(), jsonish(), st.text(max_size=100))


def jsonl_bytes() -> st.SearchStrategy[bytes]:
    line = st.one_of(jsonish(), st.just('{"a": 1}'), st.just(""), st.text(max_size=20))
    text = st.lists(line, max_size=6).map("\n".join)
    return st.one_of(text.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=100))


FRONTMATTERS = st.one_of(yamlish(), yamlish(), st.just("name: good\ndescription: fine"),
                         st.integers(0, 1100).map(lambda n: f"name: good\ndescription: {'d' * n}"))
CLOSINGS = st.sampled_from(["---\n", "---", "", "--- \n"])


def skill_text() -> st.SearchStrategy[str]:
    """A SKILL.md: usually a frontmatter block (valid or not) and a body, sometimes anything at all."""
    framed = st.tuples(FRONTMATTERS, CLOSINGS, st.text(max_size=20)).map(lambda p: f"---\n{p[0]}\n{p[1]}\n{p[2]}")
    return st.one_of(framed, framed, framed, st.text(max_size=60))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=8,
)
