"""The report's axes make sense for any number of cycles (one included), and each gate's wins and losses are shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from userview_fakes import make_run

from agent_evolve.cli.main import cli
from agent_evolve.report.figures import AxisRange, amount_limits, cycle_limits, cycle_ticks, score_limits
from agent_evolve.report.model import CURTAILMENT_OFF, gate_tally
from agent_evolve.userview.run import baseline_score, cycle_row, load_run


def test_one_cycle_sits_mid_axis_with_one_whole_tick_and_the_full_score_range() -> None:
    assert cycle_limits([1]) == AxisRange(0.5, 1.5) and cycle_ticks([1]) == [1]
    scores = score_limits([0.0, 1 / 3, 0.0])
    assert scores.low < 0.0 and scores.high > 1.0, "0 to 1 shown, the baseline at 0 inside the frame"


def test_all_scores_equal_still_span_the_score_range() -> None:
    for value in (0.0, 0.5, 1.0):
        limits = score_limits([value] * 4)
        assert limits.low < 0.0 < 1.0 < limits.high and limits.high - limits.low == pytest.approx(1.1)


def test_scores_at_0_and_1_are_inside_the_frame_by_equal_margins() -> None:
    limits = score_limits([0.0, 1.0, None])
    assert limits.low == pytest.approx(-0.05) and limits.high == pytest.approx(1.05)


def test_scores_beyond_the_range_widen_it() -> None:
    assert score_limits([3.0, 7.0], score_range=(0.0, 10.0)) == AxisRange(-0.5, 10.5)
    widened = score_limits([-0.2, 1.4])
    assert widened.low < -0.2 and widened.high > 1.4


def test_amounts_start_at_zero_even_when_nothing_was_spent() -> None:
    for values in ([0.0], [0.0, 0.0, 0.0], []):
        limits = amount_limits(values, empty_top=0.01)
        assert limits == AxisRange(0.0, 0.01)
    spent = amount_limits([0.002, 0.006])
    assert spent.low == 0.0 and spent.high > 0.006


def test_many_cycles_get_at_most_a_dozen_whole_ticks() -> None:
    ticks = cycle_ticks(range(1, 41))
    assert ticks[0] == 1 and len(ticks) <= 12 and all(isinstance(t, int) for t in ticks)
    assert cycle_ticks(range(1, 6)) == [1, 2, 3, 4, 5]


def _gated(gate: dict) -> dict:
    return {"cycle": 2, "score": 0.5, "metadata": {"outcome": "rejected", "gate": gate}}


def test_a_curtailed_gate_counts_the_tasks_scored_before_it_stopped() -> None:
    gate = {"reason": "settled", "statistic": {"wins": 0, "losses": 3, "ties": 0, "n": 3},
            "curtailment": {"tasks": 8, "candidate": {"scored": 3, "skipped": 5}, "stopped": "settled"}}
    tally = gate_tally(cycle_row(_gated(gate)))
    assert (tally.tag, tally.wins, tally.losses, tally.ties) == ("cand-2", 0, 3, 0)
    assert (tally.scored, tally.tasks, tally.stopped) == (3, 8, "settled")


def test_a_gate_without_curtailment_scored_every_task_it_compared() -> None:
    tally = gate_tally(cycle_row(_gated({"reason": "r", "statistic": {"wins": 1, "losses": 2, "ties": 3, "n": 6}})))
    assert (tally.scored, tally.tasks, tally.stopped) == (6, 6, CURTAILMENT_OFF)
    older = gate_tally(cycle_row(_gated({"reason": "r", "candidate_score": 0.5})))
    assert (older.wins, older.scored) == (None, None), "an older record without the statistic is not read as 0"


@pytest.fixture(scope="module")
def one_cycle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("one") / "ws", cycles=1)


def test_the_report_of_one_cycle_shows_its_gates_wins_and_losses(one_cycle_run: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the report's figures need the [plot] extra")
    decision = load_run(one_cycle_run).gate_file(1)["decision"]
    wins, losses, ties = (decision["statistic"][k] for k in ("wins", "losses", "ties"))
    scored, tasks = decision["curtailment"]["candidate"]["scored"], decision["curtailment"]["tasks"]
    assert wins > 0 and wins + losses + ties == tasks, "the scripted candidate wins some holdout tasks"
    result = CliRunner().invoke(cli, ["report", str(one_cycle_run), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "r.html").read_text()
    lineage = text[text.index('id="lineage"'):text.index('id="diffs"')]
    assert f"{wins} won, {losses} lost, {ties} tied; {scored} of {tasks} holdout tasks scored" in lineage
    assert (f"<td>evo-1</td><td><span class=\"tag accepted\">accepted</span></td><td>{wins}</td><td>{losses}</td>"
            f"<td>{ties}</td><td>{scored} of {tasks}</td><td>all scored</td>") in lineage


def test_one_cycle_figures_keep_the_baseline_off_the_frame_and_cost_from_zero(one_cycle_run: Path) -> None:
    pytest.importorskip("matplotlib", reason="the report's figures need the [plot] extra")
    from agent_evolve.report.figures import score_figure, spending_figure

    run = load_run(one_cycle_run)
    baseline = baseline_score(run.journal)
    scores = score_figure(run.rows, baseline).axes[0]
    low, high = scores.get_ylim()
    assert low < 0.0 <= baseline < 1.0 < high and list(scores.get_xticks()) == [1]
    assert scores.get_xlim() == (0.5, 1.5)
    tokens, cost = spending_figure(run.rows).axes
    assert tokens.get_ylim()[0] == 0.0 and cost.get_ylim()[0] == 0.0
