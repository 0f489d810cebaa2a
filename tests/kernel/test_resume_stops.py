"""A run that stopped by its own rule (a converged curve, patience) and is run again stays stopped: resuming gives
what an uninterrupted run gives, so an experiment stopped between an arm's last cycle and its test scoring does
not evolve that arm further when it resumes."""

from __future__ import annotations

from pathlib import Path

from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae


def run_twice(tmp_path: Path, cycles: int, **config) -> tuple[ae.EvolutionResult, ae.EvolutionResult, Path]:
    workspace = make_workspace(tmp_path / "ws", prompt="baseline\n")
    settings = ae.EvolveConfig(**{"batch_size": 4, "holdout_ratio": 0.3, **config})
    runs = [ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), settings, PlanEngine([("prompt", "nothing")]))
            .run(cycles) for _ in range(2)]
    return runs[0], runs[1], workspace


def test_a_converged_run_run_again_adds_no_cycle(tmp_path: Path) -> None:
    first, again, workspace = run_twice(tmp_path, 6)
    assert first.details["stop_reason"] == "converged" and first.cycles_completed == 3
    assert again.details["stop_reason"] == "converged" and again.cycles_completed == 3
    assert len(ae.EvolutionHistory(workspace).cycle_records()) == 3


def test_a_run_out_of_patience_run_again_adds_no_cycle(tmp_path: Path) -> None:
    first, again, workspace = run_twice(tmp_path, 6, patience=2, egl_window=10)
    assert first.details["stop_reason"] == again.details["stop_reason"] == "patience"
    assert len(ae.EvolutionHistory(workspace).cycle_records()) == 2


def test_a_run_that_ran_all_its_cycles_continues_when_asked_for_more(tmp_path: Path) -> None:
    first, again, workspace = run_twice(tmp_path, 2, egl_window=10)
    assert first.cycles_completed == 2 and first.details["stop_reason"] == ""
    workspace_runs = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(),
                                ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, egl_window=10),
                                PlanEngine([("prompt", "nothing")])).run(4)
    assert workspace_runs.cycles_completed == 4


class EarlierPick(PlanEngine):
    """Finalizes on the first accepted version (as an engine picking by validation may)."""

    def finalize(self, context=None):
        return "evo-1"


def test_patience_judged_as_the_run_judged_it_not_after_finalize_picked_an_earlier_version(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws", prompt="baseline\n")
    settings = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, patience=3, egl_window=10)
    plan = [("prompt", "k0"), ("prompt", "k0 k1"), ("prompt", "nothing"), ("prompt", "nothing")]
    first = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), settings, EarlierPick(plan)).run(4)
    assert first.details["stop_reason"] == "" and first.details["accepted"] == 2  # 4 - 2 < patience: all cycles ran
    more = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), settings, EarlierPick(plan)).run(5)
    assert more.cycles_completed == 5  # finalize's pick (evo-1) is no stop the run itself made
