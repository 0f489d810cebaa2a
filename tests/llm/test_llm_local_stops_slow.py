"""The real embedded model with stop rules: a reply cut where its answer is complete is a prefix of the uncut one."""

from __future__ import annotations

import pytest

from agent_evolve.benchmarks.support.answers import extract_number
from agent_evolve.benchmarks.support.code_extraction import extract_code
from agent_evolve.llm.base import Message
from agent_evolve.llm.factory import make_client
from agent_evolve.llm.models import DEFAULT_MODEL
from agent_evolve.llm.stops import stop_rule
from agent_evolve.llm.usage import UsageLedger

pytestmark = pytest.mark.slow

pytest.importorskip(
    "llama_cpp",
    reason="llama-cpp-python is not installed: CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install 'agent-evolve[local]'",
)

CASES = [  # prompts asking for more after the answer, so the uncut reply goes on past it
    ("number", "Reply with exactly three lines and nothing else:\nWork: <the calculation>\nAnswer: <number>\n"
               "Check: <the calculation done another way>",
     "Natalia sold 48 clips in April and 24 clips in May. How many clips did she sell in all?"),
    ("code", "Reply with the function in one ```python block. After the block, show an example call in a second "
             "```python block and explain it.",
     "Write a Python function add(a, b) that returns the sum of a and b."),
]


@pytest.mark.parametrize(("kind", "system", "user"), CASES)
def test_a_stop_cut_greedy_reply_is_a_prefix_of_the_uncut_one(kind: str, system: str, user: str) -> None:
    client = make_client(DEFAULT_MODEL, ledger=UsageLedger())
    messages = [Message("system", system), Message("user", user)]
    client.complete(messages, max_tokens=1)  # both replies below start from the same cached prompt
    uncut = client.complete(messages, max_tokens=160)
    cut = client.complete(messages, max_tokens=160, stop=stop_rule(kind))
    assert uncut.text.startswith(cut.text)
    assert len(cut.text) < len(uncut.text) and cut.usage.output_tokens < uncut.usage.output_tokens
    if kind == "number":
        assert extract_number(cut.text) is not None
    else:
        assert cut.text.endswith("```") and extract_code(cut.text, "add").kind == "function"
