"""Ratchet's run flags: --no-synth and --meta-every reach the engine's settings; `ablate` is a command."""

from __future__ import annotations

from click.testing import CliRunner

from agent_evolve.algorithms.ratchet.engine import RatchetEngine
from agent_evolve.cli.main import cli
from agent_evolve.cli.run import build_config
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.acceptance import strategy_from_config
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
