"""The lift report on disk: lift.json (every number, the per-task paired table), lift.md (with how far the numbers
can be trusted: registration, earlier plans, draws, controls, convergence) and lift.png (matplotlib, lazily)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.run_metrics import describe_edit_rates
from agent_evolve.lift.plan import ARM_ROWS

RUN_HEADER = ("| seed | baseline test | arm test | lift | 95% CI | p (sign test) | wins / losses / ties "
              "| baseline holdout | evolved holdout | accepted | rejected | cycles | solves | seconds |")


def test_cells(row: dict[str, Any]) -> str:
    """A row's CI, sign-test p and wins / losses / ties cells, as every lift table shows them."""
    return (f"| [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}] | {row['p_value']:.3g} "
            f"| {row['wins']} / {row['losses']} / {row['ties']} ")


def cost_cells(cost: dict[str, Any], lift_per_100_solves: float) -> str:
    """The cost cells of an arm (solves of each kind, engine calls, tokens, seconds) and its lift per 100 solves."""
    return (f"| {cost['solves']:.0f} | {cost['evolution_solves']:.0f} | {cost['test_solves']:.0f} "
            f"| {cost['engine_calls']:.0f} | {cost['tokens']:.0f} | {cost['seconds']:.0f} "
            f"| {lift_per_100_solves:+.4f} |")


def _run_line(row: dict[str, Any]) -> str:
    cost = row["cost"]
    return (f"| {row['seed']} | {row['baseline_test']:.3f} | {row['evolved_test']:.3f} | {row['lift']:+.3f} "
            f"{test_cells(row)}| {row['baseline_holdout']:.3f} "
            f"| {row['evolved_holdout']:.3f} | {row['accepted']} | {row['rejected']} | {row['cycles']} "
            f"| {cost.get('solves', 0):.0f} | {cost.get('seconds', 0):.0f} |")


def edit_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The engine's edit rates per seed and in all, where its steps reported them (model-writing engines)."""
    reported = [r for r in rows if r.get("edits")]
    if not reported:
        return []
    total = {key: sum(int(r["edits"].get(key, 0)) for r in reported) for key in ("proposed", "valid", "shell",
                                                                                     "gated", "accepted")}
    seeds = "; ".join(f"seed {r['seed']}: {describe_edit_rates(r['edits'])}" for r in reported)
    return [f"Engine edits, all seeds: {describe_edit_rates(total)} ({seeds}).", ""]


def _arm_lines(title: str, rows: list[dict[str, Any]], arm: dict[str, Any]) -> list[str]:
    pooled, spread = arm["pooled"], arm["spread"]
    return [
        f"## {title}", "", RUN_HEADER, "|" + "---:|" * 14, *(_run_line(r) for r in rows), "",
        f"Mean lift over {len(rows)} seed(s): **{arm['mean_lift']:+.3f}**; over its {pooled['n']} test tasks, each "
        f"averaged over the seeds: 95% CI [{pooled['ci_low']:+.3f}, {pooled['ci_high']:+.3f}], sign-test p = "
        f"{pooled['p_value']:.3g} ({pooled['wins']} tasks up, {pooled['losses']} down, {pooled['ties']} level). "
        f"Seed-to-seed spread: stdev {spread['stdev']:.3f}, min {spread['min']:+.3f}, max {spread['max']:+.3f}.", "",
        *edit_lines(rows),
    ]


def shortfall_lines(report: dict[str, Any]) -> list[str]:
    """A warning for each arm whose lift pairs fewer test tasks than the plan scores: tasks whose every solve so
    far failed outside the answer (model server, timeout, grader), solved again when the run is resumed."""
    planned = int(report["registration"].get("planned_tasks") or report["test_tasks"])
    paired = {"baseline": report["test_tasks"], **{name: arm["pooled"]["n"] for name, arm in report["arms"].items()}}
    short = {name: n for name, n in paired.items() if n < planned}
    if not short:
        return []
    arms = ", ".join(f"{name} {n}" for name, n in short.items())
    return [f"**Incomplete**: some of the {planned} test tasks have no score yet (their solves failed outside the "
            f"answer; see the `failed` rows of `scores/`), so these scored or paired fewer: {arms}. Run the same "
            "command again to solve them.", ""]


def markdown_table(report: dict[str, Any]) -> str:
    """lift.md: a table per arm, the pooled lift with its CI and p-value, the control check and the cost."""
    plan = report["plan"]
    seeds = ", ".join(str(s) for s in plan["seeds"])
    lines = [
        f"# Lift on {report['benchmark']} ({report['test_tasks']} test tasks), agent {report['agent']}, "
        f"engine {report['engine']}", "",
        f"Seeds {seeds}, {plan['cycles']} cycle(s) each. Baseline test score {report['baseline_test']:.3f}; every "
        "arm is scored on the same test tasks and compared with the baseline task by task.", "",
        *evidence_lines(report),
        *shortfall_lines(report),
    ]
    arms = report["arms"]
    if "evolved" in arms:
        lines += _arm_lines(f"Evolved arm (engine {report['engine']})", report["runs"], arms["evolved"])
    if "control" in arms:
        lines += _arm_lines("Control arm (same loop, an engine that never edits)", report["control"], arms["control"])
        verdict = "yes" if report["control_exact"] else "NO"
        lines += [f"Control arm ends exactly at its baseline (byte-identical workspace, same per-task scores in "
                  f"every draw): **{verdict}**.", ""]
    if "matched" in arms:
        lines += _arm_lines("Compute-matched control (the baseline workspace voting over sampled replies at the "
                            "evolved arm's tokens per test task)", report["matched"], arms["matched"])
    lines += ["## Cost per arm (all seeds)", "",
              "| arm | solves | evolution solves | test solves | engine calls | tokens | seconds | lift per 100 solves |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {name} {cost_cells(arm['cost'], arm['lift_per_100_solves'])}" for name, arm in arms.items()]
    base = report.get("baseline_cost") or {}
    if base:
        lines.append(f"| baseline (test split, once) | {base['solves']:.0f} | 0 | {base['solves']:.0f} | 0 "
                     f"| {base['tokens']:.0f} | {base['seconds']:.0f} | |")
    lines += ["", *token_lift_lines(report)]
    return "\n".join(lines) + "\n"


def lift_per_thousand_tokens(lift: float, tokens: float) -> float | None:
    """`lift` per 1,000 `tokens` (None when no token was counted: a model that reports no usage)."""
    return 1000 * lift / tokens if tokens > 0 else None


def token_lift_lines(report: dict[str, Any]) -> list[str]:
    """lift.md's section: each arm's mean lift, tokens per seed it has scored and lift per 1,000 tokens, so that a
    technique that buys lift with more calls per task shows its price."""
    lines = ["## Lift per 1,000 tokens", "", "| arm | mean lift | tokens per seed | lift per 1,000 tokens |",
             "|---|---:|---:|---:|"]
    for name, arm in report["arms"].items():
        tokens = float(arm["cost"].get("tokens", 0)) / max(1, len(report[ARM_ROWS[name]]))
        value = lift_per_thousand_tokens(arm["mean_lift"], tokens)
        shown = "-" if value is None else f"{value:+.2e}"
        lines.append(f"| {name} | {arm['mean_lift']:+.3f} | {tokens:,.0f} | {shown} |")
    return [*lines, ""]


def written_report(out_dir: Path, name: str, report: dict[str, Any], markdown: str,
                   plot: Callable[[dict[str, Any], Path], Path | None]) -> list[Path]:
    """Write `<name>.json`, `<name>.md` and, when matplotlib is installed (the `plot` extra), `<name>.png`."""
    written = [out_dir / f"{name}.json", out_dir / f"{name}.md"]
    atomic_write(written[0], json.dumps(report, indent=1))
    atomic_write(written[1], markdown)
    drawn = plot(report, out_dir / f"{name}.png")
    return written + ([drawn] if drawn else [])


def write_report(report: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write lift.json, lift.md and, when matplotlib is installed (the `plot` extra), lift.png."""
    return written_report(out_dir, "lift", report, markdown_table(report), plot_lift)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def registration_lines(registration: dict[str, Any]) -> list[str]:
    """The plan id and what it was registered with, and how many plans scored these test tasks."""
    if not registration.get("registered"):
        lines = [f"**Unregistered** ({registration.get('plan_id', '')}): this folder predates registered plans; its "
                 "plan was not fixed before its test tasks were scored, it has one test draw, and its no-evolution "
                 "control's test scores were read from the baseline's file, not solved (so it could not fail).", ""]
    else:
        code = registration.get("code", {})
        dirty = {True: "dirty tree", False: "clean tree", None: "no git"}[code.get("dirty")]
        lines = [f"Plan **{registration['plan_id']}**, registered in plan.json at {registration.get('registered_at')} "
                 f"before any test scoring (code {code.get('source')}, commit {code.get('commit')}, {dirty}); test "
                 f"tasks {registration.get('test_ids_hash')}, {plural(int(registration.get('draws', 1)), 'draw')}.",
                 ""]
    if "plans" not in registration:
        return lines
    lines.append(f"These test tasks were scored under {plural(registration['plans'], 'plan')} (this one included)"
                 + (":" if registration["earlier"] else "."))
    for entry in registration["earlier"]:
        scores = ", ".join(f"{who} {score:.3f}" for who, score in sorted(entry["scores"].items()))
        lines.append(f"- plan {entry['plan']} (first {entry['first']}, {entry['tasks']} of these tasks): "
                     f"{scores or 'claimed; stopped before completing a scoring'}")
    return [*lines, ""]


def draw_lines(evidence: dict[str, Any]) -> list[str]:
    """The evolved arm's lift in every draw pairing, and the baseline's churn between its draws."""
    pairings = evidence["draw_pairings"]
    if not pairings:
        return []
    lines = ["## Draws", "", "| baseline draw | arm draw | lift (seeds averaged) | tasks |", "|---:|---:|---:|---:|",
             *(f"| {p['baseline_draw']} | {p['arm_draw']} | {p['lift']:+.3f} | {p['tasks']} |" for p in pairings), ""]
    for c in evidence["baseline_churn"]:
        lines.append(f"Baseline churn between draws {c['draws'][0]} and {c['draws'][1]}: {c['changed']} of "
                     f"{c['tasks']} tasks changed score; mean moved {c['difference']:+.3f}.")
    return [*lines, ""]


def control_lines(evidence: dict[str, Any]) -> list[str]:
    """The lift against each control with its CI, the headline (the smaller), and the matched tokens."""
    names = {"control": "the no-evolution control", "matched": "the compute-matched control"}
    lines = []
    for name, s in evidence["against_controls"].items():
        lines.append(f"Lift against {names.get(name, name)}: {s['mean_difference']:+.3f}, 95% CI "
                     f"[{s['ci_low']:+.3f}, {s['ci_high']:+.3f}], sign-test p = {s['p_value']:.3g} "
                     f"({s['wins']} up, {s['losses']} down, {s['ties']} level over {s['n']} tasks).")
    head = evidence.get("headline")
    if head:
        lines += ["", f"**Headline lift (the smaller against the controls): {head['mean_difference']:+.3f}, 95% CI "
                      f"[{head['ci_low']:+.3f}, {head['ci_high']:+.3f}]**, against {names.get(head['against'])}."]
    for pair in evidence.get("matched_tokens", []):
        tokens = ", ".join(f"{m:.0f} vs {e:.0f}" for m, e in zip(pair["matched"], pair["evolved"]))
        of_seed = f" of seed {pair['seed']}" if "seed" in pair else ""
        lines.append(f"Compute-matched control{of_seed}, tokens per test task by draw (control vs evolved arm): "
                     f"{tokens}.")
    return [*lines, ""] if lines else []


def evidence_lines(report: dict[str, Any]) -> list[str]:
    """Every part of the account, in reading order."""
    evidence = report.get("evidence") or {}
    lines = registration_lines(report.get("registration") or {})
    if evidence:
        lines += control_lines(evidence) if (report.get("registration") or {}).get("registered") else []
        sentence = evidence["convergence"]["sentence"]
        lines += [sentence, ""] if sentence else []
        lines += draw_lines(evidence)
    return lines


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, or None when the `plot` extra is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def saved(plt: Any, fig: Any, path: Path) -> Path:
    """Lay out `fig`, write it to `path` and close it."""
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_lift(report: dict[str, Any], path: Path) -> Path | None:
    """Draw the plot; None when matplotlib (the `plot` extra) is not installed."""
    plt = pyplot()
    if plt is None:
        return None
    from matplotlib.ticker import MaxNLocator

    arms = [("evolved", report["runs"]), ("control", report["control"])]
    fig, (bars, curves) = plt.subplots(1, 2, figsize=(10, 3.8))
    width = 0.38
    for offset, (name, rows) in zip((-width / 2, width / 2), arms):
        errors = [[r["lift"] - r["ci_low"] for r in rows], [r["ci_high"] - r["lift"] for r in rows]]
        if rows:
            bars.bar([i + offset for i in range(len(rows))], [r["lift"] for r in rows], width=width, yerr=errors,
                     capsize=4, label=name)
    bars.set_xticks(range(len(report["runs"])), [f"seed {r['seed']}" for r in report["runs"]])
    bars.axhline(0, color="black", linewidth=0.8)
    bars.set(ylabel=f"test lift ({report['test_tasks']} tasks, 95% CI)",
             title=f"{report['benchmark']}: lift per seed ({report['engine']})")
    bars.legend()
    for row in report["runs"]:
        curve = [row["baseline_holdout"], *row["score_curve"]]
        curves.plot(range(len(curve)), curve, marker="o", label=f"seed {row['seed']}")
    curves.xaxis.set_major_locator(MaxNLocator(integer=True))
    curves.set(xlabel="cycle", ylabel="accepted holdout score", title="score curve per cycle")
    curves.legend()
    return saved(plt, fig, path)
