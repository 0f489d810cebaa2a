"""The local model's pieces that need no model: Qwen tool-call text, part joining and checksum handling."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent_evolve.errors import MissingDependencyError
from agent_evolve.llm.providers import llama_cpp_local as local_model
from agent_evolve.llm.base import Message, ToolCall, ToolSpec
from agent_evolve.llm.errors import ModelChecksumError
from agent_evolve.llm.providers.llama_cpp_local import ensure_model_file, hash_files, is_verified, part_paths
from agent_evolve.llm.models import LOCAL_MODELS, LocalModelSpec
from agent_evolve.llm.providers import llama_cpp_local
from agent_evolve.llm.providers.llama_engine import Generation
from agent_evolve.llm.qwen_tools import DEFAULT_SYSTEM, RESULTS_NUDGE, parse_tool_calls, to_chat_messages

ADD = ToolSpec("add", "Add two numbers.", {"type": "object", "properties": {"a": {"type": "number"}}})


def test_tool_call_blocks_are_parsed_out_of_the_text():
    text = ('Let me add.\n<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>\n'
            '<tool_call>{"name": "add", "arguments": "{\\"a\\": 3}"}</tool_call>')
    rest, calls = parse_tool_calls(text)
    assert rest == "Let me add."
    assert [(c.name, c.arguments) for c in calls] == [("add", {"a": 1, "b": 2}), ("add", {"a": 3})]
    assert len({c.id for c in calls}) == 2


def test_unclosed_bad_and_bare_calls():
    assert parse_tool_calls('<tool_call>\n{"name": "add", "arguments": {"a": 1}}')[1][0].arguments == {"a": 1}
    rest, calls = parse_tool_calls("<tool_call>not json</tool_call> plain")
    assert calls == [] and "not json" in rest
    assert parse_tool_calls('{"name": "add", "arguments": {"a": 5}}', {"add"})[1][0].name == "add"
    assert parse_tool_calls('{"name": "other", "arguments": {}}', {"add"})[1] == []
    echoed = '{"name": "add", "arguments": {"a": 1}, "result": "1"}'  # an echo of a finished call
    assert parse_tool_calls(echoed, {"add"}) == (echoed, [])
    assert parse_tool_calls("The answer is 72.", {"add"}) == ("The answer is 72.", [])
    signature = '<tools>\n{"type": "function", "function": {"name": "add"}}\n</tools>'
    wrapped = f'{signature}\nCalling it:\n<tools>\n{{"name": "add", "arguments": {{"a": 2}}}}\n</tools>'
    rest, calls = parse_tool_calls(wrapped, {"add"})
    assert [(c.name, c.arguments) for c in calls] == [("add", {"a": 2})] and rest.endswith("Calling it:")
    assert parse_tool_calls('<tools>{"name": "rm", "arguments": {}}</tools>', {"add"})[1] == []


def test_a_call_in_a_json_block_inside_prose_is_the_first_known_one():
    planned = ("I'll search first, then look the person up.\n\n```json\n"
               '{"name": "search", "arguments": {"query": "drill"}}\n```\n\nThen:\n```json\n'
               '{"name": "find_person", "arguments": {"name": "<organiser>"}}\n```')
    rest, calls = parse_tool_calls(planned, {"search", "find_person"})
    assert [(c.name, c.arguments) for c in calls] == [("search", {"query": "drill"})]
    assert rest == "I'll search first, then look the person up."
    unknown = 'Example:\n```json\n{"name": "rm", "arguments": {}}\n```\nThe answer is 4.'
    assert parse_tool_calls(unknown, {"search"}) == (unknown, [])
    data = 'The record:\n```json\n{"name": "Ada", "office": "Oslo"}\n```'  # data, not a call: no known tool
    assert parse_tool_calls(data, {"search"})[1] == []
    assert parse_tool_calls(planned)[1] == [], "without tool names no block in prose is a call"


def test_tools_calls_and_results_render_as_qwen_text():
    messages = [
        Message("user", "add 1 and 2"),
        Message("assistant", "", tool_calls=[ToolCall("c1", "add", {"a": 1, "b": 2})]),
        Message("tool", "3", tool_call_id="c1", name="add"),
        Message("tool", "4", tool_call_id="c2", name="add"),
    ]
    chat = to_chat_messages(messages, [ADD])
    assert chat[0]["role"] == "system" and chat[0]["content"].startswith(DEFAULT_SYSTEM)
    tools_line = chat[0]["content"].split("<tools>\n")[1].split("\n</tools>")[0]
    assert json.loads(tools_line)["function"]["name"] == "add"
    assert chat[2] == {"role": "assistant",
                       "content": '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>'}
    assert chat[3] == {"role": "user", "content": "<tool_response>\n3\n</tool_response>\n<tool_response>\n4\n"
                                                  f"</tool_response>\n\n{RESULTS_NUDGE}"}
    assert to_chat_messages([Message("system", "Be brief."), Message("user", "hi")], None) == [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]


def _parts(tmp_path: Path, chunks: list[bytes]) -> tuple[list[Path], str]:
    paths = []
    for i, chunk in enumerate(chunks):
        path = tmp_path / "parts" / f"part{i:02d}.bin"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(chunk)
        paths.append(path)
    return paths, hashlib.sha256(b"".join(chunks)).hexdigest()


SPEC = LOCAL_MODELS["qwen2.5-coder-1.5b"]


def test_parts_are_joined_in_order_verified_and_not_rehashed(tmp_path, monkeypatch):
    parts, sha = _parts(tmp_path, [b"alpha-", b"beta-", b"gamma"])
    target = ensure_model_file(SPEC, directory=tmp_path / "cache", parts=parts, expected_sha256=sha)
    assert target.read_bytes() == b"alpha-beta-gamma"
    assert is_verified(target, sha) and not is_verified(target, "0" * 64)
    monkeypatch.setattr(local_model, "hash_files", lambda paths: pytest.fail("rehashed a verified file"))
    for part in parts:
        part.unlink()  # a verified cache needs neither the parts nor a rehash
    assert ensure_model_file(SPEC, directory=tmp_path / "cache", parts=[], expected_sha256=sha) == target


def test_a_changed_file_is_rehashed_and_rejoined(tmp_path):
    parts, sha = _parts(tmp_path, [b"one", b"two"])
    target = ensure_model_file(SPEC, directory=tmp_path, parts=parts, expected_sha256=sha)
    target.write_bytes(b"corrupted!")
    os.utime(target, ns=(1, 1))
    assert not is_verified(target, sha)
    assert ensure_model_file(SPEC, directory=tmp_path, parts=parts, expected_sha256=sha).read_bytes() == b"onetwo"


def test_a_checksum_mismatch_names_file_and_hashes_and_deletes_only_the_joined_file(tmp_path):
    parts, sha = _parts(tmp_path, [b"good", b"bad"])
    wrong = "f" * 64
    with pytest.raises(ModelChecksumError) as info:
        ensure_model_file(SPEC, directory=tmp_path / "cache", parts=parts, expected_sha256=wrong)
    message = str(info.value)
    assert SPEC.filename in message and wrong in message and sha in message
    assert list((tmp_path / "cache").iterdir()) == []  # no joined file, no temp file left
    assert all(p.is_file() for p in parts)
    assert hash_files(parts) == sha


def test_missing_parts_and_missing_llama_cpp_say_what_to_install(monkeypatch):
    spec = LocalModelSpec("fake", ("no_such_part_module_1",), "pip install fake-parts", "0" * 64, "f.gguf")
    with pytest.raises(MissingDependencyError, match="pip install fake-parts"):
        part_paths(spec)
    from agent_evolve.llm.providers import llama_cpp_local

    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(MissingDependencyError) as info:
        llama_cpp_local.load_model(spec, n_ctx=123)
    assert "agent-evolve[local]" in str(info.value) and "GGML_NATIVE=OFF" in str(info.value)


def test_the_cache_directory_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENT_EVOLVE_CACHE", str(tmp_path))
    assert local_model.cache_dir() == tmp_path / "models"
    monkeypatch.delenv("AGENT_EVOLVE_CACHE")
    assert local_model.cache_dir() == Path.home() / ".cache" / "agent-evolve" / "models"


def test_a_repeated_sampled_request_gets_a_new_seed_and_a_greedy_one_keeps_its_own(monkeypatch):
    seeds: list[tuple[float, int]] = []

    def generate(prompt, *, max_tokens, stops, temperature, seed, deadline, complete_at=None):
        seeds.append((temperature, seed))
        return Generation("ok", len(prompt), 1, 0, "stop")

    engine = SimpleNamespace(prompt_tokens=lambda chat: ([1, 2, 3], ()), generate=generate)
    monkeypatch.setattr(llama_cpp_local, "load_model", lambda spec, **_: SimpleNamespace(engine=engine))
    spec = next(iter(LOCAL_MODELS.values()))
    client = llama_cpp_local.LocalLlamaClient("local/x", spec, seed=3)
    ask = [Message("user", "pick a number")]
    for temperature in (0.8, 0.8, 0.8, 0.0, 0.0):
        client.complete(ask, temperature=temperature)
    sampled = [seed for temperature, seed in seeds if temperature > 0]
    assert sampled[0] == 3 and len(set(sampled)) == 3
    assert [seed for temperature, seed in seeds if temperature == 0] == [3, 3]


def test_a_stop_rule_reaches_the_engine_as_its_completeness_test_and_a_plain_list_as_stop_strings(monkeypatch):
    from agent_evolve.llm.stops import answer_line_end, stop_rule

    seen: list[tuple[tuple[str, ...], object]] = []

    def generate(prompt, *, max_tokens, stops, temperature, seed, deadline, complete_at=None):
        seen.append((stops, complete_at))
        return Generation("Answer: 4", len(prompt), 1, 0, "stop")

    engine = SimpleNamespace(prompt_tokens=lambda chat: ([1, 2, 3], ("<|im_end|>",)), generate=generate)
    monkeypatch.setattr(llama_cpp_local, "load_model", lambda spec, **_: SimpleNamespace(engine=engine))
    client = llama_cpp_local.LocalLlamaClient("local/x", next(iter(LOCAL_MODELS.values())))
    client.complete([Message("user", "2 + 2?")], stop=stop_rule("number"))
    client.complete([Message("user", "2 + 2?")], stop=["###"])
    assert seen == [(("<|im_end|>",), answer_line_end), (("###", "<|im_end|>"), None)]


def test_llama_cpp_errors_are_reported_but_its_chatter_and_known_benign_errors_are_not():
    from agent_evolve.llm.providers.llama_engine import GGML_ERROR, reported_log_line

    assert reported_log_line(GGML_ERROR, "llama_model_load: error loading model\n") == \
        "llama_model_load: error loading model"
    assert reported_log_line(2, "llama_context: n_batch = 512\n") is None
    assert reported_log_line(GGML_ERROR, "llama_context: n_ctx_seq (65536) > n_ctx_train (32768) -- possible "
                                         "training context overflow\n") is None
    assert reported_log_line(GGML_ERROR, "\n") is None
