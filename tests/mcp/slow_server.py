"""A test MCP server with one tool that sleeps, to exercise the client's call timeout."""

from __future__ import annotations

import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("slow")


@server.tool()
def nap(seconds: float) -> str:
    """Sleep, then say so."""
    time.sleep(seconds)
    return f"slept {seconds}"


if __name__ == "__main__":
    server.run()
