"""lift.md's account of how far its numbers can be trusted: the registered plan, who scored these test tasks
before, the draws, the lift against each control (the headline) and the seeds' convergence."""

from __future__ import annotations

from typing import Any


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
        lines.append(f"- plan {entry['plan']} (first {entry['first']}, {entry['tasks']} of these tasks): {scores}")
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
        lines.append(f"Compute-matched control, tokens per test task by draw (control vs evolved arm): {tokens}.")
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
