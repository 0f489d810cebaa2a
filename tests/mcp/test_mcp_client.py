"""The MCP client against real stdio servers through the SDK: tools listed and called, limits, clean stops."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_helpers import harbor, server_processes

from agent_evolve.agents.mcp_tools import as_tools, mcp_tools
from agent_evolve.mcp import McpClient, McpError, McpServerConfig

pytest.importorskip("mcp")


@pytest.fixture(scope="module")
def client() -> Iterator[McpClient]:
    with McpClient([harbor()]) as opened:
        yield opened


def test_the_shipped_server_lists_its_tools_name_spaced_with_their_schemas(client: McpClient) -> None:
    tools = {tool.name: tool for tool in as_tools(client)}
    assert {"harbor__search_items", "harbor__stock_level", "harbor__convert_units", "harbor__read_note"} <= set(tools)
    schema = tools["harbor__convert_units"].spec.parameters
    assert schema["type"] == "object" and set(schema["required"]) == {"value", "from_unit", "to_unit"}
    assert tools["harbor__stock_level"].spec.description.startswith("[harbor] Units of an item in stock")


def test_a_call_returns_the_server_result_and_a_bad_argument_is_an_error_the_model_can_read(client: McpClient) -> None:
    stock = {tool.name: tool for tool in as_tools(client)}["harbor__stock_level"]
    assert '"north": 38' in stock.fn({"sku": "TW-114"})
    with pytest.raises(McpError, match="no item with SKU 'XX-1'; find SKUs with search_items"):
        stock.fn({"sku": "XX-1"})


def test_results_are_cut_to_the_limit_with_the_size_said(client: McpClient) -> None:
    search = {tool.name: tool for tool in as_tools(client, max_output_chars=20)}["harbor__search_items"]
    result = search.fn({"query": "drinkware"})
    assert result.startswith(client.call("harbor", "search_items", {"query": "drinkware"})[:20])
    assert "more characters cut]" in result


def test_servers_stop_when_the_block_ends_also_on_an_error() -> None:
    before = set(server_processes())
    with pytest.raises(RuntimeError, match="the task failed"), mcp_tools([harbor()]) as tools:
        started = set(server_processes()) - before
        assert tools and started
        raise RuntimeError("the task failed")
    assert started.isdisjoint(server_processes())


def test_a_server_that_dies_at_start_is_an_error_with_its_stderr() -> None:
    dying = McpServerConfig("dying", "python", ("-c", "import sys; sys.stderr.write('boom at start'); sys.exit(3)"))
    with pytest.raises(McpError, match=r"(?s)\['dying'\] failed to start: MCPError: .*\[dying stderr\] boom at start"):
        McpClient([dying], start_timeout_s=20).open()


def test_a_server_that_never_answers_is_stopped_after_the_start_timeout() -> None:
    script = "import sys, time; sys.stderr.write('still loading'); sys.stderr.flush(); time.sleep(120)"
    with pytest.raises(McpError, match=r"(?s)'mute' \(python\) did not start within 2s.*still loading"):
        McpClient([McpServerConfig("mute", "python", ("-c", script))], start_timeout_s=2).open()
    assert server_processes("time.sleep(120)") == []


def test_a_call_past_the_timeout_is_stopped_and_the_session_still_answers() -> None:
    slow = McpServerConfig("slow", sys.executable, (str(Path(__file__).with_name("slow_server.py")),))
    with McpClient([slow], call_timeout_s=1.0) as opened:
        with pytest.raises(McpError, match="did not answer within 1s"):
            opened.call("slow", "nap", {"seconds": 5})
        assert opened.call("slow", "nap", {"seconds": 0}) == "slept 0.0"
