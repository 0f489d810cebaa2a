"""Numeric answer extraction on the ways models really write answers."""

from __future__ import annotations

import pytest

from agent_evolve.benchmarks.support.answers import extract_number, numbers_equal, parse_number

STYLES = [
    # explicit markers
    (r"So the total is $\boxed{72}$.", "72"),
    (r"The final answer is $\boxed{42}$. I hope it is correct.", "42"),
    (r"\boxed{\frac{3}{4}}", "3/4"),
    (r"Total: \boxed{72 \text{ clips}}", "72"),
    (r"\boxed{\$1,234.50}", "1234.50"),
    ("Janet sells 9 eggs.\n#### 18", "18"),
    ("She has 5 left.\n#### 1,234", "1234"),
    ("Answer: 72", "72"),
    ("**Answer:** 42 apples", "42"),
    ("**Final Answer**\n\n56", "56"),
    ("Answer:\n\n  12", "12"),
    ("Answer: 9 * 2 = 18 dollars per day.", "18"),
    ("Answer: 18 dollars. So 18 = 9 * 2", "18"),
    ("The answer is $1,234.50.", "1234.50"),
    ("The answer is 72.", "72"),
    ("The final answer is 72", "72"),
    ("Therefore, the final answer is: 3/4", "3/4"),
    ("The answer is 5. Wait, I made an error. The answer is 6.", "6"),
    ("He loses 20 dollars overall.\nAnswer: -20", "-20"),
    ("The answer is +15", "15"),
    # explicit markers beat a later number
    ("The answer is 8 (we checked 3 times).", "8"),
    ("#### 64\nThis took 3 steps.", "64"),
    # bold
    ("She earns **$18** per day.", "18"),
    ("**Step 1:** 16 - 3 - 4 = 9 eggs.\n**Step 2:** 9 * 2 = 18.\n\nSo she makes **18 dollars** a day.", "18"),
    # last number fallback: units, commas, negatives, decimals, dollars, trailing text
    ("Natalia sold 72 clips", "72"),
    ("In total 1,000,000 people came.", "1000000"),
    ("The temperature dropped to -5 degrees.", "-5"),
    ("It costs \u22127 dollars", "-7"),
    ("The probability is 0.5", "0.5"),
    ("x = .75", ".75"),
    ("That is 50% of the total", "50"),
    ("Therefore, Janet makes $18 every day at the farmers' market.", "18"),
    ("Total = 1,200 + 300 = 1,500.", "1500"),
    ("16 - 3 - 4 = 9, and 9 * 2 = 18", "18"),
    ("Price: 3 for $2.50, so 7.5 in all", "7.5"),
    ("To answer this, we need 3 apples and 4 pears, which makes 7 fruits.", "7"),
]


@pytest.mark.parametrize(("text", "expected"), STYLES)
def test_extracts_the_answer(text: str, expected: str) -> None:
    got = extract_number(text)
    assert got is not None and numbers_equal(got, expected), (text, got)


def test_there_are_at_least_twenty_styles() -> None:
    assert len(STYLES) >= 20


@pytest.mark.parametrize("text", ["", "no numbers here", "The answer is unclear."])
def test_no_number(text: str) -> None:
    assert extract_number(text) is None


def test_extracted_numbers_are_normalised() -> None:
    assert extract_number("The answer is $1,234.50.") == "1234.50"
    assert extract_number("It is \u22123") == "-3"
    assert extract_number("#### 1,000") == "1000"


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ("1234.50", "1234.5", True),
        ("3/4", "0.75", True),
        ("1.5/2", "0.75", True),
        ("18", "18.0", True),
        ("-5", "5", False),
        ("1", "2", False),
        ("0.3333333", "1/3", True),
        (None, "1", False),
        ("abc", "1", False),
        ("1/0", "1", False),
    ],
)
def test_numbers_equal(a: str | None, b: str, equal: bool) -> None:
    assert numbers_equal(a, b) is equal


def test_parse_number() -> None:
    assert parse_number("1,234") == 1234
    assert parse_number(None) is None
    assert parse_number("3/4") == parse_number("0.75")
    assert parse_number("03/05/2021") is None, "a date is not 3 / (5/2021)"
