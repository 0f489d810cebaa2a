"""RatchetSettings: every Ratchet threshold as one key with the paper's defaults (REFERENCE.md section 5; "ours"
settles what the README and paper leave open), read from engine_params or set by Ratchet's run flags."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, get_args

import click

from agent_evolve.agents.routing.bank import ROUTER_RULES, RouterConfig, Routing
from agent_evolve.agents.routing.embeddings import CALIBRATED
from agent_evolve.algorithms.ratchet.curator import CreditWeighting
from agent_evolve.contract.settings_rules import Rules, check_settings, is_int, is_number
from agent_evolve.errors import ConfigError


@dataclass(frozen=True)
class RatchetSettings:
    """Ratchet's thresholds; `RatchetSettings.from_params(config.engine_params)` validates them."""

    routing: Routing = "llm"             # llm: the model picks 1 or NONE; retrieval: lexical top-1 (ours); none (A1)
    full_bank_limit: int = 20            # up to this many active skills the router model sees them all
    shortlist_lexical: int = 10          # above it: lexical top-k ...
    shortlist_embedding: int = 10        # ... united with the embedding top-k
    canonicalise: bool = True            # merge near-identical failure patterns (A5 turns it off)
    canonical_threshold: float | None = None  # cosine at which two failure patterns are one (None: calibrated)
    cluster_window: int = 6              # rounds of failures the synthesizer clusters
    min_cluster: int = 3                 # failures a cluster needs to become a skill
    cover_guard: bool = True             # skip a cluster an active skill already covers (A6 turns it off)
    cover_threshold: float | None = None  # cosine of a cluster and a skill's pattern at which the skill covers it
    dedup_threshold: float | None = None  # a new skill this close to a bank skill is a duplicate (None: calibrated)
    skill_char_budget: int = 1500        # longest rendered guidance; longer drafts are re-synthesised
    synth_attempts: int = 3              # ours: drafts per cluster (the first and up to 2 re-syntheses)
    max_new_skills: int = 2              # new skills per round
    retire_min_trials: int = 100         # routed trials before a skill can be retired
    retire_threshold: float = -0.10      # retire at contribution <= this
    credit_weighting: CreditWeighting = "outcome"  # outcome: (passes - failures) / trials (the document's);
    #                                      critic (ours, an option): a pass counts if HELPED, a failure if HURT
    bank_cap: int = 50                   # active skills at most; the lowest contribution is evicted for a new one
    rollback_threshold: float = 0.10     # a round regresses when its eval is more than this below the best
    rollback_consecutive: int = 5        # regressed rounds in a row that restore the best round's bank
    use_meta: bool = True                # the active meta-skill is the authoring prior (A3 turns it off)
    meta_every: int = 0                  # refresh the meta-skill every N rounds (0: off, the paper's default)
    meta_every_tasks: int = 0            # ... or once M train tasks were attempted since the last one (0: off)
    no_synth: bool = False               # audit only: capsules, verdicts, stats and curator run, no new skills
    critic_unrouted: bool = True         # ours: unrouted train failures get a pattern-only verdict (skill "")
    embedder: str = "hashing"            # the embeddings of canonicalisation, cover guard, dedup and the shortlist
    suite: str = ""                      # ours: the meta-skill suite ("code", "math"); "" picks it from the tasks
    role_max_tokens: int = 400           # ours: answer length of the critic and synthesizer calls

    def __post_init__(self) -> None:
        """Thresholds left unset take the embedder's calibrated ones (`CALIBRATED`; else the paper's 0.85)."""
        calibrated = CALIBRATED.get(self.embedder)
        for key, value in (("canonical_threshold", calibrated and calibrated.pattern),
                           ("cover_threshold", calibrated and calibrated.pattern),
                           ("dedup_threshold", calibrated and calibrated.skill)):
            if getattr(self, key) is None:
                object.__setattr__(self, key, value or 0.85)

    @classmethod
    def keys(cls) -> dict[str, Any]:
        """Every key and its default (an engine's `defaults` table)."""
        return {f.name: f.default for f in dataclasses.fields(cls)}

    @classmethod
    def from_params(cls, params: Mapping[str, Any], source: str = "engine_params") -> RatchetSettings:
        """Validated settings from a mapping; ConfigError naming the key for an unknown key or a bad value."""
        unknown = sorted(set(params) - set(_RULES))
        if unknown:
            raise ConfigError(f"{source}: unknown Ratchet keys {unknown}; known: {', '.join(sorted(_RULES))}")
        check_settings(params, _RULES, source, ConfigError)
        return cls(**dict(params))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def router_config(self) -> RouterConfig:
        """What the reference agent needs to route like these settings (the workspace marker's content)."""
        return RouterConfig(self.routing, self.full_bank_limit, self.shortlist_lexical, self.shortlist_embedding,
                            self.embedder)


_COSINE = (lambda v: v is None or (is_number(v) and 0.0 < v <= 1.0), "a cosine in (0, 1] (or null: calibrated)")
_POSITIVE = (lambda v: is_int(v) and v >= 1, "a positive integer")
_RULES: Rules = {
    **ROUTER_RULES,
    **dict.fromkeys(("canonicalise", "cover_guard", "use_meta", "no_synth", "critic_unrouted"),
                    (lambda v: isinstance(v, bool), "true or false")),
    **dict.fromkeys(("canonical_threshold", "cover_threshold", "dedup_threshold"), _COSINE),
    **dict.fromkeys(("cluster_window", "min_cluster", "synth_attempts", "retire_min_trials", "bank_cap",
                     "rollback_consecutive"), _POSITIVE),
    **dict.fromkeys(("meta_every", "meta_every_tasks"), (lambda v: is_int(v) and v >= 0,
                                                         "a non-negative integer (0: off)")),
    "skill_char_budget": (lambda v: is_int(v) and v >= 100, "an integer of at least 100"),
    "max_new_skills": (lambda v: is_int(v) and v >= 0, "a non-negative integer"),
    "retire_threshold": (lambda v: is_number(v) and -1.0 <= v <= 1.0, "a contribution in [-1, 1]"),
    "credit_weighting": (lambda v: v in get_args(CreditWeighting), "one of " + ", ".join(get_args(CreditWeighting))),
    "rollback_threshold": (lambda v: is_number(v) and v >= 0.0, "a non-negative number"),
    "suite": (lambda v: isinstance(v, str), "a string"),
    "role_max_tokens": (lambda v: is_int(v) and v >= 16, "an integer of at least 16"),
}
"""Per key: a check and what a valid value is, for the error message."""


NEVER_PLATEAU = 1_000_000
"""A plateau window no run reaches: the document's runs last their rounds."""


def document_round(n_train: int, n_eval: int) -> dict[str, Any]:
    """EvolveConfig settings that make a cycle the document's round: `n_train` train tasks, all solved every round,
    and an eval pass over `n_eval` holdout tasks (of the benchmark's first `n_train + n_eval`, split by the seed)."""
    if n_train < 1 or n_eval < 1:
        raise ValueError(f"a Ratchet round needs train and eval tasks, got n_train={n_train}, n_eval={n_eval}")
    pool = n_train + n_eval
    return {"task_pool_limit": pool, "holdout_ratio": n_eval / pool, "holdout_limit": n_eval, "batch_size": n_train,
            "gate_strategy": "keep", "egl_window": NEVER_PLATEAU}


RUN_FLAGS: dict[str, tuple[str, Any, str]] = {
    "no_synth": ("--no-synth", None, "Ratchet: audit only (capsules, verdicts, curator; no new skills)."),
    "meta_every": ("--meta-every", click.IntRange(min=0),
                   "Ratchet: refresh the meta-skill every N rounds (0: off)."),
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
"""Ratchet's run flags (its README's names) for `agent-evolve run` and `ablate`, each setting one engine parameter
when given: (flag, click type or None for an on/off flag, help)."""


def ratchet_run_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add Ratchet's run flags to a command, and `--n-train N --n-eval M` (each cycle the document's round)."""
    func = click.option("--n-eval", "round_eval", type=click.IntRange(min=1),
                        help="Ratchet: eval tasks of a round (the holdout); with --n-train.")(func)
    func = click.option("--n-train", "round_train", type=click.IntRange(min=1),
                        help="Ratchet: train tasks of a round, all attempted every round; with --n-eval.")(func)
    for key, (flag, kind, text) in reversed(RUN_FLAGS.items()):
        func = (click.option(flag, key, is_flag=True, default=None, help=text) if kind is None
                else click.option(flag, key, type=kind, help=text))(func)
    return func


def ratchet_params(options: dict[str, Any]) -> dict[str, Any]:
    """The Ratchet engine parameters the given flags set."""
    return {key: options[key] for key in RUN_FLAGS if options.get(key) is not None}


def round_config(options: dict[str, Any]) -> dict[str, Any]:
    """The loop settings of the document's round from --n-train and --n-eval (both or neither; loop flags win)."""
    n_train, n_eval = options.get("round_train"), options.get("round_eval")
    if n_train is None and n_eval is None:
        return {}
    if n_train is None or n_eval is None:
        raise ConfigError("command line: --n-train and --n-eval go together (a Ratchet round has both)")
    return document_round(n_train, n_eval)
