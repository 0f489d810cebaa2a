"""Task planning as pure functions: a holdout and a learners' validation set carved disjoint from train and from
the `dev` tasks (in `task_order`'s seeded order), and a cursor that walks the pool."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.errors import ConfigError
from agent_evolve.task_order import is_dev, seeded_order

MIN_GATED_POOL = 2  # a gate needs one task held out and one left to learn from


@dataclass(frozen=True)
class TaskPlan:
    """The run's fixed split of the benchmark's train pool, in the order batches walk it."""

    train_ids: tuple[str, ...]
    holdout_ids: tuple[str, ...]
    val_ids: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: dict) -> TaskPlan:
        """A plan as the run records keep it (a plan saved before validation existed has no `val_ids`)."""
        return cls(tuple(data["train_ids"]), tuple(data["holdout_ids"]), tuple(data.get("val_ids", ())))


def plan_tasks(task_ids: list[str], holdout_ratio: float, seed: int, holdout_limit: int | None = None,
               val_ratio: float = 0.0, val_limit: int | None = None) -> TaskPlan:
    """Order the pool by `seed`; hold out `holdout_ratio` of it (at most `holdout_limit`), then `val_ratio` of the
    rest as validation, >= 1 left for train, dev tasks never held out; a ratio leaving no holdout: ConfigError."""
    order = seeded_order(task_ids, seed)
    eligible = [item_id for item_id in order if not is_dev(item_id)]
    n_holdout = min(_share(len(order), holdout_ratio, holdout_limit), max(0, len(order) - 1), len(eligible))
    if holdout_ratio > 0 and n_holdout == 0:
        raise ConfigError(_no_holdout_message(len(order), len(eligible)))
    holdout = eligible[:n_holdout]
    rest = [item_id for item_id in order if item_id not in set(holdout)]
    rest_eligible = eligible[n_holdout:]
    n_val = min(_share(len(rest), val_ratio, val_limit), max(0, len(rest) - 1), len(rest_eligible))
    val = set(rest_eligible[:n_val])
    return TaskPlan(train_ids=tuple(i for i in rest if i not in val), holdout_ids=tuple(holdout),
                    val_ids=tuple(rest_eligible[:n_val]))


def _no_holdout_message(pool: int, eligible: int) -> str:
    """Why no holdout could be carved from a pool of `pool` train tasks, `eligible` of them not dev tasks."""
    why = (f"{pool} train task{' leaves' if pool == 1 else 's leave'} no holdout for the gate, which needs at least "
           f"{MIN_GATED_POOL} (one held out, one to learn from)") if pool < MIN_GATED_POOL else (
        f"none of the {pool} train tasks can be held out (all are dev tasks, which design the agent and never judge it)")
    return (f"{why}: add train tasks, or set holdout_ratio to 0 (--holdout-ratio 0) to run without a gate, keeping "
            "every valid edit unmeasured")


def _share(size: int, ratio: float, limit: int | None) -> int:
    """`ratio` of `size` rounded, at least 1 when the ratio is positive, at most `limit`."""
    count = max(1, round(size * ratio)) if ratio > 0 and size else 0
    return min(count, limit) if limit is not None else count


def next_batch(train_ids: tuple[str, ...], cursor: int, batch_size: int) -> tuple[list[str], int]:
    """The next `batch_size` train ids from `cursor`, wrapping around; never the same id twice in one batch."""
    if not train_ids:
        return [], cursor
    size = min(batch_size, len(train_ids))
    start = cursor % len(train_ids)
    batch = [train_ids[(start + i) % len(train_ids)] for i in range(size)]
    return batch, cursor + size
