"""Facts in a free-text answer: numbers with the precision they were written in, and exact phrases."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?")
_NUMERIC_FACT = re.compile(r"^-?\d+(?:\.\d+)?$")


def numbers_in(text: str) -> list[tuple[float, int]]:
    """Numbers in a text as (value, decimals written); thousands commas are read as grouping."""
    plain = [match.replace(",", "") for match in _NUMBER.findall(text)]
    return [(float(number), len(number.partition(".")[2])) for number in plain]


def fact_found(fact: str, answer: str) -> bool:
    """A numeric fact: some number of the answer rounds to it at the fact's precision (18.4 and 18.40 both give
    18.40; 650 is not 65). Any other fact: the phrase appears as whole words, ignoring case and spacing."""
    if _NUMERIC_FACT.match(fact):
        value, decimals = numbers_in(fact)[0]
        return any(round(number, decimals) == round(value, decimals) for number, _ in numbers_in(answer))
    phrase = r"\s+".join(re.escape(word) for word in fact.split())
    return re.search(rf"(?<!\w){phrase}(?!\w)", answer, re.IGNORECASE) is not None
