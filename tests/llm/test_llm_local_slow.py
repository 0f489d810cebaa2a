"""The real embedded model, offline: a GSM8K answer, a tool-loop turn, and calls from several threads."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time

import pytest

from agent_evolve.llm.base import Message, ToolSpec
from agent_evolve.llm.factory import make_client
from agent_evolve.llm.models import DEFAULT_MODEL
from agent_evolve.llm.tool_loop import Tool, run_tool_loop
from agent_evolve.llm.usage import UsageLedger

pytestmark = pytest.mark.slow

pytest.importorskip(
    "llama_cpp",
    reason="llama-cpp-python is not installed: CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install 'agent-evolve[local]'",
)

GSM8K = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
         "How many clips did Natalia sell altogether in April and May?")


@pytest.fixture(scope="module")
def client():
    return make_client(DEFAULT_MODEL, ledger=UsageLedger())


def test_the_embedded_model_answers_a_gsm8k_question(client):
    started = time.perf_counter()
    completion = client.complete(
        [Message("system", "Solve the problem with brief reasoning. End with the final answer as a number."),
         Message("user", GSM8K)],
        max_tokens=320,
    )
    seconds = time.perf_counter() - started
    numbers = re.findall(r"-?\d+(?:\.\d+)?", completion.text.replace(",", ""))
    assert numbers and float(numbers[-1]) == 72, completion.text
    assert completion.usage.output_tokens > 0 and completion.usage.cost == 0.0
    print(f"\nGSM8K: {completion.usage.output_tokens} tokens in {seconds:.1f}s "
          f"= {completion.usage.output_tokens / seconds:.1f} tok/s (incl. prompt)")


def test_the_embedded_model_completes_a_tool_loop_turn(client):
    seen: list[dict] = []

    def add(args: dict) -> str:
        seen.append(args)
        return str(args["a"] + args["b"])

    spec = ToolSpec("add", "Add two integers and return their sum.", {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]})
    result = run_tool_loop(
        client,
        [Message("user", "Use the add tool to compute 1234 + 5678, then tell me the result.")],
        [Tool(spec, add)],
        max_turns=3,
        max_tokens=128,
    )
    assert seen and seen[0] == {"a": 1234, "b": 5678}
    assert result.stop_reason == "final"
    assert "6912" in result.text.replace(",", "")


def test_the_one_instance_is_safe_from_several_threads(client):
    from agent_evolve.llm.models import LOCAL_MODELS
    from agent_evolve.llm.providers.llama_cpp_local import load_model

    assert load_model(LOCAL_MODELS["qwen2.5-coder-1.5b"]) is load_model(LOCAL_MODELS["qwen2.5-coder-1.5b"])
    answers: list[str] = []

    def ask(word: str) -> None:
        text = client.complete([Message("user", f"Reply with the single word: {word}")], max_tokens=8).text
        answers.append(text.lower())

    threads = [threading.Thread(target=ask, args=(w,)) for w in ("apple", "river", "stone")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 3 and all(a.strip() for a in answers)
    assert any("apple" in a for a in answers) and any("river" in a for a in answers)


def test_concurrent_requests_are_batched_and_answer_like_one_at_a_time(client):
    from agent_evolve.llm.models import LOCAL_MODELS
    from agent_evolve.llm.providers.llama_cpp_local import LocalLlamaClient

    local = LocalLlamaClient("local/qwen2.5-coder-1.5b", LOCAL_MODELS["qwen2.5-coder-1.5b"])
    words = ["apple", "river", "stone", "cloud"]
    chats = {w: [Message("system", "You repeat words."), Message("user", f"Reply with the single word: {w}")]
             for w in words}
    alone = {w: local.complete(chats[w], max_tokens=6).text for w in words}
    together: dict[str, str] = {}

    def ask(word: str) -> None:
        together[word] = local.complete(chats[word], max_tokens=6).text

    threads = [threading.Thread(target=ask, args=(w,)) for w in words]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"\n4 concurrent short requests: {time.perf_counter() - started:.1f}s")
    assert sum(w in alone[w].lower() for w in words) >= 3, alone
    assert together == alone, "greedy replies do not depend on what else is in the batch"


def test_a_shared_prompt_prefix_is_read_once(client):
    from agent_evolve.llm.llama_batching import common_prefix
    from agent_evolve.llm.models import LOCAL_MODELS
    from agent_evolve.llm.providers.llama_cpp_local import load_model

    engine = load_model(LOCAL_MODELS["qwen2.5-coder-1.5b"]).engine
    system = {"role": "system", "content": "Answer briefly. " + "Use plain words and short sentences. " * 30}
    first, _ = engine.prompt_tokens([system, {"role": "user", "content": "Name a colour."}])
    second, _ = engine.prompt_tokens([system, {"role": "user", "content": "Name a fruit."}])
    options = {"max_tokens": 1, "stops": (), "temperature": 0.0, "seed": 0, "deadline": None}
    assert engine.generate(first, **options).cached_tokens < 10
    shared = common_prefix(first, second)
    assert shared > 200
    assert engine.generate(second, **options).cached_tokens == shared


def test_the_local_model_stops_at_its_deadline():
    from agent_evolve.llm.errors import LLMTimeoutError
    from agent_evolve.llm.models import LOCAL_MODELS
    from agent_evolve.llm.providers.llama_cpp_local import LocalLlamaClient

    local = LocalLlamaClient("local/qwen2.5-coder-1.5b", LOCAL_MODELS["qwen2.5-coder-1.5b"], timeout_s=1.5)
    started = time.perf_counter()
    with pytest.raises(LLMTimeoutError, match="no answer within 1.5s") as info:
        local.complete([Message("user", "Count from one to five hundred in words.")], max_tokens=2000)
    # it stops within one decode step of the deadline; 2,000 tokens would take minutes even on quiet cores
    assert time.perf_counter() - started < 30.0 and not info.value.retryable


def test_loading_the_embedded_model_prints_no_llama_cpp_warnings():
    code = ("from agent_evolve.llm.base import Message; from agent_evolve.llm.factory import make_client; "
            "from agent_evolve.llm.models import DEFAULT_MODEL; "
            "print(make_client(DEFAULT_MODEL).complete([Message('user', 'Say hi.')], max_tokens=4).text)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert "n_ctx" not in done.stderr and "llama" not in done.stderr.lower(), done.stderr
