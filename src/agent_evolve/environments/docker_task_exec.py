"""One command in a running container: output merged in order and cut to a limit, and, since Docker cannot kill
one exec, `kill -9 -1` inside at its deadline (every process but the container's idle init dies)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_evolve.environments.process import KeptBytes
from agent_evolve.environments.task_env import CommandResult

KILL_ALL = ("/bin/sh", "-c", "kill -9 -1")
_GRACE_S = 5.0


@dataclass
class _Output(KeptBytes):
    """An exec's kept output, and the error that broke its stream (None: it ended)."""

    failure: BaseException | None = None

    def text(self) -> str:
        """The kept bytes as text; a character cut at the limit is dropped rather than garbled."""
        return self.data.decode("utf-8", errors="ignore" if self.size > len(self.data) else "replace")


def _drain(chunks: Iterable[bytes], output: _Output) -> None:
    """Read an exec's stream to its end (in a reader thread), keeping what fits."""
    try:
        for chunk in chunks:
            output.feed(chunk)
    except Exception as exc:  # the stream breaks when the daemon goes away or the container is removed
        output.failure = exc


def run_exec(control: Any, stream: Any, container_id: str, argv: Sequence[str], *, workdir: str,
             timeout_s: float, keep_bytes: int) -> CommandResult:
    """Run `argv` in the container (`control` a client for short calls, `stream` one for the output); after
    `timeout_s` kill it (see the module docstring) and say it timed out."""
    started = time.monotonic()
    exec_id = control.exec_create(container_id, list(argv), workdir=workdir, stdout=True, stderr=True)["Id"]
    output = _Output(keep_bytes)
    reader = threading.Thread(target=_drain, args=(stream.exec_start(exec_id, stream=True), output), daemon=True)
    reader.start()
    reader.join(timeout_s)
    timed_out = reader.is_alive()
    if timed_out:
        control.exec_start(control.exec_create(container_id, list(KILL_ALL))["Id"])
        reader.join(_GRACE_S)
    if output.failure is not None and not timed_out:
        raise output.failure
    exit_code = None if timed_out else control.exec_inspect(exec_id).get("ExitCode")
    return CommandResult(exit_code=exit_code, output=output.text(), output_size=output.size, timed_out=timed_out,
                         duration_s=round(time.monotonic() - started, 3))
