"""Do stop rules and prompt-lookup drafts keep the embedded model's greedy replies, and what do they save?

On the fixed prompts of ``stop_and_draft_ids.json`` (50 GSM8K, 30 HumanEval, each with its seed workspace's system
prompt and max_tokens) every prompt is answered four ways, one request at a time, greedy: plain; with the answer
kind's stop rule (``llm.stops``: "number" for GSM8K, "code" for HumanEval); with prompt-lookup drafts; plain again.
The prompt is read once beforehand, so all four start from the same cached prompt and only the rule or the draft
differs. Checked per prompt: the drafted reply equals the plain one; the cut reply is a prefix of the plain one with
the same graded result; the second plain reply equals the first (the control: how often greedy replies differ with
nothing changed). Reported: tokens generated per solve with and without the rule, drafted tokens accepted, and
seconds per reply (timings only mean something on quiet cores: the load average is printed).

    PYTHONPATH=src python -u speed/stop_and_draft_check.py [--only gsm8k] [--offset 0] [--limit 5]
        [--max-tokens 128] [--out speed/results/stop_and_draft.jsonl]

Rows are appended to ``--out``, by default the committed rows of record beside this script; a smoke run with
``--max-tokens`` should name another file.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from agent_evolve.benchmarks.adapters.gsm8k import GSM8KBenchmark
from agent_evolve.benchmarks.adapters.humaneval import HumanEvalBenchmark
from agent_evolve.llm.base import Message
from agent_evolve.llm.models import LOCAL_MODELS
from agent_evolve.llm.providers.llama_cpp_local import load_model
from agent_evolve.llm.providers.llama_engine import Generation, LlamaEngine
from agent_evolve.llm.qwen_tools import to_chat_messages
from agent_evolve.llm.stops import stop_rule
from agent_evolve.types import Task, Trajectory

IDS = Path(__file__).with_name("stop_and_draft_ids.json")
KINDS = {"gsm8k": "number", "humaneval": "code"}


def workspace(name: str) -> tuple[str, int]:
    """The seed workspace's system prompt and max_tokens, as the reference agent would use them."""
    root = resources.files("agent_evolve.seed_workspaces").joinpath(name)
    manifest = yaml.safe_load(root.joinpath("manifest.yaml").read_text(encoding="utf-8"))
    system = root.joinpath("prompts", "system.md").read_text(encoding="utf-8")
    return system, int(manifest["agent"]["config"]["max_tokens"])


def answer(engine: LlamaEngine, prompt: list[int], template_stops: tuple[str, ...], max_tokens: int,
           kind: str | None, draft: bool) -> tuple[Generation, float]:
    """One greedy reply and its seconds; ``kind`` picks a stop rule, ``draft`` turns prompt-lookup drafts on."""
    engine.settings = replace(engine.settings, draft="prompt-lookup" if draft else "none")
    rule = stop_rule(kind)
    started = time.perf_counter()
    generation = engine.generate(prompt, max_tokens=max_tokens, stops=template_stops, temperature=0.0, seed=0,
                                 deadline=None, complete_at=rule.complete_at if rule is not None else None)
    return generation, time.perf_counter() - started


def check(engine: LlamaEngine, bench: Any, task: Task, system: str, max_tokens: int, kind: str) -> dict[str, Any]:
    """The three replies to one task, compared and graded."""
    chat = to_chat_messages([Message("system", system), Message("user", task.input)], None)
    prompt, template_stops = engine.prompt_tokens(chat)
    engine.generate(prompt, max_tokens=1, stops=template_stops, temperature=0.0, seed=0, deadline=None)
    plain, plain_s = answer(engine, prompt, template_stops, max_tokens, None, draft=False)
    cut, cut_s = answer(engine, prompt, template_stops, max_tokens, kind, draft=False)
    drafted, drafted_s = answer(engine, prompt, template_stops, max_tokens, None, draft=True)
    again, _ = answer(engine, prompt, template_stops, max_tokens, None, draft=False)
    graded = [bench.evaluate(task, Trajectory(task.id, g.text)).success for g in (plain, cut)]
    return {
        "task_id": task.id, "kind": kind,
        "draft_identical": drafted.text == plain.text, "plain_repeat_identical": again.text == plain.text,
        "cut_is_prefix": plain.text.startswith(cut.text), "same_grade": graded[0] == graded[1],
        "solved": graded[0], "plain_tokens": plain.completion_tokens, "cut_tokens": cut.completion_tokens,
        "drafted_tokens": drafted.drafted_tokens, "accepted_drafts": drafted.accepted_drafts,
        "plain_s": round(plain_s, 2), "cut_s": round(cut_s, 2), "drafted_s": round(drafted_s, 2),
        "plain_finish": plain.finish, "cut_finish": cut.finish,
        "draft_differs_at": None if drafted.text == plain.text else differs_at(plain.text, drafted.text, "drafted"),
        "repeat_differs_at": None if again.text == plain.text else differs_at(plain.text, again.text, "again"),
        "cut_differs_at": None if plain.text.startswith(cut.text) else differs_at(plain.text, cut.text, "cut"),
    }


def differs_at(a: str, b: str, other: str) -> dict[str, object]:
    """Where the plain reply `a` and the `other` reply `b` part: the character index and each reply's next 40
    characters from a little before."""
    index = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return {"char": index, "plain": a[max(index - 20, 0):index + 40], other: b[max(index - 20, 0):index + 40]}


def summary(rows: list[dict[str, Any]]) -> str:
    """Totals over the rows of one benchmark."""
    n = len(rows)
    total = {key: sum(r[key] for r in rows) for key in
             ("plain_tokens", "cut_tokens", "drafted_tokens", "accepted_drafts", "plain_s", "cut_s", "drafted_s")}
    counts = {key: sum(bool(r.get(key)) for r in rows) for key in
              ("draft_identical", "plain_repeat_identical", "cut_is_prefix", "same_grade", "solved")}
    repeated = sum("plain_repeat_identical" in r for r in rows)
    return (f"{n} prompts: plain reply repeated identically {counts['plain_repeat_identical']}/{repeated}, "
            f"drafted reply identical {counts['draft_identical']}/{n}, cut reply a prefix "
            f"{counts['cut_is_prefix']}/{n}, same grade {counts['same_grade']}/{n} (solved {counts['solved']}); "
            f"tokens per solve {total['plain_tokens'] / n:.1f} plain, {total['cut_tokens'] / n:.1f} cut "
            f"({total['cut_tokens'] / max(total['plain_tokens'], 1):.0%}); drafts accepted "
            f"{total['accepted_drafts']}/{total['drafted_tokens']}; seconds per reply "
            f"{total['plain_s'] / n:.1f} plain, {total['cut_s'] / n:.1f} cut, {total['drafted_s'] / n:.1f} drafted "
            f"({total['plain_s'] / max(total['drafted_s'], 1e-9):.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(KINDS), help="one benchmark (default: both)")
    parser.add_argument("--offset", type=int, default=0, help="skip the first N ids of each benchmark")
    parser.add_argument("--limit", type=int, help="at most N ids of each benchmark")
    parser.add_argument("--max-tokens", type=int, help="cap replies below the workspace's max_tokens (smoke runs)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "stop_and_draft.jsonl",
                        help="per-prompt rows, appended")
    args = parser.parse_args()
    ids = json.loads(IDS.read_text(encoding="utf-8"))
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    engine = load_model(LOCAL_MODELS["qwen2.5-coder-1.5b"]).engine
    print(f"settings: {engine.settings}")
    benches = {"gsm8k": GSM8KBenchmark, "humaneval": HumanEvalBenchmark}
    with args.out.open("a", encoding="utf-8") as out:
        for name in [args.only] if args.only else sorted(KINDS):
            bench = benches[name]()
            tasks = {t.id: t for t in bench.get_tasks("test", limit=None)}
            system, max_tokens = workspace(name)
            max_tokens = min(max_tokens, args.max_tokens or max_tokens)
            chosen = ids[name][args.offset:][: args.limit]
            rows = []
            for task_id in chosen:
                row = check(engine, bench, tasks[task_id], system, max_tokens, KINDS[name])
                rows.append(row)
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(json.dumps(row), flush=True)
            print(f"{name}: {summary(rows)}")
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}; rows appended to {args.out}")


if __name__ == "__main__":
    main()
