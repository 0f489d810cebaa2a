"""Ratchet's ablation arms (settings overrides of the full recipe; the paper's undefined A2, A5-A8 are an error,
ours are `ours-`) and their table: the held-out gain over seeds, the test lift beside (`agent-evolve ablate`)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.errors import ConfigError

FULL = "full"
PAPER_ARMS: dict[str, tuple[str, dict[str, Any]]] = {
    "A1": ("no injection (the no-skill control)", {"routing": "none"}),
    "A3": ("no meta-skill", {"use_meta": False}),
    "A4": ("harsh retirement (20 trials, threshold 0)", {"retire_min_trials": 20, "retire_threshold": 0.0}),
}
OUR_ARMS: dict[str, tuple[str, dict[str, Any]]] = {
    "ours-retrieval": ("ours: retrieval-only routing (lexical top-1, no model pick)", {"routing": "retrieval"}),
    "ours-no-canon": ("ours: no canonicalisation", {"canonicalise": False}),
    "ours-no-cover": ("ours: no cover guard", {"cover_guard": False}),
    "ours-cap100": ("ours: bank cap 100 (the code default)", {"bank_cap": 100}),
    "ours-meta10": ("ours: meta-skill refresh every 10 rounds", {"meta_every": 10}),
    "ours-critic-credit": ("ours: credit weighted by the critic", {"credit_weighting": "critic"}),
}
ARMS: dict[str, tuple[str, dict[str, Any]]] = {FULL: ("the full recipe", {}), **PAPER_ARMS, **OUR_ARMS}
UNDEFINED_PAPER_ARMS = ("A2", "A5", "A6", "A7", "A8")
LATE_WINDOW_SHARE = 0.25
"""ours: the late window is the last quarter of the rounds (at least one); the paper does not give its length."""


def parse_arms(text: str) -> list[str]:
    """`A1,ours-no-cover` -> ["A1", "ours-no-cover"] (case-insensitive, order kept, duplicates dropped)."""
    arms = list(dict.fromkeys(_canonical(a.strip()) for a in text.split(",") if a.strip()))
    undefined = [a for a in arms if a in UNDEFINED_PAPER_ARMS]
    if undefined:
        raise ConfigError(f"--arms: the paper's {', '.join(undefined)} are not defined in the sources this package "
                          f"follows; the paper's arms here: {', '.join(PAPER_ARMS)}; ours: {', '.join(OUR_ARMS)}")
    unknown = [a for a in arms if a not in ARMS]
    if unknown or not arms:
        raise ConfigError(f"--arms: unknown arm(s) {unknown or [text]}; known: {', '.join(ARMS)}")
    return arms


def _canonical(arm: str) -> str:
    return arm.upper() if arm.upper().startswith("A") and arm[1:].isdigit() else arm.lower()


def arm_params(arm: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The run's engine_params with the arm's override on top, validated as Ratchet settings."""
    merged = {**params, **ARMS[arm][1]}
    RatchetSettings.from_params(merged, f"ablation arm {arm}")
    return merged


def heldout_gain(scores: Mapping[int, float]) -> dict[str, float] | None:
    """Round 0's held-out pass@1, the late-window mean (the last `LATE_WINDOW_SHARE` of the rounds after it) and
    their difference; None without round 0 and one later round."""
    if 0 not in scores or len(scores) < 2:
        return None
    later = [scores[r] for r in sorted(scores) if r > 0]
    window = later[-max(1, round(len(later) * LATE_WINDOW_SHARE)):]
    late = statistics.fmean(window)
    return {"start": scores[0], "late": late, "gain": late - scores[0], "peak": max(later), "window": len(window)}


def table_row(arm: str, report: Mapping[str, Any], gains: Sequence[Mapping[str, float]]) -> dict[str, Any]:
    """One arm's row: the held-out gain over seeds (mean and spread) and the lift report's test lift beside."""
    summary = report.get("arms", {}).get("evolved", {})
    pooled = summary.get("pooled", {})
    runs = report.get("runs", [])
    values = [g["gain"] for g in gains]
    return {
        "arm": arm, "what": ARMS[arm][0], "override": ARMS[arm][1], "seeds": len(runs),
        "heldout_start": statistics.fmean(g["start"] for g in gains) if gains else None,
        "heldout_late": statistics.fmean(g["late"] for g in gains) if gains else None,
        "heldout_gain": statistics.fmean(values) if values else None,
        "gain_stdev": statistics.stdev(values) if len(values) > 1 else 0.0,
        "baseline_test": report.get("baseline_test", 0.0),
        "evolved_test": sum(r["evolved_test"] for r in runs) / len(runs) if runs else 0.0,
        "mean_lift": summary.get("mean_lift", 0.0), "ci_low": pooled.get("ci_low"), "ci_high": pooled.get("ci_high"),
        "p_value": pooled.get("p_value"),
    }


def with_deltas(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with its held-out gain minus the full arm's (None without both)."""
    full = next((r["heldout_gain"] for r in rows if r["arm"] == FULL), None)
    return [{**r, "vs_full": None if full is None or r["heldout_gain"] is None else r["heldout_gain"] - full}
            for r in rows]


def _num(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if sign else f"{value:.3f}"


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The ablation table in Markdown: held-out gain first (the paper's measure), test lift beside."""
    lines = ["| arm | what | seeds | held-out start | late window | held-out gain | vs full | test lift | 95% CI |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ci = f"[{_num(r['ci_low'], True)}, {_num(r['ci_high'], True)}]" if r["ci_low"] is not None else "-"
        gain = _num(r["heldout_gain"], True) + (f" ± {r['gain_stdev']:.3f}" if r["gain_stdev"] else "")
        lines.append(f"| {r['arm']} | {r['what']} | {r['seeds']} | {_num(r['heldout_start'])} | "
                     f"{_num(r['heldout_late'])} | {gain} | {_num(r.get('vs_full'), True)} | "
                     f"{_num(r['mean_lift'], True)} | {ci} |")
    return "\n".join(lines) + "\n"
