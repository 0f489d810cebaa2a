"""The shipped MCP server over `world.py`: `python -m agent_evolve.benchmarks.suites.mcp_mini.server` (stdio, needs
the `[mcp]` extra). A query's ValueError becomes a ToolError, so the model reads it and can correct its call."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from agent_evolve.benchmarks.suites.mcp_mini import world

SERVER_NAME = "harbor"
QUERIES: tuple[Callable[..., Any], ...] = (
    world.search_items, world.item_details, world.stock_level, world.find_person, world.search_events,
    world.search_notes, world.read_note, world.convert_units,
)


def build_server() -> Any:
    """The server with every world query registered as a tool."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    def reported(query: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(query)
        def tool(*args: Any, **kwargs: Any) -> Any:
            try:
                return query(*args, **kwargs)
            except ValueError as exc:
                raise ToolError(str(exc)) from exc

        return tool

    server = MCPServer(SERVER_NAME, instructions="Stock, staff, calendar and notes of Harbor Lane Outfitters.")
    for query in QUERIES:
        server.tool()(reported(query))
    return server


if __name__ == "__main__":
    build_server().run()
