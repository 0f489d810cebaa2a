"""MCP tools as tool-loop `Tool`s: name-spaced `<server>__<tool>`, schema passed through, results bounded."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent_evolve.agents.tools import DEFAULT_MAX_OUTPUT_CHARS, _truncate
from agent_evolve.llm.base import ToolSpec
from agent_evolve.llm.tool_loop import Tool
from agent_evolve.mcp.client import DEFAULT_CALL_TIMEOUT_S, McpClient, McpToolInfo, tool_name
from agent_evolve.mcp.config import McpServerConfig, merge_servers, task_servers, workspace_servers
from agent_evolve.types import Task

ENABLED_KEY = "mcp_enabled_tools"


def as_tools(client: McpClient, max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS) -> list[Tool]:
    """One `Tool` per listed MCP tool; calling it calls the server through the client."""

    def make(info: McpToolInfo) -> Tool:
        def call(arguments: dict[str, Any]) -> str:
            return _truncate(client.call(info.server, info.name, arguments), max_output_chars)

        schema = dict(info.input_schema)  # an object schema even when the server omits the type
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        return Tool(ToolSpec(tool_name(info.server, info.name), f"[{info.server}] {info.description}".strip(), schema),
                    call)

    return [make(info) for info in client.tools]


@contextmanager
def mcp_tools(servers: list[McpServerConfig], *,
              call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S) -> Iterator[list[Tool]]:
    """The servers' tools for the block; the servers are stopped when it ends, also on an error."""
    if not servers:
        yield []
        return
    with McpClient(servers, call_timeout_s=call_timeout_s) as client:
        yield as_tools(client)


def servers_for(workspace_path: str | Path, task: Task) -> list[McpServerConfig]:
    """The workspace manifest's servers, overridden and extended by the task's own."""
    return merge_servers(workspace_servers(workspace_path), task_servers(task))


@contextmanager
def task_mcp_tools(workspace_path: str | Path, task: Task, *,
                   call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S) -> Iterator[list[Tool]]:
    """The MCP tools of one attempt at `task` (none without servers), narrowed to `metadata["mcp_enabled_tools"]`
    when the task lists them; its servers stop with the attempt."""
    enabled = task.metadata.get(ENABLED_KEY)
    with mcp_tools(servers_for(workspace_path, task), call_timeout_s=call_timeout_s) as tools:
        yield tools if enabled is None else [tool for tool in tools if tool.name in set(enabled)]
