"""Per-cycle framework overhead: our loop (gate off, instant agent) against the minimal solve-and-commit loop.

    python speed/loop_overhead.py [--cycles 3] [--latency 0] [--profile TASKS,SKILLS]

Targets (issue 10): with the gate off, at 100 and 1,000 tasks a cycle costs no more than the minimal loop's plus
the journal's fsyncs; with 1,000 skills, within 1.5x of the same run with 1 skill. "ours" is our median cycle
with the train-only gate's time taken out (shown apart); ratios are measured in the same run. `--latency 2` makes
every solve take 2 s, as a model would (a realistic cycle: what the loop adds is then the difference).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from loop_harness import make_workspace, minimal_loop, our_loop  # noqa: E402 - the sibling harness

TASK_SWEEP = [(10, 1), (100, 1), (1000, 1)]
SKILL_SWEEP = [(100, 100), (100, 1000)]


def measure(tasks: int, skills: int, cycles: int, latency: float = 0.0) -> tuple:
    with tempfile.TemporaryDirectory() as tmp:
        ours = our_loop(make_workspace(Path(tmp) / "ours", skills), tasks, cycles, latency=latency)
        minimal = minimal_loop(make_workspace(Path(tmp) / "minimal", skills), tasks, cycles, latency=latency)
    return ours, minimal


def table(cycles: int, grid: list[tuple[int, int]], latency: float = 0.0) -> None:
    print("| tasks | skills | ours ms (gate off) | minimal ms | ratio | minimal + fsyncs ms | target met"
          " | git calls (ms) ours / minimal | fsyncs (ms) | train-only gate ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    medians: dict[tuple[int, int], float] = {}
    for tasks, skills in grid:
        ours, minimal = measure(tasks, skills, cycles, latency)
        medians[tasks, skills] = cycle = ours.gate_off
        allowed = minimal.median + ours.fsync_seconds
        print(
            f"| {tasks} | {skills} | {cycle * 1e3:.0f} | {minimal.median * 1e3:.0f} | {cycle / minimal.median:.2f}x"
            f" | {allowed * 1e3:.0f} | {'yes' if cycle <= allowed else 'no'}"
            f" | {ours.git} ({ours.git_seconds * 1e3:.0f}) / {minimal.git} ({minimal.git_seconds * 1e3:.0f})"
            f" | {ours.fsyncs} ({ours.fsync_seconds * 1e3:.0f} ms) | {ours.gate_seconds * 1e3:.0f} |"
        )
    for tasks, skills in [g for g in SKILL_SWEEP if g in medians and (g[0], 1) in medians]:
        ratio = medians[tasks, skills] / medians[tasks, 1]
        print(f"\n{skills} skills vs 1 skill at {tasks} tasks: {ratio:.2f}x (target for 1,000: <= 1.5x)")


def profile(tasks: int, skills: int, cycles: int) -> None:
    """Where our loop's time goes, by file (own time) and by function (cumulative)."""
    with tempfile.TemporaryDirectory() as tmp:
        workspace = make_workspace(Path(tmp) / "ours", skills)
        profiler = cProfile.Profile()
        profiler.enable()
        our_loop(workspace, tasks, cycles)
        profiler.disable()
    stats = pstats.Stats(profiler)
    by_file: dict[str, float] = defaultdict(float)
    for (filename, _, _), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        key = filename.split("site-packages/")[-1].split("src/")[-1]
        by_file[key] += own
    total = sum(by_file.values())
    print(f"own time by file ({cycles + 1} cycles, {tasks} tasks, {skills} skills, {total:.2f} s profiled):")
    for name, seconds in sorted(by_file.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {seconds:7.3f} s  {seconds / total:5.1%}  {name}")
    stats.sort_stats("cumulative").print_stats("agent_evolve", 25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=3, help="measured cycles per run (one more is run first)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds each solve takes (0: instant)")
    parser.add_argument("--profile", help="TASKS,SKILLS: profile our loop instead of measuring")
    parser.add_argument("--only", help="TASKS,SKILLS: measure this one point instead of the whole grid")
    args = parser.parse_args()
    if args.profile:
        tasks, skills = (int(x) for x in args.profile.split(","))
        profile(tasks, skills, args.cycles)
    elif args.only:
        tasks, skills = (int(x) for x in args.only.split(","))
        table(args.cycles, [(tasks, skills)], args.latency)
    else:
        table(args.cycles, TASK_SWEEP + SKILL_SWEEP, args.latency)


if __name__ == "__main__":
    main()
