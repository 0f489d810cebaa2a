"""The tool loop's edge cases, structured output with repair, and the scripted fake client."""

from __future__ import annotations

import pytest

from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import Completion, LLMClient, Message, ToolCall, ToolSpec
from agent_evolve.llm.errors import StructuredOutputError, ToolLoopError
from agent_evolve.llm.structured import complete_json, extract_json
from agent_evolve.llm.tool_loop import Tool, run_tool_loop
from agent_evolve.testing import ScriptedLLM, ScriptExhaustedError
from agent_evolve.types import Usage

ECHO = Tool(ToolSpec("echo", "Echo text.", {"type": "object", "properties": {"text": {"type": "string"}},
                                            "required": ["text"]}), lambda args: args["text"])
USER = [Message("user", "go")]


def calls(*pairs: tuple[str, dict]) -> Completion:
    return Completion("", [ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(pairs)],
                      finish_reason="tool_calls", usage=Usage(calls=1, input_tokens=3, output_tokens=2))


def test_an_unknown_tool_gets_an_error_string_and_the_loop_goes_on():
    llm = ScriptedLLM([calls(("nope", {})), "done"])
    result = run_tool_loop(llm, USER, [ECHO])
    assert result.stop_reason == "final" and result.text == "done" and result.turns == 2
    assert result.executed[0].error and "unknown tool 'nope'" in result.executed[0].output
    assert "available tools: echo" in llm.calls[1].messages[-1].content
    assert llm.calls[1].messages[-1].role == "tool" and llm.calls[1].messages[-1].tool_call_id == "c0"


def test_a_raising_tool_and_invalid_arguments_become_error_text():
    def boom(args: dict) -> str:
        raise RuntimeError("disk on fire")

    fail = Tool(ToolSpec("fail", "Fails.", {"type": "object", "properties": {}}), boom)
    llm = ScriptedLLM([calls(("fail", {}), ("echo", {"text": 3})), calls(("echo", {"text": "hi"})), "ok"])
    result = run_tool_loop(llm, USER, [ECHO, fail])
    outputs = [e.output for e in result.executed]
    assert "RuntimeError: disk on fire" in outputs[0]
    assert "invalid arguments for echo" in outputs[1]
    assert outputs[2] == "hi" and not result.executed[2].error
    assert result.usage.calls == 3  # usage of every turn is summed


def test_the_loop_stops_at_max_turns():
    llm = ScriptedLLM([calls(("echo", {"text": str(i)})) for i in range(10)])
    result = run_tool_loop(llm, USER, [ECHO], max_turns=3)
    assert result.stop_reason == "max_turns" and result.turns == 3 and len(llm.calls) == 3
    assert [e.output for e in result.executed] == ["0", "1", "2"]
    with pytest.raises(ToolLoopError):
        run_tool_loop(llm, USER, [ECHO], max_turns=0)
    with pytest.raises(ToolLoopError, match="two tools"):
        run_tool_loop(llm, USER, [ECHO, ECHO])


SCHEMA = {"type": "object", "properties": {"score": {"type": "integer"}}, "required": ["score"]}


def test_json_valid_the_first_time():
    llm = ScriptedLLM(['Sure:\n```json\n{"score": 7}\n```'])
    assert complete_json(llm, [Message("user", "rate it")], SCHEMA) == {"score": 7}
    assert "JSON Schema" in llm.calls[0].messages[-1].content and len(llm.calls) == 1


def test_invalid_json_is_repaired_once():
    llm = ScriptedLLM(['{"score": "high"}', '{"score": 9}'])
    assert complete_json(llm, [Message("user", "rate it")], SCHEMA, max_tokens=20) == {"score": 9}
    repair = llm.calls[1].messages[-1].content
    assert "score" in repair and "not of type 'integer'" in repair
    assert llm.calls[1].max_tokens == 20


def test_invalid_twice_raises_with_the_raw_text():
    llm = ScriptedLLM(["no idea", "still no JSON"])
    with pytest.raises(StructuredOutputError) as info:
        complete_json(llm, [Message("user", "rate it")], SCHEMA)
    assert info.value.raw_text == "still no JSON" and len(llm.calls) == 2


def test_json_cut_at_the_length_limit_says_so():
    llm = ScriptedLLM([Completion('{"score": ', finish_reason="length")] * 2)
    with pytest.raises(StructuredOutputError, match="cut at its length limit, max_tokens=4"):
        complete_json(llm, [Message("user", "rate it")], SCHEMA, max_tokens=4)
    assert "cut at its length limit" in llm.calls[1].messages[-1].content


def test_extract_json_finds_values_in_prose():
    assert extract_json('The answer is {"a": [1, 2]} as requested.') == {"a": [1, 2]}
    assert extract_json("```\n[1, 2]\n```") == [1, 2]
    with pytest.raises(ValueError):
        extract_json("nothing here")


def test_scripted_llm_replays_records_and_runs_out_clearly():
    llm = ScriptedLLM(["one", Completion("two", finish_reason="length"), lambda msgs: f"saw {len(msgs)}"])
    assert isinstance(llm, LLMClient)
    assert llm.complete(USER, max_tokens=5, stop=["x"]).text == "one"
    assert llm.complete(USER).truncated
    assert llm.complete(USER + USER).text == "saw 2"
    assert llm.calls[0].max_tokens == 5 and llm.calls[0].stop == ["x"] and llm.remaining == 0
    with pytest.raises(ScriptExhaustedError, match="has 3 response"):
        llm.complete(USER)
    assert issubclass(ScriptExhaustedError, AgentEvolveError)
    assert llm.calls[0].messages[0] is not USER[0]  # copies, not the caller's objects
