"""Ratchet's run flags (its README's names) for `agent-evolve run` and `ablate`: each sets one engine parameter when
given; `--n-train N --n-eval M` make each cycle the document's round (`rounds.document_round`; loop flags win).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from agent_evolve.algorithms.ratchet.rounds import document_round
from agent_evolve.errors import ConfigError

RUN_FLAGS: dict[str, tuple[str, Any, str]] = {
    "no_synth": ("--no-synth", None, "Ratchet: audit only (capsules, verdicts, curator; no new skills)."),
    "meta_every": ("--meta-every", click.IntRange(min=0), "Ratchet: refresh the meta-skill every N rounds (0: off)."),
    "meta_every_tasks": ("--meta-every-tasks", click.IntRange(min=0),
                         "Ratchet: ... or every M train tasks (0: off)."),
    "retire_threshold": ("--skill-retire-contribution-threshold", float,
                         "Ratchet: retire at contribution <= this [-0.10]."),
    "retire_min_trials": ("--skill-retire-min-tasks", click.IntRange(min=1),
                          "Ratchet: routed trials before a skill can retire [100]."),
    "bank_cap": ("--skill-bank-max", click.IntRange(min=1), "Ratchet: active skills at most [50]."),
    "rollback_threshold": ("--rollback-threshold", click.FloatRange(min=0),
                           "Ratchet: a round regresses more than this below the best held-out pass@1 [0.10]."),
    "rollback_consecutive": ("--rollback-consecutive", click.IntRange(min=1),
                             "Ratchet: regressed rounds in a row that restore the best bank [5]."),
}
"""Engine parameter: (flag, click type or None for an on/off flag, help)."""


def ratchet_run_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add Ratchet's run flags to a command."""
    func = click.option("--n-eval", "round_eval", type=click.IntRange(min=1),
                        help="Ratchet: eval tasks of a round (the holdout); with --n-train.")(func)
    func = click.option("--n-train", "round_train", type=click.IntRange(min=1),
                        help="Ratchet: train tasks of a round, all attempted every round; with --n-eval.")(func)
    for key, (flag, kind, text) in reversed(RUN_FLAGS.items()):
        option = (click.option(flag, key, is_flag=True, default=None, help=text) if kind is None
                  else click.option(flag, key, type=kind, help=text))
        func = option(func)
    return func


def ratchet_params(options: dict[str, Any]) -> dict[str, Any]:
    """The Ratchet engine parameters the given flags set."""
    return {key: options[key] for key in RUN_FLAGS if options.get(key) is not None}


def round_config(options: dict[str, Any]) -> dict[str, Any]:
    """The loop settings of the document's round from --n-train and --n-eval (both or neither)."""
    n_train, n_eval = options.get("round_train"), options.get("round_eval")
    if n_train is None and n_eval is None:
        return {}
    if n_train is None or n_eval is None:
        raise ConfigError("command line: --n-train and --n-eval go together (a Ratchet round has both)")
    return document_round(n_train, n_eval)
