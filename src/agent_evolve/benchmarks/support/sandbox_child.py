"""The grader's two confined processes (standard library only): `serve` runs the candidate, `verify` the tests, which
get plain literals back through a proxy and write the verdict to a pipe only `verify` holds (docs/security.md)."""

from __future__ import annotations

import ast
import contextlib
import json
import os
import pickle
import struct
import sys
import traceback
import types
from typing import IO, Any

MAX_MESSAGE = 16 * 2**20
TYPE_CHARS = 200
MESSAGE_CHARS = 2000
_HEADER = struct.Struct(">I")


def send(stream: IO[bytes], payload: bytes) -> None:
    """One length-prefixed message."""
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def receive(stream: IO[bytes]) -> bytes | None:
    """One message, or None at the end of the stream; a message over MAX_MESSAGE is an error."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    if size > MAX_MESSAGE:
        raise ValueError(f"a message of {size} bytes is over the {MAX_MESSAGE} byte limit")
    payload = stream.read(size)
    return payload if len(payload) == size else None


def error_report(exc: BaseException, filename: str) -> dict[str, Any]:
    """Type, message and the innermost line of `filename` where `exc` was raised."""
    line = exc.lineno if isinstance(exc, SyntaxError) and exc.filename == filename else None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return {"type": type(exc).__name__, "message": str(exc)[:MESSAGE_CHARS], "line": line}


def failed(where: str, report: dict[str, Any]) -> dict[str, Any]:
    """A failed verdict from fixed keys, of `report` only a cut str type and message and an int line, so that it
    always fits a pipe's buffer (the parent reads it only after the tests end)."""
    kind, message, line = report.get("type"), report.get("message"), report.get("line")
    return {"status": "failed", "where": where,
            "type": kind[:TYPE_CHARS] if isinstance(kind, str) else None,
            "message": message[:MESSAGE_CHARS] if isinstance(message, str) else None,
            "line": line if type(line) is int and 0 < line < 2**31 else None}


def serve(program: str, calls_fd: str, replies_fd: str) -> None:
    """Load the program, then answer calls until the tests close the call pipe."""
    calls, replies = os.fdopen(int(calls_fd), "rb"), os.fdopen(int(replies_fd), "wb")
    with open(program, encoding="utf-8") as handle:
        source = handle.read()
    sys.argv = [program]
    module = types.ModuleType("__main__")
    module.__file__ = program
    sys.modules["__main__"] = module
    try:
        exec(compile(source, program, "exec"), module.__dict__)
    except BaseException as exc:  # every way loading ends is reported, SystemExit included
        traceback.print_exc()
        send(replies, json.dumps({"kind": "error", **error_report(exc, program)}).encode())
        return
    send(replies, b'{"kind": "ready"}')
    while (message := receive(calls)) is not None:
        name, args, kwargs = pickle.loads(message)
        try:
            reply = {"kind": "value", "repr": repr(module.__dict__[name](*args, **kwargs))}
        except BaseException as exc:  # noqa: BLE001 - the tests decide what an exception means
            with contextlib.suppress(BaseException):
                traceback.print_exc()
            reply = {"kind": "error", **error_report(exc, program)}
        send(replies, json.dumps(reply).encode())


class CandidateFailed(Exception):
    """The candidate raised, ended, or answered with something that is not a plain value; `report` is checked."""

    def __init__(self, kind: object, message: object, line: object = None) -> None:
        self.report = failed("candidate", {"type": kind, "message": message, "line": line})
        super().__init__(self.report["message"] or "")


def _invalid(why: str) -> CandidateFailed:
    return CandidateFailed("InvalidReply", why)


class CandidateProxy:
    """The candidate's function in the tests: each call a round trip to the candidate process, whose replies (`ready`
    once, then `value` or `error` per call) are checked key by key; anything else fails the candidate."""

    def __init__(self, name: str, calls: IO[bytes], replies: IO[bytes]) -> None:
        self.name, self._calls, self._replies = name, calls, replies
        self.__name__ = name

    def reply(self, expected: str) -> dict[str, Any]:
        """The candidate's next message, of kind `expected`; CandidateFailed when it is an error, ended or not
        a reply of that shape."""
        try:
            message = receive(self._replies)
            if message is None:
                raise CandidateFailed("CandidateExited", "the candidate process ended early")
            reply = json.loads(message)
        except (ValueError, RecursionError, MemoryError) as exc:
            raise _invalid(f"unreadable reply: {exc}"[:500]) from None
        kind = reply.get("kind") if isinstance(reply, dict) else None
        if kind == "error" and reply.keys() == {"kind", "type", "message", "line"}:
            raise CandidateFailed(reply["type"], reply["message"], reply["line"])
        if kind == expected == "ready" and reply.keys() == {"kind"}:
            return reply
        if kind == expected == "value" and reply.keys() == {"kind", "repr"} and isinstance(reply["repr"], str):
            return reply
        raise _invalid(f"the candidate sent a message that is not a {expected} reply")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            send(self._calls, pickle.dumps((self.name, args, kwargs)))
        except BrokenPipeError:
            raise CandidateFailed("CandidateExited", "the candidate process ended early") from None
        text = self.reply("value")["repr"]
        try:
            return ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            raise _invalid(f"the candidate returned a value that is not plain data: {text[:200]}") from None


def verify(tests: str, entry_point: str, check: str, calls_fd: str, replies_fd: str, verdict_fd: str) -> None:
    """Run the tests against the proxy and write the verdict: passed, or where and why it failed."""
    verdict = os.fdopen(int(verdict_fd), "w", encoding="utf-8")
    calls, replies = os.fdopen(int(calls_fd), "wb"), os.fdopen(int(replies_fd), "rb")
    candidate = CandidateProxy(entry_point, calls, replies)
    with open(tests, encoding="utf-8") as handle:
        source = handle.read()
    report: dict[str, Any] = {"status": "passed"}
    try:
        candidate.reply("ready")
        namespace: dict[str, Any] = {"__name__": "__tests__"}
        exec(compile(source, tests, "exec"), namespace)
        namespace[entry_point] = candidate  # tests that call the function by its name reach the candidate too
        namespace[check](candidate)
    except CandidateFailed as exc:
        report = exc.report
    except BaseException as exc:  # the tests failed, however they ended
        report = failed("tests", error_report(exc, tests))
    verdict.write(json.dumps(report))
    verdict.close()


if __name__ == "__main__":
    {"serve": serve, "verify": verify}[sys.argv[1]](*sys.argv[2:])
