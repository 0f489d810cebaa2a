"""An MCP client for agents: stdio servers from the workspace or the task, their tools in the tool loop."""

from __future__ import annotations

from agent_evolve.agents.mcp.client import McpClient, McpError, McpToolInfo
from agent_evolve.agents.mcp.config import (
    McpServerConfig,
    parse_servers,
    task_servers,
    workspace_servers,
)
from agent_evolve.agents.mcp.tools import (
    as_tools,
    mcp_tools,
    servers_for,
    task_mcp_tools,
    tool_name,
)

__all__ = [
    "McpClient", "McpError", "McpServerConfig", "McpToolInfo", "as_tools", "mcp_tools", "parse_servers",
    "servers_for", "task_mcp_tools", "task_servers", "tool_name", "workspace_servers",
]
