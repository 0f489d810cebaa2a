"""Program-of-thought answers (`prompts/program.md`): the model writes a Python program, run confined; a number gets
`Answer: <printed>` appended, a text or choice answer is the printed line alone; a failed program leaves the text."""

from __future__ import annotations

import ast
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.agents.answering.base import Answer, Question
from agent_evolve.agents.answering.plain import Plain
from agent_evolve.benchmarks.answer_kinds import AnswerKind
from agent_evolve.environments import Confinement, Limits, Mount, python_executable, run_confined
from agent_evolve.text.fences import PYTHON_BLOCK

# Stop once the program's block is closed, before the model imagines the program's output
PROGRAM_STOP: tuple[str, ...] = ("\n```\n", "```output")
ANSWER_PREFIX = "Answer: "
PROGRAM_KINDS: tuple[AnswerKind, ...] = ("number", "text", "choice")  # the answer kinds a program can print
KIND_INSTRUCTIONS: dict[str, str] = {  # what the program must print for a task of a kind other than number
    "text": "The program must print only the answer, written as the question asks (a word, a name, a date, or "
            "items separated by commas), with no label.",
    "choice": "The program must print only the chosen option, written as the task gives it, with no label.",
}
PROGRAM_CLOSING = ("Reply with one Python program in a ```python block that prints the answer, in the form the task "
                   "asks for.")
"""Ends the user turn of a program question: said after the task, it wins over the task's own "answer with the word
only" (in the system prompt alone, the embedded model wrote 0 programs for 18 reasoning-mini tasks; with this, 18:
experiments/probes/README.md)."""
PROGRAM_LIMITS = Limits(timeout_s=5.0, memory_mb=512, processes=8, file_size_mb=1, output_bytes=8192)
_ERROR_CHARS = 300


@dataclass(frozen=True)
class ProgramRun:
    """How the reply's program ran: its last printed line, or why there is none."""

    code: str | None
    printed: str | None
    error: str = ""

    def to_step(self) -> dict[str, Any]:
        """The trajectory step recording the run."""
        return {"type": "program", "ran": self.code is not None, "printed": self.printed, "error": self.error}


def last_program(reply: str) -> str | None:
    """The last fenced Python block of the reply (its closing fence may be cut by a stop sequence)."""
    blocks = [b for b in PYTHON_BLOCK.findall(reply) if b.strip()]
    return blocks[-1] if blocks else None


def run_program(code: str, limits: Limits = PROGRAM_LIMITS) -> ProgramRun:
    """Run ``code`` confined, standard library only; its last non-empty printed line, or the error."""
    with tempfile.TemporaryDirectory(prefix="agent-evolve-program-", ignore_cleanup_errors=True) as root:
        work = Path(root) / "work"
        work.mkdir()
        confinement = Confinement(mounts=(Mount.scratch(work, 16),), cwd=str(work),
                                  env={"PATH": "/usr/bin:/bin", "HOME": str(work), "LC_ALL": "C.UTF-8"})
        ran = run_confined([python_executable(), "-I", "-S", "-B", "-c", code], confinement, limits)
    if ran.timed_out:
        return ProgramRun(code, None, f"the program did not finish within {limits.timeout_s:g}s")
    if ran.exit_code != 0:
        lines = ran.stderr.decode("utf-8", "replace").strip().splitlines()
        return ProgramRun(code, None, (lines[-1] if lines else f"exit code {ran.exit_code}")[:_ERROR_CHARS])
    printed = [line.strip() for line in ran.stdout.decode("utf-8", "replace").splitlines() if line.strip()]
    if not printed:
        return ProgramRun(code, None, "the program printed nothing")
    return ProgramRun(code, printed[-1])


def program_prompt(text: str | None, kind: AnswerKind | None) -> str | None:
    """The workspace's program prompt followed by what the program must print for a task of ``kind``; None when
    there is no program prompt or a program cannot print a ``kind`` answer (undeclared kinds: it can)."""
    if text is None or (kind is not None and kind not in PROGRAM_KINDS):
        return None
    return "\n".join(line for line in (text.rstrip(), KIND_INSTRUCTIONS.get(kind or "", "")) if line) + "\n"


def printed_answer(printed: str) -> str:
    """A printed line as a text answer: a Python list or tuple as its items separated by commas, quotes dropped."""
    try:
        value = ast.literal_eval(printed)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return printed
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value)
    return str(value) if isinstance(value, str) else printed


def answer_with_program(reply: str, limits: Limits = PROGRAM_LIMITS,
                        kind: AnswerKind | None = None) -> tuple[str, ProgramRun]:
    """The answer when the reply's program ran and printed: for a number the reply with ``Answer: <printed>``
    appended, for other kinds (and an undeclared one) the printed answer alone; else the reply as it is."""
    code = last_program(reply)
    if code is None:
        return reply, ProgramRun(None, None, "the reply has no Python block")
    run = run_program(code, limits)
    if run.printed is None:
        return reply, run
    if kind == "number":
        return f"{reply.rstrip()}\n{ANSWER_PREFIX}{run.printed}", run
    return printed_answer(run.printed), run


def worked_solution(output: str, steps: list[dict[str, Any]], conversation: list[dict[str, Any]]) -> str:
    """A solve as a worked example shows it: the output, except where the last reply's program printed a text answer
    that became the output alone; then that reply with ``Answer: <output>`` after it, as a number answer has it."""
    runs = [s for s in steps if isinstance(s, dict) and s.get("type") == "program"]
    replies = [m.get("content") or "" for m in conversation if isinstance(m, dict) and m.get("role") == "assistant"]
    if not runs or not replies or not runs[-1].get("ran") or runs[-1].get("printed") is None:
        return output
    reply = replies[-1].strip()
    if last_program(reply) is None or printed_answer(str(runs[-1]["printed"])) != output.strip():
        return output
    return f"{reply}\n{ANSWER_PREFIX}{output.strip()}"


@dataclass(frozen=True)
class ProgramAnswer:
    """Ask once for a program (stopping at its closed block), run it, and answer with what it printed."""

    kind: AnswerKind | None = None

    def answer(self, question: Question, so_far: Answer) -> Answer:
        replied = Plain(list(PROGRAM_STOP)).answer(question, so_far)
        output, run = answer_with_program(replied.output, kind=self.kind)
        return replied.then(run.to_step(), output=output)

    def finish(self, reply: str) -> str:
        """A drawn reply answered the same way: with its program's printed result, when there is one."""
        return answer_with_program(reply, kind=self.kind)[0]
