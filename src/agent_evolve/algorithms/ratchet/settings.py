"""RatchetSettings: every Ratchet threshold as one key, with the paper's defaults, read from engine_params.

Defaults follow REFERENCE.md section 5. Keys marked "ours" settle what the README and paper leave open.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from agent_evolve.agents.routing.bank import ROUTER_RULES, RouterConfig, Routing
from agent_evolve.agents.routing.embeddings import CALIBRATED
from agent_evolve.algorithms.ratchet.curator import CreditWeighting
from agent_evolve.config import type_ok
from agent_evolve.contract.settings_rules import Rules
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
        known = cls.keys()
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise ConfigError(f"{source}: unknown Ratchet keys {unknown}; known: {', '.join(sorted(known))}")
        hints = typing.get_type_hints(cls)
        for key, value in params.items():
            if not type_ok(value, hints[key]):
                raise ConfigError(f"{source}: key {key!r} must be {_describe(hints[key])}, got {value!r}")
            if key in _RANGES and not _RANGES[key][0](value):
                raise ConfigError(f"{source}: key {key!r} must be {_RANGES[key][1]}, got {value!r}")
        return cls(**dict(params))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def router_config(self) -> RouterConfig:
        """What the reference agent needs to route like these settings (the workspace marker's content)."""
        return RouterConfig(self.routing, self.full_bank_limit, self.shortlist_lexical, self.shortlist_embedding,
                            self.embedder)


def _describe(hint: Any) -> str:
    if type(None) in get_args(hint):
        return _describe(next(a for a in get_args(hint) if a is not type(None))) + " (or null: calibrated)"
    if typing.get_origin(hint) is Literal:
        return "one of " + ", ".join(map(str, get_args(hint)))
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(hint, str(hint))


_COSINE = (lambda v: v is None or 0.0 < v <= 1.0, "a cosine in (0, 1]")  # None: calibrated
_POSITIVE = (lambda v: v >= 1, "a positive integer")
_OFF_OR_EVERY = (lambda v: v >= 0, "a non-negative integer (0: off)")

_RANGES: Rules = {
    **ROUTER_RULES,
    **dict.fromkeys(("canonical_threshold", "cover_threshold", "dedup_threshold"), _COSINE),
    **dict.fromkeys(("cluster_window", "min_cluster", "synth_attempts", "retire_min_trials", "bank_cap",
                     "rollback_consecutive"), _POSITIVE),
    **dict.fromkeys(("meta_every", "meta_every_tasks"), _OFF_OR_EVERY),
    "skill_char_budget": (lambda v: v >= 100, "an integer of at least 100"),
    "max_new_skills": (lambda v: v >= 0, "a non-negative integer"),
    "retire_threshold": (lambda v: -1.0 <= v <= 1.0, "a contribution in [-1, 1]"),
    "rollback_threshold": (lambda v: v >= 0.0, "a non-negative number"),
    "role_max_tokens": (lambda v: v >= 16, "an integer of at least 16"),
}
"""Per key with a range: a check and what a valid value is, for the error message."""
