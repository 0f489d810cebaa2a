"""How often a search design accepts an edit that really helps: trial size against holdout size.

Usage: python speed/gate_power.py [--draws 20000] [--seed 0]

Reads per-task rows of the same GSM8K train tasks under three workspaces (`experiments/probes/results`: the
seed prompt, program answers, program answers cross-checked by a text answer) and replays, on tasks drawn
without replacement, each design the demos engine can run in one cycle:

- trial + gate: program answers and the cross-check scored on `trial` tasks; the better one, if it beats the
  seed prompt there, goes to a `holdout`-task gate, which accepts a strict gain (the default `strict` gate);
- gate only (`trial_tasks` 0): the cross-check goes straight to the gate.

Each row is the share of draws that end with an accepted edit. Both edits help on these 90 tasks (program
answers 55, the cross-check 63, the seed prompt 49), so every rejection is a miss. The rows are one greedy run
per task; the model's own run-to-run noise is not in them, so the shares are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Mapping
from pathlib import Path

PROBES = Path("experiments/probes/results")
CROSS_CHECK_SOLVES = 2.5  # solves a cross-checked task costs (two greedy answers, samples on disagreements)
ARMS = {"seed prompt": "baseline", "program": "program", "cross-check": "settled4"}


def scores(arm: str) -> dict[str, float]:
    """task id -> score of one probe arm."""
    lines = (PROBES / f"{arm}.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["task_id"]: float(row["score"]) for row in map(json.loads, lines)}


def accepts(base: Mapping[str, float], candidates: Mapping[str, Mapping[str, float]], trial: list[str],
            holdout: list[str]) -> bool:
    """One cycle: the trial's best candidate (none without a trial: the first) must beat `base` at the gate."""
    def total(arm: Mapping[str, float], ids: list[str]) -> float:
        return sum(arm[i] for i in ids)

    if trial:
        best = max(candidates, key=lambda name: total(candidates[name], trial))
        if total(candidates[best], trial) <= total(base, trial):
            return False
    else:
        best = next(iter(candidates))
    return total(candidates[best], holdout) > total(base, holdout)


def accept_rate(base: Mapping[str, float], candidates: Mapping[str, Mapping[str, float]], trial: int,
                holdout: int, draws: int, rng: random.Random) -> float:
    """The share of `draws` random (trial, holdout) carves in which the cycle accepts."""
    ids = sorted(base)
    hits = 0
    for _ in range(draws):
        drawn = rng.sample(ids, trial + holdout)
        hits += accepts(base, candidates, drawn[:trial], drawn[trial:])
    return hits / draws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    arms = {name: scores(file) for name, file in ARMS.items()}
    base = arms["seed prompt"]
    both = {"program": arms["program"], "cross-check": arms["cross-check"]}  # the engine's order: first wins ties
    rng = random.Random(args.seed)
    gate = 1 + CROSS_CHECK_SOLVES  # the seed prompt and the cross-check on each holdout task
    print("| design | trial tasks | holdout tasks | solves (about) | accepts |")
    print("|---|---:|---:|---:|---:|")
    for holdout in (8, 12, 16, 20):
        rate = accept_rate(base, both, 8, holdout, args.draws, rng)
        solves = 8 * (2 + CROSS_CHECK_SOLVES) + holdout * gate
        print(f"| trial + gate (program, cross-check) | 8 | {holdout} | {solves:.0f} | {rate:.2f} |")
    for holdout in (8, 12, 16, 20):
        rate = accept_rate(base, {"cross-check": arms["cross-check"]}, 0, holdout, args.draws, rng)
        print(f"| gate only (cross-check) | 0 | {holdout} | {holdout * gate:.0f} | {rate:.2f} |")


if __name__ == "__main__":
    main()
