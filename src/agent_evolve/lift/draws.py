"""Test draws: each draw scores the baseline and every arm again with its own sampling seed, reply-cache namespace
and score files (arms share replies within a draw, nothing across draws); an unregistered folder keeps its one draw."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.config import EvolveConfig
from agent_evolve.lift.plan import DEFAULT_DRAWS
from agent_evolve.llm.draws import draw_seed

TEST_SEED = 104_729  # the sampling seed of test draw 0; draw d uses draw_seed(TEST_SEED, d)


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
