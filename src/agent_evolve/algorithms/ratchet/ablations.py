"""Ratchet's ablation arms A1-A8: each a settings override of the full recipe (the `full` arm), and their table.

The runner (`agent-evolve ablate`, `agent_evolve.cli.ablate`) evolves each arm over seeds with the lift
protocol and writes one table from the arms' lift reports; the table is built here, from plain dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_evolve.algorithms.ratchet.settings import RatchetSettings
from agent_evolve.errors import ConfigError

FULL = "full"
ARMS: dict[str, tuple[str, dict[str, Any]]] = {
    FULL: ("the full recipe", {}),
    "A1": ("no injection (the no-skill control)", {"routing": "none"}),
    "A2": ("retrieval-only routing (lexical top-1, no model pick)", {"routing": "retrieval"}),
    "A3": ("no meta-skill", {"use_meta": False}),
    "A4": ("harsh retirement (20 trials, threshold 0)", {"retire_min_trials": 20, "retire_threshold": 0.0}),
    "A5": ("no canonicalisation", {"canonicalise": False}),
    "A6": ("no cover guard", {"cover_guard": False}),
    "A7": ("bank cap 100", {"bank_cap": 100}),
    "A8": ("meta-skill refresh every 10 rounds", {"meta_every": 10}),
}


def parse_arms(text: str) -> list[str]:
    """`A1,A3` -> ["A1", "A3"] (case-insensitive, order kept, duplicates dropped); unknown arms are an error."""
    arms = list(dict.fromkeys(a.strip().upper() if a.strip().lower() != FULL else FULL
                              for a in text.split(",") if a.strip()))
    unknown = [a for a in arms if a not in ARMS]
    if unknown or not arms:
        raise ConfigError(f"--arms: unknown arm(s) {unknown or [text]}; known: {', '.join(ARMS)}")
    return arms


def arm_params(arm: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The run's engine_params with the arm's override on top, validated as Ratchet settings."""
    merged = {**params, **ARMS[arm][1]}
    RatchetSettings.from_params(merged, f"ablation arm {arm}")
    return merged


def table_row(arm: str, report: Mapping[str, Any]) -> dict[str, Any]:
    """One arm's row from its lift report: mean test lift over seeds, pooled CI and p-value, spread."""
    summary = report.get("arms", {}).get("evolved", {})
    pooled, spread = summary.get("pooled", {}), summary.get("spread", {})
    runs = report.get("runs", [])
    return {
        "arm": arm, "what": ARMS[arm][0], "override": ARMS[arm][1], "seeds": len(runs),
        "baseline_test": report.get("baseline_test", 0.0),
        "evolved_test": sum(r["evolved_test"] for r in runs) / len(runs) if runs else 0.0,
        "mean_lift": summary.get("mean_lift", 0.0), "ci_low": pooled.get("ci_low"), "ci_high": pooled.get("ci_high"),
        "p_value": pooled.get("p_value"), "stdev": spread.get("stdev", 0.0),
    }


def with_deltas(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with its lift minus the full arm's (None without a full arm)."""
    full = next((r["mean_lift"] for r in rows if r["arm"] == FULL), None)
    return [{**r, "vs_full": None if full is None else r["mean_lift"] - full} for r in rows]


def _num(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if sign else f"{value:.3f}"


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The ablation table in Markdown."""
    lines = ["| arm | what | seeds | baseline test | evolved test | lift | 95% CI | p | vs full |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ci = f"[{_num(r['ci_low'], True)}, {_num(r['ci_high'], True)}]" if r["ci_low"] is not None else "-"
        lines.append(f"| {r['arm']} | {r['what']} | {r['seeds']} | {_num(r['baseline_test'])} | "
                     f"{_num(r['evolved_test'])} | {_num(r['mean_lift'], True)} | {ci} | {_num(r['p_value'])} | "
                     f"{_num(r.get('vs_full'), True)} |")
    return "\n".join(lines) + "\n"
