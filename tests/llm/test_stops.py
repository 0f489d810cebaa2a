"""Stop rules end a reply where its answer is complete: a prefix that keeps the graded answer, never inside a code
block or a program."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_evolve.benchmarks.support.answers import extract_number
from agent_evolve.benchmarks.support.code_extraction import extract_code
from agent_evolve.llm.stops import StopRule, answer_line_end, closed_python_block_end, stop_rule

RECORDED = Path(__file__).resolve().parents[2] / "experiments" / "probes"
GSM8K_REPLY = ("Step 1: 3 action figures * $5/figure = $15\nStep 2: 5 red cars * $4/car = $20\n"
               "Total cost = $15 + $20 = $35\n\nAnswer: 35")
CODE_REPLY = ('```python\ndef add(a: int, b: int) -> int:\n    """Sum."""\n    return a + b\n```')


def cut(text: str, kind: str) -> str:
    rule = stop_rule(kind)
    assert rule is not None
    end = rule.complete_at(text)
    return text if end is None else text[:end]


def test_a_reply_that_goes_on_after_its_answer_line_is_cut_after_that_line() -> None:
    reply = GSM8K_REPLY + "\n\nExplanation: the total is the sum of both costs, 15 + 20.\n"
    kept = cut(reply, "number")
    assert kept == GSM8K_REPLY and reply.startswith(kept)
    assert extract_number(kept) == extract_number(reply) == "35"


def test_an_unfinished_answer_line_is_not_taken_for_the_answer() -> None:
    assert answer_line_end("Total = 120\nAnswer: 12") is None  # the model may still write "120"
    assert answer_line_end("Answer: 120\n") == len("Answer: 120")
    assert answer_line_end("The answer is 7 because 3 + 4.\nAnswer: the number\n") is None
    assert answer_line_end("**Final Answer:** $1,250.50\n") is not None


def test_an_answer_printed_inside_a_program_block_does_not_end_the_reply() -> None:
    reply = '```python\nprint("Answer: 5")\n# Answer: 5\n```\nAnswer: 6\nmore'
    assert reply[:answer_line_end(reply)].endswith("Answer: 6")


def test_a_code_reply_ends_after_the_closing_fence_of_its_first_defining_block() -> None:
    reply = CODE_REPLY + "\n\nExample usage:\n```python\nprint(add(1, 2))\n```\n"
    kept = cut(reply, "code")
    assert kept == CODE_REPLY
    assert extract_code(kept, "add") == extract_code(reply, "add")


def test_a_code_block_is_never_cut_short() -> None:
    for end in range(len(CODE_REPLY)):  # every prefix of a block still being written
        assert closed_python_block_end(CODE_REPLY[:end]) is None
    assert closed_python_block_end(CODE_REPLY) is None  # the closing fence line is not finished yet
    assert closed_python_block_end(CODE_REPLY + "\n") == len(CODE_REPLY)


def test_a_block_without_a_definition_or_in_another_language_does_not_end_a_code_reply() -> None:
    reply = "```\n>>> add(1, 2)\n3\n```\n```bash\ndef x\n```\n" + CODE_REPLY + "\n"
    assert cut(reply, "code") == reply.rstrip("\n")


@pytest.mark.parametrize(("folder", "kind"), [("results", "number"), ("results-humaneval", "code")])
def test_recorded_replies_keep_their_graded_answer_when_cut(folder: str, kind: str) -> None:
    """The embedded model's recorded replies (experiments/probes), each with a trailing newline and a chatty
    continuation appended: the cut keeps a prefix holding the same extracted answer."""
    paths = sorted((RECORDED / folder).glob("*.jsonl"))
    assert paths
    replies = [json.loads(line)["output"] for path in paths for line in path.read_text().splitlines()[:20]]
    ended = 0
    for reply in replies:
        extended = reply + "\n\nI hope this helps! Let me know if you have any other questions.\n"
        kept = cut(extended, kind)
        assert extended.startswith(kept)
        if kind == "number":
            assert extract_number(kept) == extract_number(reply)
        else:
            assert extract_code(kept, "f") == extract_code(reply, "f")
        ended += kept != extended
    assert ended > len(replies) // 2


def test_rules_are_keyed_by_plain_kinds_and_are_the_stop_list_providers_take() -> None:
    rule = stop_rule("number")
    assert isinstance(rule, StopRule) and isinstance(rule, list) and list(rule) == []
    assert stop_rule("free") is None and stop_rule(None) is None
