"""mcp-mini: a small deterministic world served over MCP (`server.py`), its tasks, and the benchmark."""
