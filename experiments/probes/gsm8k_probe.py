"""Probe the embedded model on GSM8K dev tasks (the train tasks of the `dev` split, which no gate's holdout is carved
from): which prompt changes move its score at all?

Arms, all scored on the same dev tasks `--source .. --source+--eval` (never test) at temperature 0:
`baseline` (the seed system prompt), `sys_demos` and `chat_demos` (the `--shots` shortest verified-correct
baseline solutions of train tasks 0..--source, in the system prompt or as earlier chat turns), `boxed` (Qwen's
own evaluation prompt), `free` (the seed prompt without "in a few short lines"), `program` (program of
thought: the model writes Python, its printed result is the answer), `pal` (code only, after `--shots` of the
model's own verified `program` solutions of train tasks 0..--source as earlier chat turns) and `many_demos` (the
`--many` shortest verified baseline solutions as earlier chat turns); with `--vote K`, self-consistency (K
sampled answers to the seed prompt, the most common number); with `--redraws N`, program answers whose
answer is missing, negative or fractional drawn again up to N times (`program_checkN`); with `--settle N`,
a disagreement of the seed prompt and program settled by N more sampled programs (`settledN`). Each solve is
appended to `<out>/<arm>.jsonl` as it finishes, so a rerun resumes.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import combinations
from pathlib import Path

from probe_rows import TABLE_HEAD, print_row, solve_rows

from agent_evolve.agents.answering.checks import answer_failure
from agent_evolve.agents.answering.program import PROGRAM_STOP, answer_with_program, last_program
from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.support.answers import extract_number, parse_number
from agent_evolve.benchmarks.support.splits import dev_tasks
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.check_settings import AnswerForm
from agent_evolve.llm.base import Message
from agent_evolve.llm.factory import client_from_config
from agent_evolve.registry import seed_path
from agent_evolve.types import Task, Trajectory

SEED_PROMPT = seed_path("gsm8k") / "prompts" / "system.md"
BOXED = "Please reason step by step, and put your final answer within \\boxed{}."
BRIEF = "Reason step by step in a few short lines, writing each calculation with its result."
PAL = ("Solve the math word problem by writing only one Python program in a ```python block, with no text before "
       "or after it. Give each quantity a named variable, compute the answer step by step, and print only the final "
       "number.")
PROGRAM = ("Solve the math word problem by writing one Python program in a ```python block. Give each quantity a "
           "named variable, compute the answer step by step, and print only the final number.")
Messages = Callable[[Task], list[Message]]


def solve_all(out: Path, arm: str, messages: Messages, tasks: list[Task], bench: object, client: object) -> list[dict]:
    """Each task's row for `arm`; the `program` arm answers the way `agents.answering.program` does (stop at the closed
    block, run it confined, append what it prints)."""
    program = arm in ("program", "pal")

    def solve(task: Task) -> dict:
        reply = client.complete(messages(task), max_tokens=512, temperature=0.0,  # type: ignore[attr-defined]
                                stop=list(PROGRAM_STOP) if program else None)
        answer = answer_with_program(reply.text)[0] if program else reply.text
        feedback = bench.evaluate(task, Trajectory(task.id, answer))  # type: ignore[attr-defined]
        return {"score": feedback.score, "output": answer, "finish": reply.finish_reason}

    return solve_rows(out / f"{arm}.jsonl", tasks, solve)


GSM8K_FORM = AnswerForm(whole=True, min=0.0)  # every GSM8K train answer seen is a whole number of at least 0


def odd_answer(output: str) -> bool:
    """Whether the reply's answer is missing, negative or fractional (`agents.answering.checks`)."""
    return answer_failure(output, GSM8K_FORM) is not None


def solve_checked(out: Path, messages: Messages, tasks: list[Task], bench: object, client: object,
                  redraws: int) -> list[dict]:
    """Program answers; an odd answer (`odd_answer`) is drawn again at temperature 0.8, up to `redraws` times,
    and the first draw whose answer is not odd is kept (none: the greedy answer stands). The greedy replies are
    the `program` arm's rows."""
    greedy = {r["task_id"]: r for r in solve_all(out, "program", messages, tasks, bench, client)}

    def solve(task: Task) -> dict:
        first = greedy[task.id]
        if not odd_answer(first["output"]):
            return {**first, "drawn": 0, "kept": None}
        drawn, kept, answer = 0, None, first["output"]
        for drawn in range(1, redraws + 1):
            reply = client.complete(messages(task), max_tokens=512, temperature=0.8,  # type: ignore[attr-defined]
                                    stop=list(PROGRAM_STOP))
            candidate = answer_with_program(reply.text)[0]
            if not odd_answer(candidate):
                kept, answer = drawn, candidate
                break
        feedback = bench.evaluate(task, Trajectory(task.id, answer))  # type: ignore[attr-defined]
        return {"score": feedback.score, "output": answer, "finish": "stop", "drawn": drawn, "kept": kept}

    return solve_rows(out / f"program_check{redraws}.jsonl", tasks, solve)


def solve_settled(out: Path, messages: Messages, tasks: list[Task], bench: object, client: object,
                  samples: int) -> list[dict]:
    """The seed prompt's and the program's greedy answers (the `baseline` and `program` rows); when they differ,
    `samples` more program answers at temperature 0.8 and the most common answer that is not odd wins (ties: the
    greedy program's, then the seed prompt's, then the samples' in order). Rows keep every sample's number."""
    seed_rows = {r["task_id"]: r for r in map(json.loads, (out / "baseline.jsonl").open())}
    greedy = {r["task_id"]: r for r in solve_all(out, "program", messages, tasks, bench, client)}

    def solve(task: Task) -> dict:
        answers = [extract_number(greedy[task.id]["output"]), extract_number(seed_rows[task.id]["output"])]
        drawn = []
        if parse_number(answers[0]) is None or parse_number(answers[0]) != parse_number(answers[1]):
            for _ in range(samples):
                reply = client.complete(messages(task), max_tokens=512, temperature=0.8,  # type: ignore[attr-defined]
                                        stop=list(PROGRAM_STOP))
                drawn.append(extract_number(answer_with_program(reply.text)[0]))
        winner = settle(answers + drawn)
        feedback = bench.evaluate(task, Trajectory(task.id, f"Answer: {winner}" if winner is not None else ""))  # type: ignore[attr-defined]
        return {"score": feedback.score, "output": f"Answer: {winner}", "samples": answers + drawn, "finish": "stop"}

    return solve_rows(out / f"settled{samples}.jsonl", tasks, solve)


def settle(numbers: list[str | None]) -> str | None:
    """The most common answer that is not odd (ties: the earliest); with none, the first answer given."""
    fine = [n for n in numbers if n is not None and not odd_answer(f"Answer: {n}")]
    return majority(fine) if fine else next((n for n in numbers if n is not None), None)


def solve_votes(out: Path, samples: int, prompt: str, tasks: list[Task], bench: object) -> list[dict]:
    """Self-consistency: `samples` answers at temperature 0.7 (one sampling seed each), the most common number
    wins (ties: the earliest sample's). Rows keep every sample's number, so fewer samples can be read back."""
    clients = [client_from_config(EvolveConfig(), "agent", seed=k) for k in range(1, samples + 1)]

    def solve(task: Task) -> dict:
        numbers = [extract_number(c.complete([Message("system", prompt), Message("user", task.input)],
                                             max_tokens=512, temperature=0.7).text) for c in clients]
        winner = majority(numbers)
        feedback = bench.evaluate(task, Trajectory(task.id, f"Answer: {winner}" if winner is not None else ""))  # type: ignore[attr-defined]
        return {"score": feedback.score, "output": f"Answer: {winner}", "samples": numbers, "finish": "stop"}

    return solve_rows(out / f"vote{samples}.jsonl", tasks, solve)


def majority(numbers: list[str | None]) -> str | None:
    """The most common parsed number (ties: the one seen first); None when no sample gave a number."""
    parsed = [(parse_number(n), n) for n in numbers if n is not None and parse_number(n) is not None]
    if not parsed:
        return None
    counts = Counter(value for value, _ in parsed)
    best = max(counts.values())
    return next(text for value, text in parsed if counts[value] == best)


def chat_turns(solved: Iterable[tuple[Task, str]]) -> list[Message]:
    """Solved tasks as earlier chat turns: the question, then the solution as the assistant's reply."""
    return [m for t, text in solved for m in (Message("user", t.input), Message("assistant", text.strip()))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--source", type=int, default=20)
    parser.add_argument("--eval", type=int, default=30)
    parser.add_argument("--shots", type=int, default=3)
    parser.add_argument("--many", type=int, default=8, help="demonstrations in the many-shot arm `many_demos`")
    parser.add_argument("--arms", default="sys_demos,chat_demos,boxed,free")
    parser.add_argument("--redraws", type=int, default=0,
                        help="also score program answers whose odd answers are drawn again up to this many times")
    parser.add_argument("--settle", type=int, default=0,
                        help="also score settling a disagreement of the seed prompt and program with this many samples")
    parser.add_argument("--vote", type=int, default=0, help="also score self-consistency with this many samples")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    seed = SEED_PROMPT.read_text(encoding="utf-8")
    bench = resolve_benchmark("gsm8k")
    client = client_from_config(EvolveConfig(), "agent")
    tasks = dev_tasks(bench, args.source + args.eval)
    base = solve_all(args.out, "baseline", lambda t: [Message("system", seed), Message("user", t.input)], tasks,
                     bench, client)
    verified = sorted(((t, r) for t, r in zip(tasks[: args.source], base) if r["score"] >= 1 and r["finish"] != "length"),
                      key=lambda pair: len(pair[1]["output"]))
    good, many = verified[: args.shots], verified[: args.many]
    block = "# Worked examples\nThese problems were solved correctly. Solve the new problem the same way.\n\n" + "\n\n".join(
        f"## Example {i}\nQuestion: {t.input}\nSolution:\n{r['output'].strip()}" for i, (t, r) in enumerate(good, 1))
    turns, many_turns = chat_turns((t, r["output"]) for t, r in good), chat_turns((t, r["output"]) for t, r in many)
    pal_turns: list[Message] = []
    if "pal" in args.arms:
        sources = solve_all(args.out, "program", lambda t: [Message("system", PROGRAM), Message("user", t.input)],
                            tasks[: args.source], bench, client)
        solved = ((t, last_program(r["output"])) for t, r in zip(tasks, sources) if r["score"] >= 1)
        programs = sorted(((t, code) for t, code in solved if code is not None), key=lambda pair: len(pair[1]))[: args.shots]
        pal_turns = chat_turns((t, f"```python\n{code.strip()}\n```") for t, code in programs)
        print(f"pal demos from {[t.id for t, _ in programs]}", flush=True)
    arms: dict[str, Messages] = {
        "sys_demos": lambda t: [Message("system", seed + "\n\n" + block), Message("user", t.input)],
        "chat_demos": lambda t: [Message("system", seed), *turns, Message("user", t.input)],
        "boxed": lambda t: [Message("system", BOXED), Message("user", t.input)],
        "free": lambda t: [Message("system", seed.replace(BRIEF, BRIEF.replace(" in a few short lines", ""))),
                           Message("user", t.input)],
        "program": lambda t: [Message("system", PROGRAM), Message("user", t.input)],
        "pal": lambda t: [Message("system", PAL), *pal_turns, Message("user", t.input)],
        "many_demos": lambda t: [Message("system", seed), *many_turns, Message("user", t.input)],
    }
    evaluated = tasks[args.source:]
    before = {r["task_id"]: r["score"] for r in base[args.source:]}
    print(f"baseline {sum(before.values()):.0f}/{len(before)}; demos from {[t.id for t, _ in good]}", flush=True)
    print(TABLE_HEAD)
    for arm in filter(None, args.arms.split(",")):
        print_row(arm, solve_all(args.out, arm, arms[arm], evaluated, bench, client), before)
    if args.redraws:
        rows = solve_checked(args.out, arms["program"], evaluated, bench, client, args.redraws)
        print_row(f"program_check{args.redraws}", rows, before)
    if args.settle:
        rows = solve_settled(args.out, arms["program"], evaluated, bench, client, args.settle)
        print_row(f"settled{args.settle}", rows, before)
        for k in range(0, args.settle + 1, 2):
            solved = sum(bench.evaluate(t, Trajectory(t.id, f"Answer: {settle(r['samples'][:2 + k])}")).score  # type: ignore[attr-defined]
                         for t, r in zip(evaluated, rows))
            print(f"settled with {k} sample(s): {solved:.0f}/{len(rows)}", flush=True)
    if args.vote:
        rows = solve_votes(args.out, args.vote, seed, evaluated, bench)
        print_row(f"vote{args.vote}", rows, before)
        for k in range(1, args.vote + 1, 2):
            picked = [majority(r["samples"][:k]) for r in rows]
            solved = sum(bench.evaluate(t, Trajectory(t.id, f"Answer: {n}")).score for t, n in zip(evaluated, picked))
            print(f"self-consistency, {k} sample(s) at temperature 0.7: {solved:.0f}/{len(rows)}", flush=True)
    print_votes(args.out, [t.id for t in evaluated], bench)


def print_votes(out: Path, ids: list[str], bench: object) -> None:
    """Majority vote of every three arms with rows (ties: the first arm's answer), and the any-arm oracle."""
    rows = {p.stem: {r["task_id"]: r for r in map(json.loads, p.open())} for p in sorted(out.glob("*.jsonl"))}
    arms = [arm for arm, got in rows.items() if all(i in got for i in ids)]
    gold = {i: parse_number(bench.gold(i)) for i in ids}

    def answer(arm: str, task_id: str) -> object:
        return parse_number(extract_number(rows[arm][task_id]["output"]))

    for trio in combinations(arms, 3):
        votes = [Counter(answer(arm, i) for arm in trio) for i in ids]
        picked = [v.most_common(1)[0][0] if v.most_common(1)[0][1] > 1 else answer(trio[0], i)
                  for v, i in zip(votes, ids)]
        print(f"vote {'+'.join(trio)}: {sum(p == gold[i] for p, i in zip(picked, ids))}/{len(ids)}")
    print(f"oracle (any of {', '.join(arms)}): {sum(any(answer(a, i) == gold[i] for a in arms) for i in ids)}/{len(ids)}")


if __name__ == "__main__":
    main()
