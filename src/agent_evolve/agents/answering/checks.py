"""Checks an agent runs on its own reply without the grader (a failing reply is drawn again): code on its docstring's
literal examples; a number against the form right answers share (`answer` in `prompts/check.yaml`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from agent_evolve.benchmarks.answer_kinds import AnswerKind, declared_kind
from agent_evolve.benchmarks.support.answers import extract_number, parse_number
from agent_evolve.benchmarks.support.code_extraction import assemble_program, extract_code
from agent_evolve.benchmarks.support.sandbox import SandboxLimits, run_tests
from agent_evolve.contract.check_settings import AnswerForm, CheckSettings
from agent_evolve.text.fences import CLOSED_PYTHON_BLOCK
from agent_evolve.types import Task

Check = Callable[[str], str | None]  # why a reply fails the check, or None when it passes
# Code (its docstring's examples) and numbers (the answer form) can be checked without the grader
CHECK_KINDS: tuple[AnswerKind, ...] = ("code", "number")
MIN_RIGHT_ANSWERS = 3  # right answers needed before their shared form is trusted
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
    return [DocExample(call.strip(), want.strip()) for call, want in found
            if _literal_call(call, name) and _literal(want)]


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
    """The first example the reply's code fails (a reply with no code fails the first); None when it passes all."""
    return next((failure for failure in example_failures(code, reply, limits) if failure), None)


def examples_passed(code: CodeTask, reply: str, limits: SandboxLimits = CHECK_LIMITS) -> tuple[bool, ...]:
    """Which of the docstring's examples the reply's code passes, in their order (empty when there are none)."""
    return tuple(failure is None for failure in example_failures(code, reply, limits))


def example_failures(code: CodeTask, reply: str,
                     limits: SandboxLimits = CHECK_LIMITS) -> Iterator[ExampleFailure | None]:
    """For each docstring example in turn, how the reply's code fails it (None where it passes), each run only when
    asked for; a reply with no code fails every example."""
    extracted = extract_code(reply, code.entry_point)
    program = assemble_program(code.prompt, extracted) if extracted.kind != "none" else None
    for example in docstring_examples(code.prompt, code.entry_point):
        if program is None:
            yield ExampleFailure(example, "the reply has no code")
        else:
            yield _run_example(code, program, example, limits)


def _run_example(code: CodeTask, program: str, example: DocExample, limits: SandboxLimits) -> ExampleFailure | None:
    check = (f"def check(candidate):\n    {code.entry_point} = candidate\n    _got = ({example.call})\n"
             f"    assert _got == ({example.want}), f'it returned {{_got!r}}'\n")
    result = run_tests(program, f"{code.prompt}\n{check}", code.entry_point, limits)
    if result.passed:
        return None
    if result.timed_out:
        return ExampleFailure(example, f"it did not finish within {limits.timeout_s:g}s")
    message = result.error_message or result.error_type or "it did not finish"
    if (result.error_where, result.error_type) == ("tests", "AssertionError") and message.startswith("it returned"):
        return ExampleFailure(example, message)
    return ExampleFailure(example, f"it raised {result.error_type}: {message}")


def answer_value(output: str) -> Fraction | None:
    """The numeric answer of a reply, as the graders read it; None when it gives none."""
    return parse_number(extract_number(output))


def answer_failure(output: str, form: AnswerForm) -> str | None:
    """Why the reply's answer breaks ``form`` (missing, fractional, too small); None when it keeps it."""
    return value_failure(answer_value(output), form)


def value_failure(value: Fraction | None, form: AnswerForm) -> str | None:
    """Why an answer's value breaks ``form``; None when it keeps it."""
    if value is None:
        return "the reply gives no numeric answer"
    if form.whole and value.denominator != 1:
        return f"the answer {float(value):g} is not a whole number"
    if form.min is not None and value < Fraction(form.min):
        return f"the answer {float(value):g} is below {form.min:g}"
    return None


def answer_form(right: Iterable[Fraction]) -> AnswerForm | None:
    """The form every right answer shares (whole; at least 0), from at least ``MIN_RIGHT_ANSWERS`` of them;
    None when there are too few or they share neither."""
    values = list(right)
    if len(values) < MIN_RIGHT_ANSWERS:
        return None
    whole = all(v.denominator == 1 for v in values)
    minimum = 0.0 if all(v >= 0 for v in values) else None
    return AnswerForm(whole, minimum) if whole or minimum is not None else None


@dataclass(frozen=True)
class ReplyCheck:
    """The check that applies to a task and the name its trajectory step carries."""

    kind: str
    failure: Check


def reply_check(task: Task, settings: CheckSettings) -> ReplyCheck | None:
    """Code tasks: their docstring's examples; number tasks (and undeclared ones): the answer form, when the
    settings give one."""
    code = code_task(task)
    if code is not None:
        def failed_example(reply: str) -> str | None:
            failure = first_failure(code, reply)
            return None if failure is None else failure.describe()
        return ReplyCheck("example_check", failed_example)
    form = settings.answer
    if form is not None and declared_kind(task) in (None, "number"):
        return ReplyCheck("answer_check", lambda reply: answer_failure(reply, form))
    return None
