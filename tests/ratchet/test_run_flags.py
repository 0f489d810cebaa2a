"""Ratchet's run flags: --no-synth and --meta-every reach the engine's settings; `ablate` is a command."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from agent_evolve.algorithms.ratchet.engine import RatchetEngine
from agent_evolve.cli.main import cli
from agent_evolve.algorithms.ratchet.settings import RUN_FLAGS, ratchet_params, ratchet_run_options
from agent_evolve.cli.run import build_config
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.acceptance import strategy_from_config
from agent_evolve.errors import ConfigError
from agent_evolve.stats import PairedTable


def test_no_synth_and_meta_every_become_engine_params() -> None:
    config = build_config(None, no_synth=True, meta_every=10, engine_param=("bank_cap=100",))
    assert config.engine_params == {"bank_cap": 100, "no_synth": True, "meta_every": 10}
    settings = RatchetEngine(**config.engine_params).settings
    assert settings.no_synth and settings.meta_every == 10 and settings.bank_cap == 100
    assert build_config(None).engine_params == {}


def test_the_keep_gate_keeps_a_worse_candidate() -> None:
    strategy = strategy_from_config(EvolveConfig(gate_strategy="keep"))
    verdict = strategy.decide(PairedTable.pair({"a": 1.0, "b": 1.0}, {"a": 0.0, "b": 1.0}), best_so_far=1.0)
    assert verdict.accepted and verdict.value == -0.5


def test_ablate_and_the_run_flags_are_on_the_command_line() -> None:
    runner = CliRunner()
    assert "--arms" in runner.invoke(cli, ["ablate", "--help"]).output
    run_help = runner.invoke(cli, ["run", "--help"]).output
    assert "--no-synth" in run_help and "--meta-every" in run_help
    bad = runner.invoke(cli, ["ablate", "--arms", "A9"])
    assert bad.exit_code == 2 and "unknown arm" in bad.output


def test_every_named_run_flag_of_ratchets_readme_sets_its_engine_param() -> None:
    """`--skill-retire-contribution-threshold -0.10 --skill-retire-min-tasks 100 --skill-bank-max 50
    --rollback-threshold 0.10 --rollback-consecutive 5` (the paper's configuration) parse and reach the engine."""
    captured: dict[str, object] = {}

    @click.command()
    @ratchet_run_options
    def probe(**options: object) -> None:
        captured.update(ratchet_params(options))

    args = ["--skill-retire-contribution-threshold", "-0.2", "--skill-retire-min-tasks", "30", "--skill-bank-max", "7",
            "--rollback-threshold", "0.05", "--rollback-consecutive", "2", "--meta-every-tasks", "40", "--no-synth"]
    assert CliRunner().invoke(probe, args).exit_code == 0
    settings = RatchetEngine(**captured).settings
    assert (settings.retire_threshold, settings.retire_min_trials, settings.bank_cap) == (-0.2, 30, 7)
    assert (settings.rollback_threshold, settings.rollback_consecutive) == (0.05, 2)
    assert settings.meta_every_tasks == 40 and settings.no_synth
    assert CliRunner().invoke(probe, []).exit_code == 0 and ratchet_params({}) == {}
    run_help = CliRunner().invoke(cli, ["run", "--help"]).output
    assert all(flag in run_help for flag, _, _ in RUN_FLAGS.values())


def test_n_train_and_n_eval_make_each_cycle_the_documents_round() -> None:
    config = build_config(None, round_train=60, round_eval=40)
    assert (config.batch_size, config.holdout_limit, config.task_pool_limit, config.gate_strategy) == (
        60, 40, 100, "keep")
    assert build_config(None, round_train=60, round_eval=40, batch_size=20).batch_size == 20, "an explicit flag wins"
    with pytest.raises(ConfigError, match="--n-train and --n-eval go together"):
        build_config(None, round_train=60)
    run_help = CliRunner().invoke(cli, ["run", "--help"]).output
    assert "--n-train" in run_help and "--n-eval" in run_help
