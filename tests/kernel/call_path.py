"""The kernel's path from `Evolver.run()` to the first evo-N tag, traced: which kernel files it enters, and how often
it comes back to one it already visited (issue 36).

One cycle of a one-task batch (and a one-task holdout) runs under `sys.setprofile`; every Python call whose code
lives in `src/agent_evolve` is seen, until the workspace's evo-1 tag exists. The kernel is `api.py` and
`engine/`; the packages below it (contract, io, stats, types, llm, protocol, benchmarks) are libraries it uses and
are left out. A *call* is a call into a kernel file from code in another file (the nearest caller inside the
package); three counts are kept, from coarse to fine:

- `steps`: each caller-file -> callee-file pair once, in the order first taken (how a reader moves between files);
- `functions`: each kernel function entered from another file once (the issue's count: ~110 calls, 75 re-entries
  when it was filed);
- `calls`: every call, loops over tasks included.

A *re-entry* is a call into a file the path entered before. Run it to print the path and the figures:
`PYTHONPATH=src:tests/kernel python tests/kernel/call_path.py`.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae

PACKAGE = str(Path(ae.__file__).parent) + "/"


def in_kernel(relative: str) -> bool:
    """The kernel: the `Evolver` entry and the engine package."""
    return relative == "api.py" or relative.startswith("engine/")


@dataclass(frozen=True)
class Call:
    """A call into a kernel file from another file: callee file and function, and the caller's."""

    file: str
    function: str
    caller_file: str
    caller_function: str


@dataclass
class CallPath:
    """The traced calls, in order, and the three counts (see the module docstring)."""

    calls: list[Call]

    def steps(self) -> list[Call]:
        return _first(self.calls, lambda c: (c.caller_file, c.file))

    def functions(self) -> list[Call]:
        return _first(self.calls, lambda c: (c.file, c.function))

    @staticmethod
    def reentries(calls: list[Call]) -> Counter[str]:
        """Per file, how many of `calls` came back to it after its first visit."""
        seen = Counter(c.file for c in calls)
        return Counter({f: n - 1 for f, n in seen.items() if n > 1})


def _first(calls: list[Call], key: Callable[[Call], tuple[str, str]]) -> list[Call]:
    """The calls whose key was not seen before, in order."""
    seen, kept = set(), []
    for call in calls:
        if key(call) not in seen:
            seen.add(key(call))
            kept.append(call)
    return kept


def trace(root: Path) -> CallPath:
    """Run one cycle in `root` under the profiler; the kernel calls made until evo-1 is tagged."""
    workspace = make_workspace(root / "ws")
    tag = workspace / ".git" / "refs" / "tags" / "evo-1"
    config = ae.EvolveConfig(batch_size=1, holdout_ratio=0.5, concurrency=1, preflight=False)
    evolver = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(n=2, keywords=1), config,
                         PlanEngine([("prompt", "k0\n")]))
    frames: list[tuple[str, str] | None] = []  # the package's frames on the stack (None: code outside it)
    calls: list[Call] = []
    stopped = False

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal stopped
        if stopped or event not in ("call", "return"):
            return
        if event == "return":
            if frames:
                frames.pop()
            stopped = tag.exists()
            return
        name = frame.f_code.co_filename
        here = (name[len(PACKAGE):], frame.f_code.co_name) if name.startswith(PACKAGE) else None
        caller = next((f for f in reversed(frames) if f is not None), ("", ""))
        frames.append(here)
        if here is not None and in_kernel(here[0]) and here[0] != caller[0]:
            calls.append(Call(here[0], here[1], caller[0], caller[1]))

    threading.setprofile(None)
    sys.setprofile(profile)
    try:
        evolver.run(1)
    finally:
        sys.setprofile(None)
    assert tag.exists(), "the cycle was accepted and tagged evo-1"
    return CallPath(calls)


def report(path: CallPath) -> str:
    """The figures, then the path step by step (R marks a re-entry)."""
    lines = []
    for name, calls in (("steps", path.steps()), ("functions", path.functions()), ("calls", path.calls)):
        files = len({c.file for c in calls})
        again = CallPath.reentries(calls)
        top = ", ".join(f"{f} {n}" for f, n in again.most_common(6))
        lines.append(f"{name}: {len(calls)} calls, {files} files, {sum(again.values())} re-entries ({top})")
    visited: set[str] = set()
    for call in path.steps():
        mark = "R" if call.file in visited else " "
        visited.add(call.file)
        lines.append(f"  {mark} {call.caller_file or '-'}:{call.caller_function or '-'} -> {call.file}:{call.function}")
    return "\n".join(lines)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        print(report(trace(Path(folder))))
