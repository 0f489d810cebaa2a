"""Following one task from `Evolver.run()` to its git tag: at most 15 returns to a visited kernel file counted file
to file, at most 75 counted function by function (issue 36's count, whose target of 15 is not met; the limit keeps
it from growing), and no engine module calls back into the loop (the path is in docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

from call_path import CallPath, report, trace

MAX_REENTRIES = 15
"""Re-entries of the path taken file to file (each caller-file -> callee-file step once)."""

MAX_FUNCTION_REENTRIES = 75
"""Re-entries counted function by function (the issue's count, 80 before the spine was rebuilt, 77 before the kernel
was slimmed): may only fall."""


def test_the_path_to_a_tag_comes_back_to_a_visited_file_at_most_15_times(tmp_path: Path) -> None:
    path = trace(tmp_path)
    assert sum(CallPath.reentries(path.steps()).values()) <= MAX_REENTRIES, report(path)
    assert sum(CallPath.reentries(path.functions()).values()) <= MAX_FUNCTION_REENTRIES, report(path)


def test_the_loop_is_the_spine_no_module_calls_back_into_it(tmp_path: Path) -> None:
    path = trace(tmp_path)
    callers = {c.caller_file for c in path.calls if c.file == "engine/loop.py"}
    assert callers == {"api.py"}, report(path)
