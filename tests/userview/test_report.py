"""The HTML report: self-contained, loads in headless Chromium without console output, shows curve, tree, diffs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import chromium, render, screenshot
from click.testing import CliRunner

from agent_evolve.cli.main import cli
from agent_evolve.report.model import lineage, skill_bank, task_matrix
from agent_evolve.types import Feedback, Observation, Task, Trajectory
from agent_evolve.userview.run import load_run

pytest.importorskip("matplotlib", reason="the report's figures need the [plot] extra")


@pytest.fixture(scope="module")
def report(finished_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(cli, ["report", str(finished_run), "-o", str(out / "report.html"), "--png", str(out / "png")])
    assert result.exit_code == 0, result.output
    return out / "report.html"


def test_the_report_needs_nothing_from_the_network(report: Path) -> None:
    text = report.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text)
    assert "<script" not in text and "@import" not in text
    assert not re.search(r"url\((?!#)", text), "only in-page references (SVG clip paths)"


def test_the_report_shows_curve_tree_diffs_skills_matrix(report: Path) -> None:
    text = report.read_text()
    assert text.count("<svg") == 2
    tree = text[text.index('id="lineage"'):text.index('id="diffs"')]
    assert tree.index("evo-0") < tree.index("evo-1") < tree.index("cand-2") < tree.index("evo-3")
    assert "tie at +0.0000, ties rejected" in tree
    diffs = text[text.index('id="diffs"'):text.index('id="skills"')]
    assert diffs.count("<details") == 3 and "+Answer k0 or k1." in diffs
    assert "third" in text[text.index('id="skills"'):text.index('id="matrix"')]


def test_the_figures_are_written_as_png(report: Path) -> None:
    for name in ("scores.png", "spending.png"):
        assert (report.parent / "png" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install -y chromium); .ci/run installs it")
def test_the_report_opens_in_headless_chromium_without_console_errors(report: Path) -> None:
    dom, console = render(report, "--dump-dom")
    assert console == []
    assert 'id="curve"' in dom and "<svg" in dom and 'class="tree"' in dom and 'class="diff"' in dom
    shot = screenshot(report, report.parent / "shot.png")
    assert shot.stat().st_size > 10_000


def test_lineage_follows_rollbacks() -> None:
    from agent_evolve.userview.run import cycle_row

    def record(cycle: int, outcome: str) -> dict:
        return {"cycle": cycle, "score": 0.5, "metadata": {"outcome": outcome, "gate": {"candidate_score": 0.5}}}

    journal = [
        {"cycle": 0, "phase": "baseline", "accepted_tag": "evo-0"},
        {"cycle": 1, "phase": "solved"}, {"cycle": 1, "phase": "recorded", "accepted_tag": "evo-1"},
        {"cycle": 2, "phase": "solved"}, {"cycle": 2, "phase": "recorded", "accepted_tag": "evo-2"},
        {"cycle": 2, "phase": "finished", "accepted_tag": "evo-1"},
        {"cycle": 3, "phase": "solved"}, {"cycle": 3, "phase": "recorded", "accepted_tag": "evo-1"},
    ]
    rows = [cycle_row(record(1, "accepted")), cycle_row(record(2, "accepted")), cycle_row(record(3, "rejected"))]
    root = lineage(rows, journal)
    (evo1,) = root.children
    assert [c.tag for c in evo1.children] == ["evo-2", "cand-3"], "cycle 3 grew from evo-1 after the rollback"


def test_skill_bank_and_matrix_from_observations(finished_run: Path) -> None:
    def obs(task: str, score: float, skills: list[str]) -> Observation:
        return Observation(Task(task, ""), Trajectory(task, "", steps=[{"type": "skills", "injected": skills}]),
                           Feedback(score == 1.0, score))

    batch = [obs("t1", 1.0, ["a"]), obs("t2", 1.0, ["a"]), obs("t3", 0.0, [])]
    bank = skill_bank([("a", "A"), ("b", "B")], batch)
    assert (bank[0].uses, bank[0].contribution) == (2, 1.0) and (bank[1].uses, bank[1].contribution) == (0, None)
    matrix = task_matrix({1: {"h10": 1.0, "h2": 0.0}}, {2: batch})
    assert matrix.tasks == ["h2", "h10", "t1", "t2", "t3"] and matrix.cells[("t3", 2)] == 0.0
    holdout = load_run(finished_run).holdout_scores(3)
    assert len(holdout) == 6 and set(holdout.values()) == {1.0}, "every holdout task solved by the cycle-3 candidate"


def test_without_matplotlib_the_report_names_the_plot_extra(finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = CliRunner().invoke(cli, ["report", str(finished_run), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 1 and "pip install 'agent-evolve[plot]'" in result.output
    assert not (tmp_path / "r.html").exists()
