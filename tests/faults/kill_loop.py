"""Kill a small evolution with SIGKILL at random instants, rerun it each time, and report what every rerun left.

Run as ``python kill_loop.py ROOT KILLS SEED``; prints one JSON object (``python kill_loop.py run WS`` runs the
evolution once in this process, honouring ``CRASH_AT``, and prints its summary). The package is imported once and every
run is a forked child in its own process group, so a kill also takes down the git it was running (the case that
leaves ``.git/*.lock`` behind) and a run costs no interpreter start. Single-threaded, so forking is safe.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernel"))

from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace  # noqa: E402

import agent_evolve as ae  # noqa: E402
from agent_evolve.contract import validate_workspace  # noqa: E402
from agent_evolve.contract.jsonl import read_jsonl  # noqa: E402

PLAN = [("prompt", "k0"), ("memory", "note"), ("prompt", "k0 k1")]
CYCLES = 3


def evolve(workspace: Path) -> None:
    """One run of the small evolution (fresh or resumed)."""
    config = ae.EvolveConfig(batch_size=3, holdout_ratio=0.25, concurrency=1, seed=1)
    benchmark = KeywordBenchmark(n=12)
    ae.Evolver(KeywordAgent(workspace), benchmark, config, PlanEngine(PLAN)).run(CYCLES)


def start(workspace: Path) -> int:
    """Fork a child running :func:`evolve` in its own process group; returns its pid."""
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        code = 0
        try:
            evolve(workspace)
        except BaseException:  # noqa: BLE001 - the parent reads the exit status
            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child already did it, or already ended
    return pid


def wait(pid: int) -> int:
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def summary(workspace: Path) -> dict:
    """What must equal an uncrashed run's: cycles, outcomes, observations, engine steps, tags, files."""
    history = ae.EvolutionHistory(workspace)
    records = history.cycle_records()
    journal = read_jsonl(workspace / "evolution" / "journal.jsonl")
    steps = workspace / "evolution" / "engine" / "state" / "steps.log"
    memory = workspace / "memory" / "episodic.jsonl"
    return {
        "cycles": [r["cycle"] for r in records],
        "outcomes": [r["metadata"]["outcome"] for r in records],
        "observed": [o.task.id for o in history.get_observations()],
        "steps": steps.read_text() if steps.exists() else "",
        "recorded": [e["cycle"] for e in journal if e["phase"] == "recorded"],
        "tags": ae.VersionControl(workspace).list_tags(),
        "prompt": (workspace / "prompts" / "system.md").read_text(),
        "memory": [e.get("content") for e in read_jsonl(memory)],
        "files": {str(p.relative_to(workspace)): p.read_text() for layer in ("prompts", "skills", "memory")
                  for p in sorted((workspace / layer).rglob("*")) if p.is_file()},
    }


def main(root: Path, kills: int, seed: int) -> dict:
    rng = random.Random(seed)
    reference_ws = make_workspace(root / "reference")
    began = time.monotonic()
    assert wait(start(reference_ws)) == 0, "the uncrashed run failed"
    duration = time.monotonic() - began
    reference = summary(reference_ws)
    trials = []
    for number in range(kills):
        workspace = root / f"trial-{number}"
        for attempt in range(5):  # an instant past the end of a (faster) run kills nothing: draw again, earlier
            shutil.rmtree(workspace, ignore_errors=True)
            make_workspace(workspace)
            at = rng.uniform(0.0, 0.8 * duration * 0.5 ** attempt)
            pid = start(workspace)
            time.sleep(at)
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            killed = wait(pid) == -signal.SIGKILL
            if killed:
                break
        locks = [str(p.relative_to(workspace)) for p in (workspace / ".git").rglob("*.lock")]
        rerun = wait(start(workspace))
        trials.append({
            "at": round(at, 3), "killed": killed, "locks_left": locks, "rerun": rerun,
            "same": rerun == 0 and summary(workspace) == reference,
            "problems": validate_workspace(workspace) if rerun == 0 else ["rerun failed"],
        })
        if rerun == 0 and trials[-1]["same"] and not trials[-1]["problems"]:
            shutil.rmtree(workspace)
    return {"duration": duration, "reference": reference, "trials": trials}


if __name__ == "__main__":
    if sys.argv[1] == "run":
        target = Path(sys.argv[2])
        if not target.exists():
            make_workspace(target)
        evolve(target)
        print(json.dumps(summary(target)))
    else:
        print(json.dumps(main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))))
