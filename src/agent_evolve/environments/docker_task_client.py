"""This package's one way to Docker, through the SDK imported lazily: the check that a daemon answers
(`connect_docker`), an EnvironmentSpec as `containers.run` keywords, one command run in a container, an image build."""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from agent_evolve.environments.process import KeptBytes
from agent_evolve.environments.task_env import CommandResult, EnvironmentSpec
from agent_evolve.errors import MissingDependencyError

INSTALL_HINT = "pip install 'agent-evolve[docker]'"
ENGINE_URL = "https://docs.docker.com/engine/install/"
CONTROL_TIMEOUT_S = 120
"""Seconds one Docker API call (create, copy, inspect, remove) may take before the daemon counts as hung."""
LABEL = "agent-evolve"
"""Label key on every container this package starts, so leftovers can be found (`docker ps -a -f label=...`)."""
STATE_DIR = "/.agent-evolve"
"""A tmpfs inside each container for this package's own bookkeeping (the diff baseline), outside the work tree."""
KEEP_ALIVE = ("/bin/sh", "-c", "trap 'exit 0' TERM; while :; do sleep 3600 & wait; done")
"""The container's first process: idle and reaping orphans, so every command is an exec and the container
lives until close (a `kill -9 -1` inside ends its `sleep`, never itself)."""
SCRATCH_MB = 256
KILL_ALL = ("/bin/sh", "-c", "kill -9 -1")
"""Docker cannot kill one exec: at its deadline this kills every process but the container's idle init."""
_GRACE_S = 5.0
BUILD_LOG_BYTES = 256 * 1024
"""How much of an image build's log is kept (its end says why a build failed)."""


class DockerUnavailable(MissingDependencyError):
    """The docker SDK is missing or no Docker daemon answers; fatal: no other task can fix it."""


def docker_sdk(purpose: str = "the docker task environment") -> ModuleType:
    """The `docker` package, or DockerUnavailable saying which extra installs it."""
    try:
        return importlib.import_module("docker")
    except ImportError as exc:
        raise DockerUnavailable(f"the docker SDK is needed for {purpose}: {INSTALL_HINT}") from exc


def connect_docker(purpose: str, timeout: float | None = CONTROL_TIMEOUT_S) -> Any:
    """A DockerClient whose daemon answered a ping, or DockerUnavailable naming Docker and where it looked."""
    sdk = docker_sdk(purpose)
    try:
        client = sdk.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:  # the SDK raises DockerException, requests' and socket errors for a dead daemon
        host = os.environ.get("DOCKER_HOST")  # where the SDK looked for the daemon
        where = f"DOCKER_HOST={host}" if host else "the default socket unix:///var/run/docker.sock"
        raise DockerUnavailable(
            f"a running Docker daemon is needed for {purpose}, and none answered at {where} "
            f"({type(exc).__name__}: {str(exc)[:200]}). Install Docker ({ENGINE_URL}) and start it "
            "(`sudo systemctl start docker`, or `dockerd &` as root), or set DOCKER_HOST.") from exc
    return client


def docker_problem(purpose: str) -> str | None:
    """None when Docker can be used for `purpose`; otherwise the sentence that says what to install or start."""
    try:
        connect_docker(purpose, timeout=30).close()
    except DockerUnavailable as exc:
        return str(exc)
    return None


def container_options(spec: EnvironmentSpec, name: str) -> dict[str, Any]:
    """`containers.run` keywords: no network unless allowed, kernel limits, read-only root; the work tree an anonymous
    volume, /tmp, HOME and the state folder small tmpfs mounts."""
    sdk = docker_sdk()
    limits = spec.limits
    home = spec.env.get("HOME", "/root")
    scratch = f"size={SCRATCH_MB}m"
    return {
        "name": name,
        "command": list(KEEP_ALIVE),
        "detach": True,
        "working_dir": spec.workdir,
        "environment": dict(spec.env),
        "network_mode": "bridge" if spec.network else "none",
        "mem_limit": f"{limits.memory_mb}m",
        "memswap_limit": f"{limits.memory_mb}m",
        "pids_limit": limits.processes,
        "ulimits": [sdk.types.Ulimit(name="cpu", soft=limits.cpu_seconds(), hard=limits.cpu_seconds()),
                    sdk.types.Ulimit(name="fsize", soft=limits.file_size_mb * 2**20,
                                     hard=limits.file_size_mb * 2**20)],
        "read_only": True,
        "mounts": [sdk.types.Mount(target=spec.workdir, source=None, type="volume")],
        "tmpfs": {path: scratch for path in sorted({"/tmp", "/var/tmp", "/run", home, STATE_DIR} - {spec.workdir})},
        "security_opt": ["no-new-privileges"],
        "labels": {LABEL: "task"},
    }


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


def _reading(chunks: Iterable[bytes], keep_bytes: int, timeout_s: float) -> tuple[_Output, threading.Thread]:
    """Drain `chunks` in a reader thread, waiting up to `timeout_s` for it to end (still alive: it timed out)."""
    output = _Output(keep_bytes)
    reader = threading.Thread(target=_drain, args=(chunks, output), daemon=True)
    reader.start()
    reader.join(timeout_s)
    return output, reader


def run_exec(control: Any, stream: Any, container_id: str, argv: Sequence[str], *, workdir: str,
             timeout_s: float, keep_bytes: int) -> CommandResult:
    """Run `argv` in the container (`control` a client for short calls, `stream` one for the output, kept in order
    and cut to `keep_bytes`); after `timeout_s` run `KILL_ALL` and say it timed out."""
    started = time.monotonic()
    exec_id = control.exec_create(container_id, list(argv), workdir=workdir, stdout=True, stderr=True)["Id"]
    output, reader = _reading(stream.exec_start(exec_id, stream=True), keep_bytes, timeout_s)
    timed_out = reader.is_alive()
    if timed_out:
        control.exec_start(control.exec_create(container_id, list(KILL_ALL))["Id"])
        reader.join(_GRACE_S)
    if output.failure is not None and not timed_out:
        raise output.failure
    exit_code = None if timed_out else control.exec_inspect(exec_id).get("ExitCode")
    return CommandResult(exit_code=exit_code, output=output.text(), output_size=output.size, timed_out=timed_out,
                         duration_s=round(time.monotonic() - started, 3))


def _build_log(api: Any, context: Path, tag: str, errors: list[str]) -> Iterator[bytes]:
    """The log of `docker build -t TAG CONTEXT`, a failed step's message also put in `errors`."""
    for chunk in api.build(path=str(context), tag=tag, rm=True, forcerm=True, decode=True):
        if "error" in chunk:
            errors.append(str(chunk["error"]))
        yield str(chunk.get("stream") or chunk.get("error") or "").encode("utf-8")


def build_image(context: Path, tag: str, purpose: str, timeout_s: float) -> CommandResult:
    """Build the folder `context` (its Dockerfile) as image `tag`: the log as output, exit 1 when it failed; past
    `timeout_s` its connection is shut, which cancels the build. DockerUnavailable, naming `purpose`, without Docker."""
    started = time.monotonic()
    client = connect_docker(purpose, timeout=timeout_s)
    responses: list[Any] = []  # the build's streamed response, caught by a requests hook so it can be shut
    client.api.hooks["response"].append(lambda response, *args, **kwargs: responses.append(response))
    errors: list[str] = []
    try:
        output, reader = _reading(_build_log(client.api, context, tag, errors), BUILD_LOG_BYTES, timeout_s)
        timed_out = reader.is_alive()
        if timed_out:
            for response in responses:
                response.raw.shutdown()  # wakes the blocked read; the daemon sees the client leave
            reader.join(_GRACE_S)
    finally:
        client.close()
    if output.failure is not None and not timed_out:  # the daemon refused the build (a bad Dockerfile, no context)
        output.feed(f"{type(output.failure).__name__}: {output.failure}\n".encode("utf-8"))
    failed = bool(errors) or output.failure is not None
    return CommandResult(exit_code=None if timed_out else int(failed), output=output.text(), output_size=output.size,
                         timed_out=timed_out, duration_s=round(time.monotonic() - started, 3))
