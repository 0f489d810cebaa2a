"""Lift per 100 task solves, per engine, from lift experiments' lift.json files: engines compared at equal cost.

Usage: python speed/lift_per_solve.py [experiments/*/lift.json ...]   (default: every experiments/*/lift.json)

A task solve is one graded attempt anywhere in an arm (train batches, the engine's trials, the gate, the test
split); the report of `agent-evolve experiment` counts them per arm and seed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def rows(paths: list[Path]) -> list[tuple[str, str, int, float, float, float]]:
    """(engine, benchmark, test tasks, mean lift, solves per seed, lift per 100 solves) of each report."""
    found = []
    for path in paths:
        report = json.loads(path.read_text(encoding="utf-8"))
        arm = report.get("arms", {}).get("evolved")
        if not arm:
            print(f"{path}: no evolved arm (an older report format); skipped", file=sys.stderr)
            continue
        seeds = max(1, len(report["runs"]))
        found.append((report["engine"], report["benchmark"], report["test_tasks"], arm["mean_lift"],
                      arm["cost"]["solves"] / seeds, arm["lift_per_100_solves"]))
    return found


def main(argv: list[str]) -> None:
    paths = [Path(p) for p in argv] or sorted(Path("experiments").glob("*/lift.json"))
    print("| engine | benchmark | test tasks | mean lift | solves per seed | lift per 100 solves |")
    print("|---|---|---:|---:|---:|---:|")
    for engine, bench, tests, lift, solves, per100 in sorted(rows(paths)):
        print(f"| {engine} | {bench} | {tests} | {lift:+.3f} | {solves:.0f} | {per100:+.4f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
