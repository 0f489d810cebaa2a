"""Claims from data: the lift quotes of a document (``+0.125 ... 95% CI [+0.058, +0.200]``, or a link to its
lift.json) checked against the lift.json files, and the results table generated between markers from them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_evolve.lift.plan import ARM_ROWS
from agent_evolve.lift.shapes import LIFT_SCHEMA, read_checked

NUMBER = r"[+\-−]\d+\.\d{3}"
QUOTE = re.compile(rf"({NUMBER})(?:(?!{NUMBER}).){{0,60}}?95% CI \[({NUMBER}), ({NUMBER})\]", re.S)
LINKED = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^)\s]*lift\.json)\)")
START, END = "<!-- lift-results:start (generated: agent-evolve experiment table) -->", "<!-- lift-results:end -->"
Triple = tuple[float, float, float]


def quotes(text: str) -> list[tuple[Triple, int]]:
    """Every quoted (lift, CI low, CI high) of `text` with the offset where it starts."""
    return [(_rounded(*(float(g.replace("−", "-")) for g in m.groups())), m.start()) for m in QUOTE.finditer(text)]


def _rounded(*values: float) -> Triple:
    return tuple(round(float(v), 3) for v in values)  # type: ignore[return-value]


def triples(report: Any) -> set[Triple]:
    """Every (lift, CI low, CI high) a lift.json holds: per-seed rows, pooled arms, lifts against controls."""
    values = report.values() if isinstance(report, dict) else report if isinstance(report, list) else []
    found: set[Triple] = set().union(*map(triples, values))
    if isinstance(report, dict):
        lift = next((report[k] for k in ("lift", "mean_difference") if isinstance(report.get(k), int | float)), None)
        if lift is not None and isinstance(report.get("ci_low"), int | float):
            found.add(_rounded(lift, report["ci_low"], report["ci_high"]))
        pooled = report.get("pooled")
        if isinstance(report.get("mean_lift"), int | float) and isinstance(pooled, dict) and "ci_low" in pooled:
            found.add(_rounded(report["mean_lift"], pooled["ci_low"], pooled["ci_high"]))
    return found


def lift_files(root: Path) -> dict[str, Path]:
    """Every lift.json under `root`, keyed by its path relative to `root`'s parent (as documents cite it)."""
    return {path.relative_to(root.parent).as_posix(): path for path in sorted(root.glob("*/lift.json"))}


def check(document: Path, text: str, files: dict[str, Path], repo: Path, *,
          every_quote: bool = True) -> Iterator[str]:
    """`document:line: quote is not in ...` for each quote of `text` that its lift.json files do not hold: linked
    quotes against the file they link to, and (with `every_quote`) any other quote against every file in `files`."""
    cache = {key: triples(read_checked(path, LIFT_SCHEMA)) for key, path in files.items()}
    every: set[Triple] = set().union(*cache.values())
    linked_spans = []
    found = []
    for link in LINKED.finditer(text):
        path = next((p for p in (document.parent / link[2], repo / link[2]) if p.is_file()), repo / link[2])
        cited = path.resolve().relative_to(repo.resolve()).as_posix() if path.is_file() else link[2]
        held = cache.get(cited) or triples(read_checked(path, LIFT_SCHEMA))
        linked_spans.append((link.start(), link.end()))
        found += [(quote, link.start(), f"its file {cited}") for quote, _ in quotes(link[1]) if quote not in held]
    for quote, start in quotes(text) if every_quote else []:
        if quote not in every and not any(a <= start < b for a, b in linked_spans):
            found.append((quote, start, "any committed lift.json"))
    for quote, start, where in found:
        line = text.count("\n", 0, start) + 1
        yield f"{document}:{line}: {fmt_lift(*quote)} is not in {where}"


def fmt_lift(lift: float, low: float, high: float) -> str:
    """A lift as documents quote it (and `quotes` finds it): ``+0.069, 95% CI [+0.019, +0.119]``."""
    return f"{lift:+.3f}, 95% CI [{low:+.3f}, {high:+.3f}]"


def completion(report: dict[str, Any]) -> tuple[int, int]:
    """How many of the plan's seeds have every planned arm scored, and how many the plan has (a lift.json is
    rewritten after each arm, so a run in progress has fewer)."""
    plan = report.get("plan") or {}
    planned = [int(s) for s in plan.get("seeds") or []]
    arms = plan.get("arms") or ["evolved"]
    scored = [{int(r["seed"]) for r in report.get(ARM_ROWS.get(arm, arm)) or []} for arm in arms]
    done = sum(all(seed in seeds for seeds in scored) for seed in planned)
    return done, len(planned)


def table_row(name: str, report: dict[str, Any]) -> str:
    """One experiment's row: tasks, seeds, registration, draws, mean lift with its pooled CI, the headline; a
    registered run still in progress shows how far it is instead of numbers."""
    registration = report.get("registration") or {}
    registered = registration.get("registered")
    plan, draws = (registration.get("plan_id"), registration.get("draws", 1)) if registered else ("unregistered", 1)
    start = f"| [{name}]({name}) | {report.get('benchmark')} | {report.get('test_tasks')} "
    done, planned = completion(report)
    if registered and done < planned:
        return (f"{start}| {done} of {planned} | {plan} | {draws} | in progress | in progress: {done} of {planned} "
                "seeds have every arm scored |")
    evolved = (report.get("arms") or {}).get("evolved")
    if evolved:
        pooled = evolved["pooled"]
        mean = fmt_lift(evolved["mean_lift"], pooled["ci_low"], pooled["ci_high"])
    else:
        mean = f"{report.get('mean_lift', 0.0):+.3f} (per-seed CIs only)"
    head = (report.get("evidence") or {}).get("headline")
    headline = (f"{fmt_lift(head['mean_difference'], head['ci_low'], head['ci_high'])} (against {head['against']})"
                if head and registered else "unregistered: none")
    return f"{start}| {len(report.get('runs', []))} | {plan} | {draws} | {mean} | {headline} |"


def results_table(root: Path) -> str:
    """The generated table of every lift.json under `root`, between its markers."""
    head = ("| experiment | benchmark | test tasks | seeds | plan | draws | mean lift, pooled 95% CI "
            "| headline (smaller against the controls) |")
    rows = [table_row(Path(key).parent.name + "/lift.json", read_checked(path, LIFT_SCHEMA) or {})
            for key, path in lift_files(root).items()]
    return "\n".join([START, head, "|---|---|---:|---:|---|---:|---|---|", *rows, END])


def with_table(text: str, table: str, where: str, markers: tuple[str, str] = (START, END)) -> str:
    """`text` with the part between `markers` (those `table` starts and ends with) replaced by `table`; a
    ValueError when the markers are missing."""
    start, end = markers
    if start not in text or end not in text:
        raise ValueError(f"{where}: no table markers ({start} ... {end})")
    before, rest = text.split(start, 1)
    return before + table + rest.split(end, 1)[1]
