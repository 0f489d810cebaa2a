"""`synth metaskills` (the manual meta-skill refresh) and `solver-cache list` (the run's reply cache)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evolve.algorithms.ratchet.ledger import Ledger, ledger_path
from agent_evolve.algorithms.ratchet.records import MetaSkill
from agent_evolve.cli.main import cli
from agent_evolve.llm.base import Completion, Message
from agent_evolve.llm.cache import ResponseCache, cache_key
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Usage


def test_synth_metaskills_writes_a_new_active_meta_skill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = ScriptedLLM(["Name the failing input first; then the smallest fix."])

    def client(config: Any, role: str, **_: Any) -> ScriptedLLM:
        assert role == "engine"
        return engine

    monkeypatch.setattr("agent_evolve.llm.factory.client_from_config", client)
    with Ledger.open(ledger_path(tmp_path)) as ledger:
        ledger.put_meta_skill(MetaSkill("code", "default-code", "Old advice.", True, 0))
        ledger.audit("start", {"settings": {"suite": "code"}}, 0)
    out = CliRunner().invoke(cli, ["synth", "metaskills", "-w", str(tmp_path)], catch_exceptions=False).output
    assert "new active meta-skill: code-r0" in out
    with Ledger.open(ledger_path(tmp_path)) as ledger:
        metas = {m.name: m for m in ledger.meta_skills("code")}
        assert not metas["default-code"].active and metas["code-r0"].active
        assert metas["code-r0"].body.startswith("Name the failing input")
        assert ledger.decisions(kind="synth_metaskills")[0].payload["by"] == "user"


def test_solver_cache_list_counts_replies_by_model(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "evolution" / "replies")
    for i, model in enumerate(["local/a", "local/a", "local/b"]):
        key = cache_key(model, [Message("user", f"q{i}")], None, {})
        cache.put(key, Completion(text="x", model=model, usage=Usage(1, 10, 5)))
    out = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["solver-cache", "list", "-w", str(tmp_path)]).output
    rows = {line.split("│")[1].strip(): line.split("│")[2:4] for line in out.splitlines() if "local/" in line}
    assert [c.strip() for c in rows["local/a"]] == ["2", "30"] and [c.strip() for c in rows["local/b"]] == ["1", "15"]
    missing = CliRunner().invoke(cli, ["solver-cache", "list", "-w", str(tmp_path / "none")])
    assert missing.exit_code == 1 and "no reply cache here" in missing.output
