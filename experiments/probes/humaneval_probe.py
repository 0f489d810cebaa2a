"""Probe the embedded model on HumanEval train tasks: does checking its code against the docstring's own examples,
with one repair turn, lift it where prompt edits do not?

Arms, on the first `--tasks` HumanEval **dev** tasks (train tasks no holdout uses; never test), temperature 0:
`baseline` (the seed prompt);
`selfcheck`: the baseline's reply, run against the `>>>` examples of the task's own docstring (the prompt the
agent sees; the grader's tests stay hidden) in the graders' sandbox; when an example fails, the model sees the
example, what went wrong, and answers once more; `resample`: when the baseline's reply fails an example, up to
`--samples` fresh replies at temperature 0.8 (one sampling seed each), the first that passes every example kept
(none passes: the baseline's reply stands); `repair_sample`: the same, but each fresh reply answers the repair
turn of `selfcheck` (the failing example shown). Each solve is appended to `<out>/<arm>.jsonl`; a rerun resumes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from probe_rows import TABLE_HEAD, print_row, solve_rows

from agent_evolve.agents.answering.checks import CodeTask, docstring_examples
from agent_evolve.agents.answering.checks import first_failure as check_examples
from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.support.code_extraction import extract_code
from agent_evolve.benchmarks.support.splits import dev_tasks
from agent_evolve.config import EvolveConfig
from agent_evolve.llm.base import Message
from agent_evolve.llm.factory import client_from_config
from agent_evolve.registry import seed_path
from agent_evolve.types import Task, Trajectory

SEED_PROMPT = seed_path("humaneval") / "prompts" / "system.md"
MAX_TOKENS = 768
REPAIR = ("Your function fails an example from its own docstring: `{call}` should give `{want}`, but {problem}. "
          "Fix the function and reply with the complete corrected function in one ```python block.")


def examples(prompt: str, name: str) -> list[tuple[str, str]]:
    """The docstring's examples of `name` (calls and values, literals only; see agents.answering.checks)."""
    return [(e.call, e.want) for e in docstring_examples(prompt, name)]


def first_failure(task: Task, reply: str, bench: object) -> tuple[str, str, str] | None:
    """The first docstring example the reply's code fails, with what went wrong; None when all pass (or none, or
    the reply has no code: the probe's arms leave those alone)."""
    code = CodeTask(task.metadata["prompt"], task.metadata["entry_point"])
    if extract_code(reply, code.entry_point).kind == "none":
        return None
    failure = check_examples(code, reply, bench.limits)  # type: ignore[attr-defined]
    return None if failure is None else (failure.example.call, failure.example.want, failure.problem)
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
              base: dict[str, dict], samplers: list[object] | None = None) -> list[dict]:
    """Each task's row for `arm`; `selfcheck` and `resample` start from the baseline's reply in `base`."""

    def solve(task: Task) -> dict:
        messages = [Message("system", seed), Message("user", task.input)]
        repaired = None
        if arm == "baseline":
            output = client.complete(messages, max_tokens=MAX_TOKENS, temperature=0.0).text  # type: ignore[attr-defined]
        elif arm in ("resample", "repair_sample"):
            output, drawn = base[task.id]["output"], 0
            failure = first_failure(task, output, bench)
            if failure is not None:
                if arm == "repair_sample":
                    repair = REPAIR.format(call=failure[0], want=failure[1], problem=failure[2])
                    messages = [*messages, Message("assistant", output), Message("user", repair)]
                for sampler in samplers or []:
                    drawn += 1
                    reply = sampler.complete(messages, max_tokens=MAX_TOKENS, temperature=0.8).text  # type: ignore[attr-defined]
                    if first_failure(task, reply, bench) is None and extract_code(reply, task.metadata["entry_point"]).kind != "none":
                        output = reply
                        break
            feedback = bench.evaluate(task, Trajectory(task.id, output))  # type: ignore[attr-defined]
            return {"score": feedback.score, "output": output, "drawn": drawn}
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
    parser.add_argument("--arms", default="selfcheck", help="comma-separated: selfcheck, resample, repair_sample")
    parser.add_argument("--samples", type=int, default=4, help="resample: fresh replies drawn at most")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    seed = SEED_PROMPT.read_text(encoding="utf-8")
    bench = resolve_benchmark("humaneval")
    client = client_from_config(EvolveConfig(), "agent")
    tasks = dev_tasks(bench, args.tasks)
    base = {r["task_id"]: r for r in solve_all(args.out, "baseline", tasks, bench, client, seed, {})}
    samplers = [client_from_config(EvolveConfig(), "agent", seed=k) for k in range(1, args.samples + 1)]
    arms = {arm: solve_all(args.out, arm, tasks, bench, client, seed, base, samplers) for arm in args.arms.split(",")}
    with_examples = sum(bool(examples(t.metadata["prompt"], t.metadata["entry_point"])) for t in tasks)
    caught = sum(first_failure(t, base[t.id]["output"], bench) is not None for t in tasks)
    print(f"baseline {sum(r['score'] for r in base.values()):.0f}/{len(tasks)}; {with_examples} tasks have examples; "
          f"the baseline's reply fails one on {caught}")
    print(TABLE_HEAD)
    for arm, rows in arms.items():
        print_row(arm, rows, {task_id: row["score"] for task_id, row in base.items()})


if __name__ == "__main__":
    main()
