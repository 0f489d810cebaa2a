"""A client of stdio MCP servers for the agents' tool loop. The SDK is async, so one background event loop (an anyio
blocking portal) runs every session for the life of one `McpClient`; opening starts, initialises and lists each
server, closing (always) stops them. Calls time out; a server's stderr tail explains a failed start.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import IO, Any, Self

from agent_evolve.errors import AgentEvolveError, MissingDependencyError
from agent_evolve.mcp.config import McpServerConfig

DEFAULT_START_TIMEOUT_S = 60.0
DEFAULT_CALL_TIMEOUT_S = 30.0
STDERR_TAIL_CHARS = 800
INSTALL_HINT = "pip install 'agent-evolve[mcp]'"
SEPARATOR = "__"
MAX_NAME_CHARS = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class McpError(AgentEvolveError):
    """An MCP server failed to start, timed out, or a tool call failed; the message names the server."""


@dataclass(frozen=True)
class McpToolInfo:
    """A tool a server lists: its name, description and JSON Schema of its arguments."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})


def tool_name(server: str, tool: str) -> str:
    """The name a model sees for an MCP tool (benchmarks name the tools they enable the same way): `<server>__<tool>`
    with characters providers refuse replaced, cut to 64 characters."""
    return _UNSAFE.sub("_", f"{server}{SEPARATOR}{tool}")[:MAX_NAME_CHARS]


def _sdk() -> Any:
    """The `mcp` package, or MissingDependencyError naming the extra."""
    try:
        import mcp
    except ImportError:
        raise MissingDependencyError(f"MCP servers need the `mcp` SDK: {INSTALL_HINT}") from None
    return mcp


def render_result(result: Any) -> str:
    """A CallToolResult as text: text blocks in order, other blocks named, structured content as JSON."""
    parts: list[str] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource" and hasattr(block.resource, "text"):
            parts.append(block.resource.text)
        else:
            parts.append(f"[{kind or 'unknown'} content: {getattr(block, 'mime_type', '') or 'not text'}]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, default=str))
    return "\n".join(parts)


class McpClient:
    """The sessions of a list of stdio servers; use as a context manager (`close` is safe to call twice)."""

    def __init__(self, servers: list[McpServerConfig], *, start_timeout_s: float = DEFAULT_START_TIMEOUT_S,
                 call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S) -> None:
        self.servers = list(servers)
        self.start_timeout_s = start_timeout_s
        self.call_timeout_s = call_timeout_s
        self.tools: list[McpToolInfo] = []
        self._sessions: dict[str, Any] = {}
        self._portal: Any = None
        self._stack: ExitStack | None = None
        self._stderr: dict[str, IO[str]] = {}

    def open(self) -> Self:
        """Start every server and list its tools; on any failure, whatever started is stopped again."""
        mcp = _sdk()
        from anyio.from_thread import start_blocking_portal

        executables = {server.name: server.executable() for server in self.servers}
        with ExitStack() as stack:
            for server in self.servers:
                self._stderr[server.name] = stack.enter_context(
                    tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))
            self._portal = stack.enter_context(start_blocking_portal())
            try:
                self._sessions = stack.enter_context(
                    self._portal.wrap_async_context_manager(self._connect(mcp, executables)))
            except Exception as exc:
                causes = _leaves(exc)
                ours = [cause for cause in causes if isinstance(cause, McpError)]
                if ours:
                    raise ours[0] from exc
                reasons = "; ".join(f"{type(cause).__name__}: {cause}" for cause in causes)
                raise McpError(f"MCP servers {[s.name for s in self.servers]} failed to start: "
                               f"{reasons}{self._stderr_tails()}") from exc
            self._stack = stack.pop_all()
        return self

    @asynccontextmanager
    async def _connect(self, mcp: Any, executables: dict[str, str]) -> AsyncIterator[dict[str, Any]]:
        """Enter each server's transport and session, initialise it and list its tools (on the portal's loop)."""
        import anyio

        async with AsyncExitStack() as stack:
            sessions: dict[str, Any] = {}
            for server in self.servers:
                params = mcp.StdioServerParameters(command=executables[server.name], args=list(server.args),
                                                   env=server.launch_env() or None, cwd=server.cwd)
                read, write = await stack.enter_async_context(
                    mcp.stdio_client(params, errlog=self._stderr[server.name]))
                session = await stack.enter_async_context(mcp.ClientSession(read, write))
                try:
                    with anyio.fail_after(self.start_timeout_s):
                        await session.initialize()
                        self.tools += await _list_tools(mcp, session, server.name)
                except TimeoutError:
                    raise McpError(f"MCP server {server.name!r} ({server.command}) did not start within "
                                   f"{self.start_timeout_s:g}s{self._stderr_tails(server.name)}") from None
                sessions[server.name] = session
            yield sessions

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> str:
        """Call one tool and return its result as text; McpError on a timeout or a result marked as an error."""
        if self._portal is None or server not in self._sessions:
            raise McpError(f"MCP server {server!r} is not running (open the client first)")
        session = self._sessions[server]

        async def call() -> Any:
            import anyio

            with anyio.fail_after(self.call_timeout_s):
                return await session.call_tool(tool, arguments, read_timeout_seconds=self.call_timeout_s)

        try:
            result = self._portal.call(call)
        except TimeoutError:
            raise McpError(f"MCP tool {tool!r} of server {server!r} did not answer within "
                           f"{self.call_timeout_s:g}s") from None
        except Exception as exc:
            raise McpError(f"MCP tool {tool!r} of server {server!r} failed: {type(exc).__name__}: {exc}") from exc
        text = render_result(result)
        if result.is_error:
            raise McpError(f"MCP tool {tool!r} of server {server!r} returned an error: {text}")
        return text

    def _stderr_tails(self, *names: str) -> str:
        """The last lines each server wrote to stderr, for an error message."""
        tails = []
        for name in names or tuple(self._stderr):
            handle = self._stderr.get(name)
            if handle is None or handle.closed:
                continue
            handle.flush()
            handle.seek(0)
            text = handle.read().strip()
            if text:
                tails.append(f"\n[{name} stderr] {text[-STDERR_TAIL_CHARS:]}")
        return "".join(tails)

    def close(self) -> None:
        """End the sessions and stop the servers (the SDK closes stdin, then terminates the process tree)."""
        stack, self._stack = self._stack, None
        self._sessions, self._portal = {}, None
        if stack is not None:
            stack.close()

    def __enter__(self) -> Self:
        return self.open()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, which anyio's task groups wrap failures in."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


async def _list_tools(mcp: Any, session: Any, server: str) -> list[McpToolInfo]:
    """Every tool the session lists, following pagination cursors."""
    tools: list[McpToolInfo] = []
    cursor: str | None = None
    while True:
        params = mcp.types.PaginatedRequestParams(cursor=cursor) if cursor else None
        listed = await session.list_tools(params=params)
        tools += [McpToolInfo(server, t.name, t.description or "", dict(t.input_schema or {})) for t in listed.tools]
        cursor = listed.next_cursor
        if not cursor:
            return tools
