"""An MCP client: stdio servers declared by a workspace or a task, their tools listed and called, and the names
models see them by (the agents' tool-loop wrappers are `agents.mcp_tools`)."""

from __future__ import annotations

from agent_evolve.mcp.client import McpClient, McpError, McpToolInfo, tool_name
from agent_evolve.mcp.config import McpServerConfig, parse_servers, task_servers, workspace_servers

__all__ = [
    "McpClient", "McpError", "McpServerConfig", "McpToolInfo", "parse_servers", "task_servers", "tool_name",
    "workspace_servers",
]
