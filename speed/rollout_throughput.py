"""Rollout throughput of whole loop cycles at a fixed latency per solve, against the physical limit c/L.

    python speed/rollout_throughput.py [--latency 0.1] [--tasks 160] [--cycles 2]

Target (issue 10): at 0.1 s latency, 160 tasks per cycle and concurrency 16, at least 90% of c/L.
"gate off" is the cycle with the train-only gate's time taken out (as in loop_overhead.py); "all rollouts" counts
the gate's re-solves too (160 train solves + 160 re-solves per cycle) over the whole cycle. Also prints the git
subprocesses and fsyncs per cycle, and the minimal loop at the same settings.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from loop_harness import make_workspace, minimal_loop, our_loop  # noqa: E402 - the sibling harness

CONCURRENCY = [1, 4, 16, 64]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per solve")
    parser.add_argument("--tasks", type=int, default=160, help="tasks per cycle")
    parser.add_argument("--cycles", type=int, default=2, help="measured cycles (one more is run first)")
    args = parser.parse_args()
    print(f"latency {args.latency} s, {args.tasks} tasks per cycle, gate off")
    print("| concurrency | c/L tasks/s | ours tasks/s (gate off) | ours % of c/L | all rollouts % of c/L"
          " | minimal % of c/L | cycle s (gate off) | git | fsyncs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in CONCURRENCY:
        with tempfile.TemporaryDirectory() as tmp:
            ours = our_loop(make_workspace(Path(tmp) / "ours", 1), args.tasks, args.cycles, c, args.latency)
            minimal = minimal_loop(make_workspace(Path(tmp) / "minimal", 1), args.tasks, args.cycles, c, args.latency)
        limit = c / args.latency
        rate, minimal_rate = args.tasks / ours.gate_off, args.tasks / minimal.median
        every = 2 * args.tasks / ours.median
        print(
            f"| {c} | {limit:.0f} | {rate:.1f} | {rate / limit:.0%} | {every / limit:.0%} | {minimal_rate / limit:.0%}"
            f" | {ours.gate_off:.3f} | {ours.git} | {ours.fsyncs} ({ours.fsync_seconds * 1e3:.0f} ms) |"
        )


if __name__ == "__main__":
    main()
