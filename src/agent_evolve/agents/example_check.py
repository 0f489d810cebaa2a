"""Checking a code reply against the examples of the task's own docstring, in the graders' sandbox.

A function's docstring often shows calls and their results (``>>> f(2)`` then ``4``, or ``f(2) ==> 4``). Those
examples are part of what the agent is shown, so running its reply on them is fair: the grader's own tests stay
hidden. Only calls whose arguments and expected values are Python literals are used, so an example can fail only
because of the reply. The agent uses a failure to draw fresh replies (see ``agents.redraw``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agent_evolve.benchmarks.code_extraction import assemble_program, extract_code
from agent_evolve.benchmarks.sandbox import SandboxLimits, run_tests
from agent_evolve.text.fences import CLOSED_PYTHON_BLOCK
from agent_evolve.types import Task

CHECK_LIMITS = SandboxLimits(timeout_s=5.0, memory_mb=512)
_DOCTEST = re.compile(r"^\s*>>>\s?(.+)\n\s*([^\s>].*)$", re.MULTILINE)
_INLINE = (r"^[\s*-]*(?:for )?({name}\(.*\))\s*(?:==>|=>|->|\u279e|==|should return|# returns|returns)\s*(.+?)\.?\s*$")


@dataclass(frozen=True)
class DocExample:
    """One docstring example: a call of the function and the literal it should give."""

    call: str
    want: str


@dataclass(frozen=True)
class ExampleFailure:
    """The first example a reply fails, and what its code did instead."""

    example: DocExample
    problem: str

    def describe(self) -> str:
        return f"`{self.example.call}` should give `{self.example.want}`, but {self.problem}"


@dataclass(frozen=True)
class CodeTask:
    """What a check needs from a task: the code the agent completes and the function's name."""

    prompt: str
    entry_point: str


def code_task(task: Task) -> CodeTask | None:
    """The task's function: from its metadata (``prompt``, ``entry_point``) or else the last ``def`` of the last
    code block of its input; None when the task shows no function."""
    prompt, entry = task.metadata.get("prompt"), task.metadata.get("entry_point")
    if isinstance(prompt, str) and isinstance(entry, str) and entry:
        return CodeTask(prompt, entry)
    blocks = CLOSED_PYTHON_BLOCK.findall(task.input)
    if not blocks:
        return None
    try:
        tree = ast.parse(blocks[-1])
    except SyntaxError:
        return None
    names = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    return CodeTask(blocks[-1], names[-1]) if names else None


def docstring_examples(prompt: str, name: str) -> list[DocExample]:
    """The examples of ``name`` in ``prompt``: ``>>> call`` lines with the line after each, or ``call => value``
    lines (==>, ->, ==, "returns", ...), keeping calls with literal arguments and literal expected values."""
    found = _DOCTEST.findall(prompt) + re.findall(_INLINE.format(name=re.escape(name)), prompt, re.MULTILINE)
    return [DocExample(call.strip(), want.strip()) for call, want in found if _literal_call(call, name) and _literal(want)]


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _literal_call(text: str, name: str) -> bool:
    """``name(...)`` whose arguments are all literals (so a check cannot fail on an undefined name)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return False
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
            and all(_literal(ast.unparse(a)) for a in [*node.args, *(k.value for k in node.keywords)]))


def first_failure(code: CodeTask, reply: str, limits: SandboxLimits = CHECK_LIMITS) -> ExampleFailure | None:
    """The first example the reply's code fails; None when it passes them all, or there are none.

    A reply with no code fails the first example (there is nothing to run)."""
    examples = docstring_examples(code.prompt, code.entry_point)
    if not examples:
        return None
    extracted = extract_code(reply, code.entry_point)
    if extracted.kind == "none":
        return ExampleFailure(examples[0], "the reply has no code")
    program = assemble_program(code.prompt, extracted)
    for example in examples:
        check = (f"def check(candidate):\n    {code.entry_point} = candidate\n    _got = ({example.call})\n"
                 f"    assert _got == ({example.want}), f'it returned {{_got!r}}'\n")
        result = run_tests(program, f"{code.prompt}\n{check}", code.entry_point, limits)
        if not result.passed:
            if result.timed_out:
                return ExampleFailure(example, f"it did not finish within {limits.timeout_s:g}s")
            message = result.error_message or result.error_type or "it did not finish"
            if (result.error_where, result.error_type) == ("tests", "AssertionError") and message.startswith(
                    "it returned"):
                return ExampleFailure(example, message)
            return ExampleFailure(example, f"it raised {result.error_type}: {message}")
    return None
