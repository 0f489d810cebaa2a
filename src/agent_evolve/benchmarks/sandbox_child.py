"""The sandbox's child process: set limits, install the audit-hook guards, run the program, report how it ended.

Run as `python -I -B sandbox_child.py WORK PROGRAM RESULT MEMORY_BYTES FSIZE_BYTES CPU_SECONDS`.
Uses the standard library only, so it never imports agent_evolve.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC

# event -> ((path argument index, dir_fd argument index or None), ...) for events that change the file system
PATH_EVENTS: dict[str, tuple[tuple[int, int | None], ...]] = {
    "os.remove": ((0, 1),),
    "os.rmdir": ((0, 1),),
    "os.mkdir": ((0, 2),),
    "os.rename": ((0, 2), (1, 3)),
    "os.link": ((0, 2), (1, 3)),
    "os.symlink": ((1, 2),),
    "os.chmod": ((0, 2),),
    "os.chown": ((0, 3),),
    "os.utime": ((0, 3),),
    "os.truncate": ((0, None),),
    "os.setxattr": ((0, None),),
    "os.removexattr": ((0, None),),
    "sqlite3.connect": ((0, None),),
}
PROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.killpg",
        "pty.spawn",
        "resource.setrlimit",
        "resource.prlimit",
        "os.startfile",
        "webbrowser.open",
    }
)
NETWORK_EVENTS = frozenset(
    {
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
        "socket.getnameinfo",
        "urllib.Request",
        "http.client.connect",
    }
)


def set_limits(memory_bytes: int, fsize_bytes: int, cpu_seconds: int) -> None:
    """Cap address space, file size, CPU time and core dumps, soft and hard, so the program cannot raise them."""
    for limit, value in (
        (resource.RLIMIT_AS, memory_bytes),
        (resource.RLIMIT_FSIZE, fsize_bytes),
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_CORE, 0),
    ):
        _, hard = resource.getrlimit(limit)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(limit, (value, value))


def make_guard(work: str, violations: list[str]) -> Callable[[str, tuple[Any, ...]], None]:
    """An audit hook that refuses network use, new processes, native calls and writes outside `work`."""

    def inside(path: Any, dir_fd: Any = None) -> bool:
        if isinstance(path, int):
            return True  # an already open descriptor: opening it was checked
        name = os.fsdecode(path)
        if isinstance(dir_fd, int) and dir_fd >= 0 and not os.path.isabs(name):
            name = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), name)
        real = os.path.realpath(name)
        return real == work or real.startswith(work + os.sep)

    def refuse(event: str, what: str) -> None:
        violations.append(f"{event}: {what}")
        raise PermissionError(f"sandbox: {what} is not allowed ({event})")

    def guard(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = args
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags > 0 and flags & WRITE_FLAGS
            )
            if writing and path is not None and not inside(path):
                refuse(event, f"writing {os.fsdecode(path)!r} outside the sandbox directory")
        elif event in PATH_EVENTS:
            for path_index, fd_index in PATH_EVENTS[event]:
                dir_fd = args[fd_index] if fd_index is not None else None
                if not inside(args[path_index], dir_fd):
                    refuse(event, f"changing {os.fsdecode(args[path_index])!r} outside the sandbox directory")
        elif event == "socket.__new__":
            if args[1] != socket.AF_UNIX:
                refuse(event, "network access")
        elif event in NETWORK_EVENTS:
            refuse(event, "network access")
        elif event in PROCESS_EVENTS:
            refuse(event, "starting processes or changing limits")
        elif event == "os.kill" and args[0] != os.getpid():
            refuse(event, "signalling other processes")
        elif event.startswith("ctypes."):
            refuse(event, "native code through ctypes")

    return guard


def refuse_device_nodes() -> None:
    """os.mknod and os.mkfifo raise no audit event, so replace them outright."""

    def refused(*_args: Any, **_kwargs: Any) -> None:
        raise PermissionError("sandbox: creating device nodes or fifos is not allowed")

    for module in (os, sys.modules["posix"]):
        setattr(module, "mknod", refused)  # noqa: B010 - not every platform's stubs declare them
        setattr(module, "mkfifo", refused)  # noqa: B010


def error_report(exc: BaseException, program: str) -> dict[str, Any]:
    """Type, message and the innermost line of the program where `exc` was raised."""
    line = exc.lineno if isinstance(exc, SyntaxError) and exc.filename == program else None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == program:
            line = tb.tb_lineno
        tb = tb.tb_next
    return {"status": "error", "type": type(exc).__name__, "message": str(exc)[:2000], "line": line}


def main() -> None:
    """Read the program, lock the process down, run the program as a fresh module, write the report."""
    work, program, result_path, memory, fsize, cpu = sys.argv[1:7]
    work = os.path.realpath(work)
    with open(program, encoding="utf-8") as handle:
        source = handle.read()
    result = open(result_path, "w", encoding="utf-8")  # noqa: SIM115 - open before the guard, which refuses it later
    set_limits(int(memory), int(fsize), int(cpu))
    violations: list[str] = []
    refuse_device_nodes()
    sys.addaudithook(make_guard(work, violations))
    sys.argv = [program]
    module = types.ModuleType("__main__")
    module.__file__ = program
    sys.modules["__main__"] = module
    report: dict[str, Any] = {"status": "ok"}
    try:
        exec(compile(source, program, "exec"), module.__dict__)
    except BaseException as exc:  # every way the program ends is reported, SystemExit included
        report = error_report(exc, program)
        with contextlib.suppress(BaseException):  # a failing traceback print must not hide the report
            traceback.print_exc()
    report["violations"] = violations
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):  # nor must a broken stream
            stream.flush()
    result.write(json.dumps(report))
    result.close()
    os._exit(0 if report["status"] == "ok" else 1)


if __name__ == "__main__":
    main()
