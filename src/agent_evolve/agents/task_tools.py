"""The tools a task brings to one attempt: its MCP servers' tools and, for an ARC-AGI-3 game, the action tool.

Everything they start (server processes, a game's scorecard) stops when the attempt ends, also on an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from agent_evolve.agents.arc_game import arc_game_tools
from agent_evolve.agents.mcp_tools import task_mcp_tools
from agent_evolve.llm.tool_loop import Tool
from agent_evolve.mcp.client import DEFAULT_CALL_TIMEOUT_S
from agent_evolve.types import Task


@contextmanager
def task_tools(workspace_path: str | Path, task: Task, *,
               call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S) -> Iterator[list[Tool]]:
    """The task's tools for the block: MCP tools of the workspace's and the task's servers, then the game's."""
    with ExitStack() as stack:
        tools = stack.enter_context(task_mcp_tools(workspace_path, task, call_timeout_s=call_timeout_s))
        yield tools + stack.enter_context(arc_game_tools(task))
