"""What experience memory would cost the main job, and how often a demos-like edit passes its 16-task gate.

Usage: PYTHONPATH=src python speed/experience_cost.py [--draws N] [--k 2] [--form full] [--max-chars 1500]

Replays the main job's one cycle on the embedded model's own GSM8K rows (`experiments/probes/results`, 90 train
tasks solved with the seed prompt): a batch of 10 tasks whose graded-correct solutions become experience
memory (`algorithms.experience`, the demos engine's default 700-character limit), then a 16-task gate on
other tasks, each shown its nearest examples (`prompts/experience.yaml`, the defaults unless given). Only the
text prompt shows them (with the cross-check, its text answer), so this is the extra once per gate task. Prints the extra prompt tokens per gate solve (counted by the model's own tokenizer when
its GGUF file is there, else 4 characters a token) and the seconds they add at the measured prompt-reading
speed of 2 cores (38.4 tokens/s, docs/embedded-model.md). The probes have no rows with retrieved examples,
so whether the gate accepts is bounded with the nearest arms they do have: fixed demonstrations in the
system prompt (`sys_demos`, 3 examples) and as chat turns (`many_demos`, 8), replayed like `gate_power.py`.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gate_power import PROBES, accept_rate, scores  # noqa: E402

from agent_evolve.agents.experience import Experience  # noqa: E402
from agent_evolve.algorithms.common.demos import Demo  # noqa: E402
from agent_evolve.algorithms.experience import new_examples  # noqa: E402
from agent_evolve.benchmarks.adapters.gsm8k import load_problems  # noqa: E402
from agent_evolve.contract.experience import ExperienceSettings, parse_experience_settings  # noqa: E402

BATCH, HOLDOUT = 10, 16
DEMO_CHARS = 700  # the demos engine's demo_chars: longer solutions never enter the pool
PROMPT_TOKENS_PER_S = 38.4  # prompt reading on 2 quiet cores (docs/embedded-model.md)
MODEL = Path.home() / ".cache/agent-evolve/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def token_counter(model: Path) -> tuple[Callable[[str], int], str]:
    """The model's tokenizer (its vocabulary only) when available, else a 4-characters-a-token estimate."""
    try:
        from llama_cpp import Llama

        vocab = Llama(model_path=str(model), vocab_only=True, verbose=False)
        return (lambda text: len(vocab.tokenize(text.encode("utf-8"), add_bos=False))), "the model's tokenizer"
    except (ImportError, ValueError, OSError):
        return (lambda text: max(1, len(text) // 4)), "4 characters a token"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--k", type=int, default=ExperienceSettings.k)
    parser.add_argument("--form", default=ExperienceSettings.form)
    parser.add_argument("--max-chars", type=int, default=ExperienceSettings.max_chars)
    args = parser.parse_args()
    questions = {p.task_id: p.question for p in load_problems()}
    rows = {r["task_id"]: r for r in map(json.loads, (PROBES / "baseline.jsonl").read_text().splitlines())}
    count, how = token_counter(args.model)
    rng = random.Random(args.seed)
    settings = parse_experience_settings({"k": args.k, "form": args.form, "max_chars": args.max_chars}, "--k/--form")
    ids = sorted(rows)
    extra, examples, shown_counts = [], [], []
    for _ in range(args.draws):
        drawn = rng.sample(ids, BATCH + HOLDOUT)
        pool = [Demo(i, questions[i], rows[i]["output"].strip()) for i in drawn[:BATCH]
                if rows[i]["score"] == 1.0 and len(rows[i]["output"].strip()) <= DEMO_CHARS]
        memory = Experience(new_examples([], pool), settings)
        examples.append(len(pool))
        for task_id in drawn[BATCH:]:
            section, shown = memory.demonstrations(questions[task_id])
            extra.append(count(section) if section else 0)
            shown_counts.append(len(shown))
    per_solve = statistics.mean(extra)
    print(f"{args.draws} draws of a {BATCH}-task batch and a {HOLDOUT}-task gate; {settings}; tokens by {how}")
    print(f"verified examples per batch: mean {statistics.mean(examples):.1f}, none in "
          f"{sum(e == 0 for e in examples) / len(examples):.0%} of draws")
    print(f"examples shown per gate solve: mean {statistics.mean(shown_counts):.2f}")
    print(f"extra prompt tokens per gate solve: mean {per_solve:.0f}, 90th percentile "
          f"{sorted(extra)[int(0.9 * len(extra))]}")
    print(f"extra time over the {HOLDOUT}-task gate: {HOLDOUT * per_solve / PROMPT_TOKENS_PER_S:.0f} s "
          f"at {PROMPT_TOKENS_PER_S} prompt tokens/s")
    base = scores("baseline")
    print("| arm (proxy for retrieved examples) | tasks | lift | accepts with a 16-task gate |")
    print("|---|---:|---:|---:|")
    for arm in ("sys_demos", "many_demos", "settled4"):
        rows_of = scores(arm)
        paired = {i: base[i] for i in rows_of}
        lift = (sum(rows_of.values()) - sum(paired.values())) / len(rows_of)
        rate = accept_rate(paired, {arm: rows_of}, 0, min(HOLDOUT, len(rows_of)), args.draws, rng)
        print(f"| {arm} | {len(rows_of)} | {lift:+.3f} | {rate:.2f} |")


if __name__ == "__main__":
    main()
