"""Answers in model output: the answer number (explicit markers first: boxed, ####, "answer is"; then the last
number), and facts in a free-text answer (numbers at the precision they were written in, exact phrases)."""

from __future__ import annotations

import re
from fractions import Fraction

MINUS = "\u2212"  # the Unicode minus sign some models write
# a number as models write it: optional sign and dollar sign, thousands commas, decimals, an optional /denominator
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-\u2212+])?\\?\$?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*/\s*(?P<den>\d+(?:\.\d+)?)(?![\d,]))?"
)
_FRAC = re.compile(r"\\[dt]?frac\s*\{\s*([-\u2212]?[\d,.]+)\s*\}\s*\{\s*([\d,.]+)\s*\}")
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_HASHES = re.compile(r"####")
_MARKER = re.compile(r"\bfinal\s+answer\b|\banswer\s*(?:is\b|:|=|\*\*\s*:)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"\.(?:\s|$)|;")
_BOLD = re.compile(r"\*\*\s*(?:\\?\$\s?)?(?=[-\u2212]?\d|[-\u2212]?\.\d)([^*\n]{1,40})\*\*")
_FACT_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?")  # a number with the precision it was written in
_NUMERIC_FACT = re.compile(r"^-?\d+(?:\.\d+)?$")


def _numbers(text: str) -> list[str]:
    """Every number in `text`, normalised: no commas or plus sign, ASCII minus, fractions as a/b."""
    text = _FRAC.sub(r"\1/\2", text)
    found = []
    for match in _NUMBER.finditer(text):
        sign = "-" if match["sign"] in ("-", MINUS) else ""
        number = sign + match["num"].replace(",", "")
        if match["den"] is not None and float(match["den"]) != 0:
            number += "/" + match["den"]
        found.append(number)
    return found


def _boxed_contents(text: str) -> list[str]:
    """The brace-balanced contents of every \\boxed{...} in `text`."""
    contents = []
    for match in _BOXED.finditer(text):
        depth, start = 1, match.end()
        for index in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            if depth == 0:
                contents.append(text[start:index])
                break
    return contents


def _after_marker(rest: str) -> str | None:
    """The number a marker introduces: in its first sentence (after its last '='), else on the next non-empty line."""
    first, _, tail = rest.partition("\n")
    for line in [first, *[line for line in tail.split("\n") if line.strip()][:1]]:
        sentence = _SENTENCE_END.split(line, maxsplit=1)[0]
        numbers = _numbers(sentence.rsplit("=", 1)[-1]) or _numbers(line)
        if numbers:
            return numbers[0]
    return None


def extract_number(text: str) -> str | None:
    """The answer number in `text`: last \\boxed{}, then last ####, "answer is"/"Answer:", bold number, last number."""
    if not text:
        return None
    for content in reversed(_boxed_contents(text)):
        numbers = _numbers(content)
        if numbers:
            return numbers[-1]
    for marker in (_HASHES, _MARKER):
        for match in reversed(list(marker.finditer(text))):
            number = _after_marker(text[match.end() :])
            if number is not None:
                return number
    bold = _BOLD.findall(text)
    if bold:
        numbers = _numbers(bold[-1])
        if numbers:
            return numbers[0]
    numbers = _numbers(text)
    return numbers[-1] if numbers else None


def grade_number(output: str, expected: str) -> tuple[bool, str | None, str]:
    """Whether the answer number of `output` equals the number in `expected`, the number read (None: none found), and
    the feedback detail."""
    got = extract_number(output)
    if numbers_equal(got, extract_number(expected)):
        return True, got, f"correct: {expected}"
    return False, got, f"expected {expected}, got {got}" if got is not None else "no number found in output"


def parse_number(text: str | None) -> Fraction | None:
    """An exact value for a normalised number ("-1234.5", "3/4"); None when it is not one (a date "03/05/2021" has
    two slashes)."""
    if text is None:
        return None
    numerator, _, denominator = text.replace(",", "").replace(MINUS, "-").strip().partition("/")
    if "/" in denominator:
        return None
    try:
        return Fraction(numerator) / Fraction(denominator or 1)
    except (ValueError, ZeroDivisionError):
        return None


def numbers_equal(a: str | None, b: str | None, rel_tol: float = 1e-6) -> bool:
    """Whether two number strings denote the same value (exactly, or within `rel_tol` of the larger)."""
    x, y = parse_number(a), parse_number(b)
    if x is None or y is None:
        return False
    return x == y or abs(x - y) <= rel_tol * max(Fraction(1), abs(x), abs(y))


def numbers_in(text: str) -> list[tuple[float, int]]:
    """Numbers in a text as (value, decimals written); thousands commas are read as grouping."""
    plain = [match.replace(",", "") for match in _FACT_NUMBER.findall(text)]
    return [(float(number), len(number.partition(".")[2])) for number in plain]


def fact_found(fact: str, answer: str) -> bool:
    """A numeric fact: some number of the answer rounds to it at the fact's precision (18.4 and 18.40 both give
    18.40; 650 is not 65). Any other fact: the phrase appears as whole words, ignoring case and spacing."""
    if _NUMERIC_FACT.match(fact):
        value, decimals = numbers_in(fact)[0]
        return any(round(number, decimals) == round(value, decimals) for number, _ in numbers_in(answer))
    phrase = r"\s+".join(re.escape(word) for word in fact.split())
    return re.search(rf"(?<!\w){phrase}(?!\w)", answer, re.IGNORECASE) is not None
