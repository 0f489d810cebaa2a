"""`agent-evolve eval` on a test split is a look at the test tasks too: it goes into the per-user test-view ledger
of the split, so a later plan counts it and `--test-reserve` avoids its tasks."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.solving import graded_only
from agent_evolve.lift.ledger import View, append_view, ids_hash, read_rows, user_store
from agent_evolve.lift.scoring import workspace_key
from agent_evolve.types import Observation


def record_eval(benchmark: BenchmarkAdapter, workspace: Path, config: EvolveConfig,
                observations: list[Observation]) -> Path | None:
    """Append the eval's scoring of test tasks to its split's per-user ledger (as plan ``eval-<hash>`` of the
    workspace content and config; each rerun a draw of its own); the ledger's path, None when nothing was graded."""
    graded = graded_only(observations)
    if not graded:
        return None
    key = workspace_key(workspace)
    settings = hashlib.sha256(json.dumps(config.to_dict(), sort_keys=True, default=str).encode()).hexdigest()[:8]
    plan = f"eval-{key}-{settings}"
    split = ids_hash(t.id for t in benchmark.get_tasks("test", limit=None))
    store = user_store(split)
    draw = sum(1 for row in read_rows(store) if row.get("plan") == plan)
    score = sum(o.feedback.score for o in graded) / len(graded)
    append_view(store, View(plan, "eval", key, draw, tuple(o.task.id for o in graded), score, split))
    return store
