"""Test draws: each draw scores the baseline and every arm again, with its own sampling seed, its own reply-cache
namespace and its own score files.

Within a draw every arm asks the same cache, so an arm that asks what the baseline asked gets the baseline's
reply (common random numbers); across draws nothing is shared, so the draw-to-draw churn of the model shows up
and every lift is measured more than once. A folder from before draws (unregistered) keeps its one draw where it
was: score files keyed by workspace content, replies at the top of the cache, sampling seed 0.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.config import EvolveConfig
from agent_evolve.llm.draws import draw_seed

TEST_SEED = 104_729  # the sampling seed of test draw 0; draw d uses draw_seed(TEST_SEED, d)
from agent_evolve.lift.plan import DEFAULT_DRAWS


@dataclass(frozen=True)
class DrawLayout:
    """Where draw `d` of a scoring keeps its scores and replies, and the sampling seed it runs with."""

    out_dir: Path
    draws: int = DEFAULT_DRAWS
    legacy: bool = False

    def store(self, draw: int, who: str, key: str) -> Path:
        """The score file of `who` (``baseline``, ``evolved/seed-0``, ...) in `draw`; a legacy folder's is keyed
        by the workspace's content."""
        if self.legacy:
            return self.out_dir / "scores" / f"{key}.jsonl"
        return self.out_dir / "scores" / f"draw-{draw}" / f"{who.replace('/', '-')}.jsonl"

    def sampling_seed(self, draw: int) -> int:
        """The sampling seed every role uses in `draw` (the same for every arm of the draw)."""
        return 0 if self.legacy else draw_seed(TEST_SEED, draw)

    def config(self, config: EvolveConfig, draw: int) -> EvolveConfig:
        """`config` with the draw's reply-cache namespace (a folder of its own under the experiment's cache)."""
        if self.legacy or not config.llm_cache_dir:
            return config
        return dataclasses.replace(config, llm_cache_dir=str(Path(config.llm_cache_dir) / f"draw-{draw}"))
