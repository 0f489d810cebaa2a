"""How many gate solves curtailment would have saved on the committed acceptance runs, with the same decisions.

Usage: python speed/curtailment_savings.py [--orders 200] [experiments/lift-demos-gsm8k ...]

Reads every gate record (`workspace.sealed/gate/cycle_N.json`: the per-task candidate and incumbent scores) in
each evolved arm's checkpoint, and replays the gate's candidate phase through the loop's own stop rule
(`GateCurtailer.candidate_rule`) under the experiment's strategy, in the order a curtailed run would have scored
the holdout (`scoring_order` with the arm's seed). A gate stops at the first task after which its rejection is
settled; an accepted candidate is scored in full. "In flight" adds the tasks still running when it stops (the
run's concurrency minus one), which a real gate finishes. The last column averages the saving over `--orders`
random orders, so the run's own order is not a lucky draw; the next column is what stopping accepted gates at
their settled acceptance would add (the loop does not: an accepted table is the next gate's incumbent); the
last, the optional futility test (`gate_sprt_beta` 0.1, not exact) in the run's order, with the accepted
candidates it would have rejected. Every replayed decision is checked against the recorded one.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.acceptance import strategy_from_config
from agent_evolve.engine.curtailment import GateCurtailer, ScoreRange, scoring_order, settle
from agent_evolve.engine.gate import decide

SPRT_BETA = 0.1
"""The futility test's error rate the last column replays (`gate_sprt_beta`, off by default)."""
EXPERIMENTS = ("experiments/lift-demos-gsm8k", "experiments/lift-demos-gsm8k-h80", "experiments/lift-demos-humaneval")


@dataclass
class Gate:
    """One recorded gate: its arm's seed, cycle, per-task scores of both sides and the recorded action."""

    seed: int
    cycle: int
    candidate: dict[str, list[float]]
    incumbent: dict[str, list[float]]
    action: str
    delta: float
    remeasured: bool


def gates_of(experiment: Path) -> list[Gate]:
    """Every gate record in the experiment's evolved checkpoints (seed order, then cycle order)."""
    found: list[Gate] = []
    for checkpoint in sorted(experiment.glob("evolved/seed-*/checkpoint.tar.gz")):
        with tarfile.open(checkpoint) as tar:
            run = json.load(tar.extractfile("workspace/evolution/run.json"))  # type: ignore[arg-type]
            records = sorted((m for m in tar.getmembers() if m.name.startswith("workspace.sealed/gate/cycle_")),
                             key=lambda m: int(m.name.rsplit("_", 1)[1].split(".")[0]))
            for member in records:
                record = json.load(tar.extractfile(member))  # type: ignore[arg-type]
                if "decision" not in record or "same_as" in record:
                    continue  # a failed gate decided nothing; a repeated candidate's rejection scored nothing
                decision = record["decision"]
                rows = decision["per_task"]
                found.append(Gate(int(run["seed"]), int(member.name.rsplit("_", 1)[1].split(".")[0]),
                                  {r["task_id"]: [r["candidate"]] for r in rows},
                                  {r["task_id"]: [r["incumbent"]] for r in rows},
                                  decision["action"], float(decision["delta"]), bool(record["remeasured_incumbent"])))
    return found


def scored_until_settled(gate: Gate, config: EvolveConfig, order: list[str], sprt_beta: float | None = None) -> int:
    """Candidate tasks a curtailed gate scores in `order` before its rejection is settled (all when accepted);
    with `sprt_beta`, also before the futility test stops it."""
    curtailer = GateCurtailer(strategy_from_config(config), ScoreRange(), None, order, 1, config.seed, sprt_beta)
    rule = curtailer.candidate_rule(gate.incumbent)
    for k in range(1, len(order) + 1):
        if rule({t: gate.candidate[t] for t in order[:k]}, order[k:]):
            return k
    return len(order)


def scored_until_accepted(gate: Gate, config: EvolveConfig, order: list[str]) -> int:
    """For an accepted gate: candidate tasks scored before the acceptance is settled (not done by the loop, whose
    next gate reads the accepted candidate's whole table; shown as what that costs)."""
    strategy = strategy_from_config(config)
    for k in range(1, len(order) + 1):
        if settle(strategy, {t: gate.candidate[t] for t in order[:k]}, gate.incumbent,
                  unscored_candidate=order[k:]).action == "accept":
            return k
    return len(order)


def replay(experiment: Path, orders: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The experiment's totals and one row per gate."""
    settings = yaml.safe_load((experiment / "config.yaml").read_text(encoding="utf-8"))
    base = EvolveConfig(**settings)
    in_flight = base.concurrency - 1
    rows: list[dict[str, Any]] = []
    for gate in gates_of(experiment):
        config = EvolveConfig(**{**settings, "seed": gate.seed})
        replayed = decide(gate.candidate, gate.incumbent, strategy_from_config(config)).action
        if replayed != gate.action:
            raise SystemExit(f"{experiment} seed {gate.seed} cycle {gate.cycle}: the replayed decision {replayed} "
                             f"is not the recorded {gate.action}")
        tasks = sorted(gate.candidate)
        n = len(tasks)
        order = scoring_order(tasks, gate.seed)
        scored = scored_until_settled(gate, config, order)
        accept_settled = scored_until_accepted(gate, config, order) if gate.action == "accept" else scored
        sprt = scored_until_settled(gate, config, order, SPRT_BETA)
        draws = random.Random(f"{experiment.name}:{gate.seed}:{gate.cycle}")
        mean_scored = sum(scored_until_settled(gate, config, draws.sample(tasks, n)) for _ in range(orders)) / orders
        rows.append({"seed": gate.seed, "cycle": gate.cycle, "action": gate.action, "delta": gate.delta, "tasks": n,
                     "solves": n * (2 if gate.remeasured else 1), "scored": scored,
                     "scored_in_flight": min(n, scored + in_flight) if scored < n else n, "mean_scored": mean_scored,
                     "accept_settled": accept_settled, "sprt": sprt,
                     "sprt_flips": gate.action == "accept" and sprt < n})
    solves = sum(r["solves"] for r in rows)
    totals = {
        "experiment": experiment.name, "gates": len(rows), "accepted": sum(r["action"] == "accept" for r in rows),
        "solves": solves, "concurrency": base.concurrency,
        "saved": sum(r["tasks"] - r["scored"] for r in rows),
        "saved_in_flight": sum(r["tasks"] - r["scored_in_flight"] for r in rows),
        "mean_saved": sum(r["tasks"] - r["mean_scored"] for r in rows),
        "saved_with_accepts": sum(r["tasks"] - r["accept_settled"] for r in rows),
        "saved_sprt": sum(r["tasks"] - r["sprt"] for r in rows), "sprt_flips": sum(r["sprt_flips"] for r in rows),
    }
    return totals, rows


def share(part: float, whole: float) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiments", nargs="*", default=list(EXPERIMENTS))
    parser.add_argument("--orders", type=int, default=200, help="random orders averaged in the last column")
    args = parser.parse_args(argv)
    results = [replay(Path(e), args.orders) for e in args.experiments]
    print("| experiment | gates (accepted) | gate solves | saved, run's order | saved, with tasks in flight "
          f"| saved, mean of {args.orders} orders | saved if accepts stopped too "
          f"| with SPRT beta {SPRT_BETA} (accepts lost) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    all_solves = all_saved = all_flight = all_mean = all_accepts = all_sprt = all_flips = 0.0
    for t, _ in results:
        print(f"| {t['experiment']} | {t['gates']} ({t['accepted']}) | {t['solves']} "
              f"| {t['saved']} ({share(t['saved'], t['solves'])}) "
              f"| {t['saved_in_flight']} ({share(t['saved_in_flight'], t['solves'])}, concurrency {t['concurrency']}) "
              f"| {t['mean_saved']:.1f} ({share(t['mean_saved'], t['solves'])}) "
              f"| {t['saved_with_accepts']} ({share(t['saved_with_accepts'], t['solves'])}) "
              f"| {t['saved_sprt']} ({share(t['saved_sprt'], t['solves'])}; {t['sprt_flips']}) |")
        all_solves += t["solves"]
        all_saved += t["saved"]
        all_flight += t["saved_in_flight"]
        all_mean += t["mean_saved"]
        all_accepts += t["saved_with_accepts"]
        all_sprt += t["saved_sprt"]
        all_flips += t["sprt_flips"]
    print(f"| all | {sum(t['gates'] for t, _ in results)} ({sum(t['accepted'] for t, _ in results)}) "
          f"| {all_solves:.0f} | {all_saved:.0f} ({share(all_saved, all_solves)}) "
          f"| {all_flight:.0f} ({share(all_flight, all_solves)}) | {all_mean:.1f} ({share(all_mean, all_solves)}) "
          f"| {all_accepts:.0f} ({share(all_accepts, all_solves)}) "
          f"| {all_sprt:.0f} ({share(all_sprt, all_solves)}; {all_flips:.0f}) |")
    print()
    print("| experiment | seed | cycle | decision | delta | candidate tasks scored, run's order | mean over orders "
          "| accept settled after |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for t, rows in results:
        for r in rows:
            print(f"| {t['experiment']} | {r['seed']} | {r['cycle']} | {r['action']} | {r['delta']:+.4f} "
                  f"| {r['scored']} of {r['tasks']} | {r['mean_scored']:.1f} "
                  f"| {r['accept_settled'] if r['action'] == 'accept' else ''} |")


if __name__ == "__main__":
    sys.exit(main())
