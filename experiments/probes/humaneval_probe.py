"""Probe the embedded model on HumanEval train tasks: does checking its code against the docstring's own examples,
with one repair turn, lift it where prompt edits do not?

Arms, on the first `--tasks` HumanEval **train** tasks (never test), temperature 0: `baseline` (the seed prompt)
and `selfcheck`: the baseline's reply, run against the `>>>` examples of the task's own docstring (the prompt the
agent sees; the grader's tests stay hidden) in the graders' sandbox; when an example fails, the model sees the
example, what went wrong, and answers once more. Each solve is appended to `<out>/<arm>.jsonl`; a rerun resumes.
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

from probe_rows import TABLE_HEAD, print_row, solve_rows

from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.code_extraction import assemble_program, extract_code
from agent_evolve.benchmarks.sandbox import run_tests
from agent_evolve.config import EvolveConfig
from agent_evolve.llm.base import Message
from agent_evolve.llm.factory import client_from_config
from agent_evolve.types import Task, Trajectory

SEED_PROMPT = (Path(__file__).resolve().parents[1] / "lift-demos-humaneval" / "baseline" / "workspace" / "prompts"
               / "system.md")
MAX_TOKENS = 768
_EXAMPLE = re.compile(r"^\s*>>>\s?(.+)\n\s*([^\s>].*)$", re.MULTILINE)
_INLINE = r"^[\s*-]*(?:for )?({name}\(.*\))\s*(?:==>|=>|->|\u279e|==|should return|# returns|returns)\s*(.+?)\.?\s*$"
REPAIR = ("Your function fails an example from its own docstring: `{call}` should give `{want}`, but {problem}. "
          "Fix the function and reply with the complete corrected function in one ```python block.")


def examples(prompt: str, name: str) -> list[tuple[str, str]]:
    """The docstring's examples of `name`: `>>> call` lines with the line after each, or `call => value` lines
    (==>, ->, ==, "returns", ...); only calls with literal arguments and literal expected values."""
    found = _EXAMPLE.findall(prompt) + re.findall(_INLINE.format(name=re.escape(name)), prompt, re.MULTILINE)
    return [(call.strip(), want.strip()) for call, want in found if _literal_call(call, name) and _literal(want)]


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _literal_call(text: str, name: str) -> bool:
    """`name(...)` whose arguments are all literals (so the check cannot fail on an undefined name)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return False
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
            and all(_literal(ast.unparse(a)) for a in [*node.args, *(k.value for k in node.keywords)]))


def first_failure(task: Task, reply: str, bench: object) -> tuple[str, str, str] | None:
    """The first docstring example the reply's code fails, with what went wrong; None when all pass (or none)."""
    prompt, entry = task.metadata["prompt"], task.metadata["entry_point"]
    extracted = extract_code(reply, entry)
    if extracted.kind == "none":
        return None
    program = assemble_program(prompt, extracted)
    for call, want in examples(prompt, entry):
        check = (f"def check(candidate):\n    {entry} = candidate\n    _got = ({call})\n"
                 f"    assert _got == ({want}), f'it returned {{_got!r}}'\n")
        result = run_tests(program, f"{prompt}\n{check}", entry, bench.limits)  # type: ignore[attr-defined]
        if not result.passed:
            problem = result.error_message or result.error_type or "it did not finish"
            return call, want, problem if problem.startswith("it ") else f"it raised {result.error_type}: {problem}"
    return None


def solve_all(out: Path, arm: str, tasks: list[Task], bench: object, client: object, seed: str,
              base: dict[str, dict]) -> list[dict]:
    """Each task's row for `arm`; `selfcheck` starts from the baseline's reply in `base`."""

    def solve(task: Task) -> dict:
        messages = [Message("system", seed), Message("user", task.input)]
        repaired = None
        if arm == "baseline":
            output = client.complete(messages, max_tokens=MAX_TOKENS, temperature=0.0).text  # type: ignore[attr-defined]
        else:
            output = base[task.id]["output"]
            failure = first_failure(task, output, bench)
            if failure is not None:
                repaired = REPAIR.format(call=failure[0], want=failure[1], problem=failure[2])
                output = client.complete([*messages, Message("assistant", output), Message("user", repaired)],  # type: ignore[attr-defined]
                                         max_tokens=MAX_TOKENS, temperature=0.0).text
        feedback = bench.evaluate(task, Trajectory(task.id, output))  # type: ignore[attr-defined]
        return {"score": feedback.score, "output": output, "repair": repaired}

    return solve_rows(out / f"{arm}.jsonl", tasks, solve)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tasks", type=int, default=30)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    seed = SEED_PROMPT.read_text(encoding="utf-8")
    bench = resolve_benchmark("humaneval")
    client = client_from_config(EvolveConfig(), "agent")
    tasks = bench.get_tasks("train", limit=args.tasks)
    base = {r["task_id"]: r for r in solve_all(args.out, "baseline", tasks, bench, client, seed, {})}
    rows = solve_all(args.out, "selfcheck", tasks, bench, client, seed, base)
    with_examples = sum(bool(examples(t.metadata["prompt"], t.metadata["entry_point"])) for t in tasks)
    print(f"baseline {sum(r['score'] for r in base.values()):.0f}/{len(tasks)}; {with_examples} tasks have >>> examples; "
          f"{sum(r['repair'] is not None for r in rows)} repaired")
    print(TABLE_HEAD)
    print_row("selfcheck", rows, {task_id: row["score"] for task_id, row in base.items()})


if __name__ == "__main__":
    main()
