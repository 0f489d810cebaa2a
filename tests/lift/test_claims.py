"""Claims from data: every lift README.md quotes is in a committed lift.json, and experiments/README.md's results
table is the one the lift.json files make now."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_evolve.errors import AgentEvolveError
from agent_evolve.lift.claims import check, lift_files, quotes, results_table, triples, with_table
from agent_evolve.lift.engine_table import registered_runs

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = REPO / "experiments"


def test_every_lift_quoted_in_the_readme_is_in_a_committed_lift_json() -> None:
    readme = REPO / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert quotes(text), "the README quotes lifts; the parser must find them"
    mismatches = [str(m) for m in check(readme, text, lift_files(EXPERIMENTS), REPO)]
    assert not mismatches, "\n".join(mismatches)


def test_the_experiments_results_table_is_generated_from_the_files() -> None:
    document = EXPERIMENTS / "README.md"
    text = document.read_text(encoding="utf-8")
    assert with_table(text, results_table(EXPERIMENTS), str(document)) == text, (
        "experiments/README.md's results table is out of date: run agent-evolve experiment table --write "
        "experiments/README.md")
    mismatches = [str(m) for m in check(document, text, lift_files(EXPERIMENTS), REPO, every_quote=False)]
    assert not mismatches, "\n".join(mismatches)


def test_a_quote_that_differs_from_its_file_is_caught(tmp_path: Path) -> None:
    (tmp_path / "experiments" / "run").mkdir(parents=True)
    lift = tmp_path / "experiments" / "run" / "lift.json"
    lift.write_text(json.dumps({"runs": [{"seed": 0, "lift": 0.125, "ci_low": 0.058, "ci_high": 0.2}],
                                "arms": {"evolved": {"mean_lift": 0.1, "pooled": {"ci_low": 0.01, "ci_high": 0.2}}}}))
    assert triples(json.loads(lift.read_text())) == {(0.125, 0.058, 0.2), (0.1, 0.01, 0.2)}
    files = lift_files(tmp_path / "experiments")
    doc = tmp_path / "README.md"
    good = ("GSM8K +0.125 on 120 tasks (95% CI [+0.058, +0.200]); linked: "
            "[+0.100, 95% CI [+0.010, +0.200]](experiments/run/lift.json).")
    assert not list(check(doc, good, files, tmp_path))
    bad = good.replace("+0.125 on", "+0.135 on").replace("[+0.100, 95%", "[+0.125, 95%")
    found = [str(m) for m in check(doc, bad, files, tmp_path)]
    assert len(found) == 2 and "README.md:1: +0.125" in found[0] and "experiments/run/lift.json" in found[0]
    assert "+0.135" in found[1] and "any committed lift.json" in found[1]


def test_a_damaged_lift_json_or_plan_json_is_an_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "experiments" / "run").mkdir(parents=True)
    lift = tmp_path / "experiments" / "run" / "lift.json"
    lift.write_text('{"plan": ')
    with pytest.raises(AgentEvolveError, match=rf"{lift}: not valid JSON"):
        results_table(tmp_path / "experiments")
    with pytest.raises(AgentEvolveError, match=rf"{lift}: not valid JSON"):
        list(check(tmp_path / "README.md", "", lift_files(tmp_path / "experiments"), tmp_path))
    lift.unlink()
    plan = lift.with_name("plan.json")
    plan.write_text('{"id": ')
    with pytest.raises(AgentEvolveError, match=rf"{plan}: not valid JSON"):
        registered_runs(tmp_path / "experiments")
