"""Ratchet's round on our loop: a cycle is the document's round when its batch is the whole train pool and the
holdout is the eval set, so skills gather trials at the pace the 100-trial retirement rule assumes (the paper: 60
train tasks a round). The eval pass reaches the engine only as its pass@1 (no-leak); it gets no capsules.
"""

from __future__ import annotations

from typing import Any

NEVER_PLATEAU = 1_000_000
"""A plateau window no run reaches: the document's runs last their rounds."""


def document_round(n_train: int, n_eval: int) -> dict[str, Any]:
    """EvolveConfig settings for rounds of `n_train` train tasks (all solved every round) and an eval pass over
    `n_eval` holdout tasks (of the benchmark's first `n_train + n_eval`, split by the run's seed)."""
    if n_train < 1 or n_eval < 1:
        raise ValueError(f"a Ratchet round needs train and eval tasks, got n_train={n_train}, n_eval={n_eval}")
    pool = n_train + n_eval
    return {"task_pool_limit": pool, "holdout_ratio": n_eval / pool, "holdout_limit": n_eval, "batch_size": n_train,
            "gate_strategy": "keep", "egl_window": NEVER_PLATEAU}
