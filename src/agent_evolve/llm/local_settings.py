"""The embedded engine's speed settings, read from the environment and checked before the model loads; defaults are
measured choices (speed/README.md: re-measure on quiet cores before changing them)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from agent_evolve.config import EMBEDDED_SLOTS
from agent_evolve.errors import ConfigError

DraftMode = Literal["none", "prompt-lookup"]
DRAFT_MODES: tuple[DraftMode, ...] = ("none", "prompt-lookup")
MAX_SLOTS = 64


@dataclass(frozen=True)
class EngineSettings:
    """How the batched engine runs: slots decoded together, llama.cpp threads (default every core), batch sizes,
    prompt-lookup drafts, one shared KV cache or one per slot; each field has its ``AGENT_EVOLVE_*`` variable."""

    slots: int = EMBEDDED_SLOTS
    n_threads: int = 0
    n_batch: int = 512
    n_ubatch: int = 0
    draft: DraftMode = "none"
    draft_tokens: int = 8
    draft_ngram: int = 3
    kv_unified: bool = True

    def __post_init__(self) -> None:
        if self.n_threads == 0:
            object.__setattr__(self, "n_threads", len(os.sched_getaffinity(0)))  # every core this process may use
        if self.n_ubatch == 0:
            object.__setattr__(self, "n_ubatch", self.n_batch)
        problems = [f"{name} must be at least 1, got {value}" for name, value in
                    (("slots", self.slots), ("n_threads", self.n_threads), ("n_batch", self.n_batch),
                     ("n_ubatch", self.n_ubatch), ("draft_tokens", self.draft_tokens),
                     ("draft_ngram", self.draft_ngram)) if value < 1]
        if self.slots > MAX_SLOTS:
            problems.append(f"slots must be at most {MAX_SLOTS}, got {self.slots}")
        if self.n_ubatch > self.n_batch:
            problems.append(f"n_ubatch ({self.n_ubatch}) must not exceed n_batch ({self.n_batch})")
        if self.n_batch < self.slots:
            problems.append(f"n_batch ({self.n_batch}) must hold one token of every slot ({self.slots})")
        if self.draft not in DRAFT_MODES:
            problems.append(f"draft must be one of {', '.join(DRAFT_MODES)}, got {self.draft!r}")
        if problems:
            raise ConfigError("embedded model settings: " + "; ".join(problems))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EngineSettings:
        """The settings named by ``AGENT_EVOLVE_*`` variables (unset or empty: the default); ConfigError naming
        the variable when one is not a whole number or out of range."""
        env = os.environ if environ is None else environ
        numbers: dict[str, int] = {}
        for field_name, variable in _INT_VARIABLES.items():
            text = env.get(variable, "").strip()
            if not text:
                continue
            try:
                numbers[field_name] = int(text)
            except ValueError:
                raise ConfigError(f"{variable}={text!r}: expected a whole number") from None
            if numbers[field_name] < 1:
                raise ConfigError(f"{variable}={text!r}: must be at least 1")
        draft = env.get("AGENT_EVOLVE_DRAFT", "").strip() or "none"
        if draft not in DRAFT_MODES:
            raise ConfigError(f"AGENT_EVOLVE_DRAFT={draft!r}: expected one of {', '.join(DRAFT_MODES)}")
        unified_text = env.get("AGENT_EVOLVE_KV_UNIFIED", "").strip().lower() or "1"
        if unified_text not in _SWITCH:
            raise ConfigError(f"AGENT_EVOLVE_KV_UNIFIED={unified_text!r}: expected 1 or 0 (true or false)")
        return cls(draft=draft, kv_unified=_SWITCH[unified_text], **numbers)  # type: ignore[arg-type]


_SWITCH = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


_INT_VARIABLES = {
    "slots": "AGENT_EVOLVE_LOCAL_SLOTS",
    "n_threads": "AGENT_EVOLVE_N_THREADS",
    "n_batch": "AGENT_EVOLVE_N_BATCH",
    "n_ubatch": "AGENT_EVOLVE_N_UBATCH",
    "draft_tokens": "AGENT_EVOLVE_DRAFT_TOKENS",
    "draft_ngram": "AGENT_EVOLVE_DRAFT_NGRAM",
}
