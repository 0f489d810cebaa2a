"""docs/configuration.md is generated from EvolveConfig: a key added, removed or re-defaulted fails here."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from agent_evolve.config import EvolveConfig
from agent_evolve.config_reference import MEANINGS, render

PAGE = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def test_every_key_has_one_meaning_and_no_meaning_is_stale() -> None:
    assert set(MEANINGS) == {f.name for f in dataclasses.fields(EvolveConfig)}


def test_the_committed_page_is_what_the_code_renders() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/configuration.md is stale: run `python -m agent_evolve.config_reference > docs/configuration.md`")
