"""The same tool-loop scenario (two tool calls, then an answer) against every HTTP provider's wire format."""

from __future__ import annotations

import pytest
from conftest import HTTP_PROVIDERS
from wire_servers import ADD_PARAMETERS, SCENARIOS

from agent_evolve.llm.base import Message, ToolSpec
from agent_evolve.llm.metered import MeteredClient
from agent_evolve.llm.providers.bedrock_converse import BedrockConverseClient
from agent_evolve.llm.tool_loop import Tool, run_tool_loop
from agent_evolve.llm.usage import UsageLedger

PROMPT = [Message("system", "You add numbers."), Message("user", "Add 2 and 3, then add 10 to that.")]


def run_add_scenario(client: object) -> list[dict]:
    seen: list[dict] = []

    def add(args: dict) -> str:
        seen.append(args)
        return str(args["a"] + args["b"])

    result = run_tool_loop(client, list(PROMPT), [Tool(ToolSpec("add", "Add two numbers.", ADD_PARAMETERS), add)],
                           max_turns=5)
    assert result.stop_reason == "final"
    assert result.text == "The total is 15."
    assert result.turns == 3
    assert [e.output for e in result.executed] == ["5", "15"]
    assert [m.role for m in result.messages] == ["system", "user", "assistant", "tool", "assistant", "tool",
                                                 "assistant"]
    return seen


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_tool_loop_scenario_over_the_wire(provider, serve, client_for):
    server = serve(SCENARIOS[provider])
    client = client_for(provider, server)
    assert run_add_scenario(client) == [{"a": 2, "b": 3}, {"a": 5, "b": 10}]
    assert len(server.requests) == 3
    usage = client.ledger.total("agent")
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (3, 30, 15)


def test_tool_loop_scenario_on_bedrock_with_stubber():
    boto3 = pytest.importorskip("boto3")
    from botocore.stub import Stubber

    runtime = boto3.client("bedrock-runtime", region_name="us-east-1")
    tool_config = {"tools": [{"toolSpec": {"name": "add", "description": "Add two numbers.",
                                           "inputSchema": {"json": ADD_PARAMETERS}}}]}
    system = [{"text": "You add numbers."}]
    user = {"role": "user", "content": [{"text": "Add 2 and 3, then add 10 to that."}]}
    first_call = {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "add",
                                                                 "input": {"a": 2, "b": 3}}}]}
    second_call = {"role": "assistant", "content": [{"text": "Adding ten."}, {"toolUse": {
        "toolUseId": "t2", "name": "add", "input": {"a": 5, "b": 10}}}]}

    def result(tool_id: str, text: str) -> dict:
        return {"role": "user", "content": [{"toolResult": {"toolUseId": tool_id, "content": [{"text": text}]}}]}

    def response(message: dict, stop: str) -> dict:
        return {"output": {"message": message}, "stopReason": stop,
                "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}, "metrics": {"latencyMs": 1}}

    common = {"modelId": "us.anthropic.claude-test-v1", "system": system, "toolConfig": tool_config,
              "inferenceConfig": {"temperature": 0.0}}
    final = {"role": "assistant", "content": [{"text": "The total is 15."}]}
    with Stubber(runtime) as stubber:
        stubber.add_response("converse", response(first_call, "tool_use"), {**common, "messages": [user]})
        stubber.add_response("converse", response(second_call, "tool_use"),
                             {**common, "messages": [user, first_call, result("t1", "5")]})
        stubber.add_response("converse", response(final, "end_turn"),
                             {**common, "messages": [user, first_call, result("t1", "5"), second_call,
                                                     result("t2", "15")]})
        inner = BedrockConverseClient("bedrock/us.anthropic.claude-test-v1", "us.anthropic.claude-test-v1",
                                      client=runtime)
        ledger = UsageLedger()
        assert run_add_scenario(MeteredClient(inner, ledger=ledger)) == [{"a": 2, "b": 3}, {"a": 5, "b": 10}]
        stubber.assert_no_pending_responses()
    assert ledger.total().calls == 3


def test_tool_arguments_that_are_not_json_are_sent_back_as_such_and_the_tool_is_not_run(serve, client_for):
    from wire_servers import Reply, openai_body

    def respond(request):
        if len(server.requests) > 1:
            return Reply(body=openai_body("gave up", []))
        body = openai_body(None, [("c1", "note", {})])
        body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"text": "unterminated'
        return Reply(body=body)

    server = serve(respond)
    ran: list[dict] = []
    note = Tool(ToolSpec("note", "Keep a note."), lambda args: ran.append(args) or "kept")
    result = run_tool_loop(client_for("openai", server), list(PROMPT), [note])
    assert not ran and not result.executed[0].ran
    sent = server.requests[1].body["messages"][-1]
    assert sent["role"] == "tool" and "not valid JSON" in sent["content"] and "unterminated" in sent["content"]
