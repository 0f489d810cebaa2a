"""Checking a plain numeric answer against the form right answers take (``answer`` in ``prompts/check.yaml``).

Every GSM8K answer is a whole number of at least 0; a small model's wrong answers often are not (a subtraction
the wrong way round, a rate left as a fraction, a program that printed nothing). Such an answer is wrong
whatever the grader says, so drawing another reply for it is fair (``agents.redraw``). The form is learned
from answers known to be right (``answer_form``), never stated per benchmark.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from agent_evolve.benchmarks.answers import extract_number, parse_number
from agent_evolve.contract.check_settings import AnswerForm

MIN_RIGHT_ANSWERS = 3
"""Right answers needed before their shared form is trusted."""


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
