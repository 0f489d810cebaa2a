"""Ratchet's round on our loop: the config that makes one cycle the document's round.

The document's round is an eval pass over the eval set (active bank, no synthesis) and a train pass over the
whole train set (every task attempted with the live bank, one capsule each, a verdict per capsule), then synthesis
and the curator. On our loop a cycle solves a train batch and the gate scores the new bank on the holdout, so a
cycle is the document's round when the batch is the whole train pool and the holdout is the eval set: every
round gives each skill its routed share of all train tasks, the pace at which the 100-trial retirement rule is
reachable (the paper: 60 train tasks a round for 100 rounds). Within the no-leak rule the eval pass reaches the
engine only as its aggregate pass@1 (what rollback reads); eval attempts get no capsules and no verdicts.
"""

from __future__ import annotations

from typing import Any

NEVER_PLATEAU = 1_000_000
"""A plateau window no run reaches: the document's runs last their rounds."""


def document_round(n_train: int, n_eval: int) -> dict[str, Any]:
    """EvolveConfig settings for rounds of `n_train` train tasks (all solved every round) and an eval pass over
    `n_eval` holdout tasks (the benchmark's first `n_train + n_eval` train-split tasks, split by the run's seed)."""
    if n_train < 1 or n_eval < 1:
        raise ValueError(f"a Ratchet round needs train and eval tasks, got n_train={n_train}, n_eval={n_eval}")
    pool = n_train + n_eval
    return {"task_pool_limit": pool, "holdout_ratio": n_eval / pool, "holdout_limit": n_eval, "batch_size": n_train,
            "gate_strategy": "keep", "egl_window": NEVER_PLATEAU}
