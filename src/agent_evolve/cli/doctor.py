"""`agent-evolve doctor`: a table of which providers, local models, git, Docker, the confinement that grading
untrusted code needs and the bundled data sets are usable here, with fixes."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agent_evolve.environments.detect import ALLOW_UNCONFINED_ENV, confining_backend
from agent_evolve.environments.docker_task_client import DockerUnavailable, connect_docker
from agent_evolve.engine.versioning import run_git
from agent_evolve.errors import AgentEvolveError, MissingDependencyError
from agent_evolve.llm.errors import redact
from agent_evolve.llm.providers.llama_cpp_local import cache_dir, hash_files, is_verified, part_paths
from agent_evolve.llm.models import DEFAULT_MODEL, LLAMA_INSTALL_HINT, LOCAL_MODELS, PROVIDERS, LocalModelSpec
from agent_evolve.registry import benchmark_class

Status = Literal["ok", "missing", "warn", "skip"]
DATA_BENCHMARKS = ("gsm8k", "humaneval")  # built-in benchmarks whose tasks come from a data package
_STYLE = {"ok": "green", "missing": "red", "warn": "yellow", "skip": "dim"}


@dataclass
class CheckRow:
    """One line of the doctor's table: what was checked, how it went, and how to fix it."""

    component: str
    check: str
    status: Status
    detail: str
    fix: str = ""


def _sdk_row(component: str, module: str) -> CheckRow:
    if importlib.util.find_spec(module) is not None:
        return CheckRow(component, "SDK installed", "ok", module)
    return CheckRow(component, "SDK installed", "missing", f"{module} not importable",
                    f"pip install 'agent-evolve[{component}]'")


def probe_http(url: str, timeout_s: float) -> tuple[bool, str]:
    """GET url without credentials; any HTTP answer but 404 (even 401) means the server is reachable there."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (OSError, ValueError) as exc:
        return False, f"unreachable ({type(exc).__name__})"
    if status == 404:
        return False, "HTTP 404: nothing there (does the base URL end in /v1?)"
    return True, f"HTTP {status} in {time.perf_counter() - started:.2f}s"


def probe_tcp(host: str, port: int, timeout_s: float) -> tuple[bool, str]:
    """Open and close a TCP connection to host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True, f"{host}:{port} accepts connections"
    except OSError as exc:
        return False, f"{host}:{port} unreachable ({type(exc).__name__})"


def _key_provider_rows(component: str, env_var: str, url: str, env: Mapping[str, str], probe: bool,
                       timeout_s: float, own_server: bool = False) -> list[CheckRow]:
    """The SDK (module `component`), key and reachability rows of a provider; `own_server`: a base URL is set, whose
    server may need no key."""
    rows = [_sdk_row(component, component)]
    if env.get(env_var):
        rows.append(CheckRow(component, "credentials", "ok", f"{env_var} is set"))
    elif own_server:
        rows.append(CheckRow(component, "credentials", "ok", f"{env_var} not set (a server of your own may need none)"))
    else:
        rows.append(CheckRow(component, "credentials", "missing", f"{env_var} not set", f"export {env_var}=..."))
        rows.append(CheckRow(component, "reachable", "skip", "no credentials"))
        return rows
    if probe:
        ok, detail = probe_http(url, timeout_s)
        rows.append(CheckRow(component, "reachable", "ok" if ok else "missing", f"{redact(url)}: {detail}",
                             "" if ok else "check the network, proxy or base URL"))
    return rows


def _aws_credentials(env: Mapping[str, str]) -> str | None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK", "AWS_WEB_IDENTITY_TOKEN_FILE",
                 "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"):
        if env.get(name):
            return name
    credentials = Path(env.get("AWS_SHARED_CREDENTIALS_FILE", Path.home() / ".aws" / "credentials"))
    return str(credentials) if credentials.is_file() else None


def _bedrock_rows(env: Mapping[str, str], probe: bool, timeout_s: float) -> list[CheckRow]:
    rows = [_sdk_row("bedrock", "boto3")]
    source = _aws_credentials(env)
    if source is None:
        rows.append(CheckRow("bedrock", "credentials", "missing", "no AWS credentials found",
                             "set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, and AWS_REGION"))
        rows.append(CheckRow("bedrock", "reachable", "skip", "no credentials"))
        return rows
    rows.append(CheckRow("bedrock", "credentials", "ok", f"from {source}"))
    if probe:
        region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1"
        ok, detail = probe_tcp(f"bedrock-runtime.{region}.amazonaws.com", 443, timeout_s)
        rows.append(CheckRow("bedrock", "reachable", "ok" if ok else "missing", detail,
                             "" if ok else "check the network and AWS_REGION"))
    return rows


def _server_rows(env: Mapping[str, str], probe: bool, timeout_s: float) -> list[CheckRow]:
    if not probe:
        return []
    rows: list[CheckRow] = []
    for name in ("ollama", "vllm"):  # at the address a client of theirs uses unless given a base URL
        base = PROVIDERS[name] or ""
        ok, detail = probe_http(base.rstrip("/") + "/models", timeout_s)
        rows.append(CheckRow(name, "server running", "ok" if ok else "skip", f"{base}: {detail}",
                             "" if ok else f"optional: start a {name} server, then use '{name}/<model>'"))
    return rows


def _llama_row() -> CheckRow:
    try:
        llama_cpp = importlib.import_module("llama_cpp")
    except Exception as exc:  # a broken native build raises OSError, not only ImportError
        return CheckRow("local", "llama_cpp importable", "missing", f"{type(exc).__name__}: {exc}"[:120],
                        LLAMA_INSTALL_HINT)
    return CheckRow("local", "llama_cpp importable", "ok", f"llama-cpp-python {llama_cpp.__version__}")


def _local_model_row(spec: LocalModelSpec, directory: Path, verify: bool) -> CheckRow:
    label = f"local/{spec.name}"
    default = label == DEFAULT_MODEL
    try:
        parts = part_paths(spec)
    except MissingDependencyError:
        return CheckRow(label, "parts + sha256", "missing" if default else "skip",
                        "not installed" + ("" if default else " (optional)"), spec.install_hint)
    if is_verified(directory / spec.filename, spec.sha256):
        return CheckRow(label, "parts + sha256", "ok", f"joined and verified in {directory}")
    if not verify:
        return CheckRow(label, "parts + sha256", "warn", f"{len(parts)} part(s) present, not verified yet",
                        "run 'agent-evolve doctor' without --no-verify")
    actual = hash_files(parts)
    if actual == spec.sha256:
        return CheckRow(label, "parts + sha256", "ok", f"{len(parts)} part(s), sha256 matches (joined on first use)")
    return CheckRow(label, "parts + sha256", "missing", f"sha256 {actual[:12]}... != expected {spec.sha256[:12]}...",
                    f"reinstall: {spec.install_hint}")


def _docker_row(timeout_s: float) -> CheckRow:
    """Whether a Docker daemon answers through the SDK, the one way this package reaches Docker."""
    try:
        client = connect_docker("container-sandboxed benchmarks", timeout=timeout_s)
    except DockerUnavailable as exc:
        fix = ("pip install 'agent-evolve[docker]'" if importlib.util.find_spec("docker") is None
               else "install and start Docker (needed only for container-sandboxed benchmarks)")
        return CheckRow("docker", "daemon reachable", "missing", str(exc)[:160], fix)
    with contextlib.closing(client):
        return CheckRow("docker", "daemon reachable", "ok", f"server {client.version().get('Version', '?')}")


def _git_row() -> CheckRow:
    """Whether the git command runs: every run versions its workspace with it (Ratchet's doctor checks it too)."""
    try:
        done = run_git(Path.cwd(), "--version")
        ok = done.returncode == 0
        detail = (done.stdout if ok else done.stderr).decode(errors="replace").strip()
    except (OSError, subprocess.SubprocessError) as exc:
        ok, detail = False, f"{type(exc).__name__}: {exc}"
    return CheckRow("git", "git runs", "ok" if ok else "missing", detail[:160],
                    "" if ok else "install git: every run versions its workspace with it")


def _confinement_row() -> CheckRow:
    """Whether untrusted code (humaneval tests, tool commands) can run confined here, as grading requires."""
    backend, why = confining_backend()
    if backend is not None:
        return CheckRow("confinement", "grading untrusted code", "ok", f"{backend.name} works")
    return CheckRow("confinement", "grading untrusted code", "missing", why[:160],
                    f"allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run as root; "
                    f"{ALLOW_UNCONFINED_ENV}=1 runs it unconfined at your own risk")


def _data_rows() -> list[CheckRow]:
    """Whether each built-in data set loads (its package installed and readable)."""
    rows = []
    for name in DATA_BENCHMARKS:
        try:
            count = len(benchmark_class(name)().get_tasks("train", limit=None))
        except AgentEvolveError as exc:
            fix = "pip install 'agent-evolve[data]'" if isinstance(exc, MissingDependencyError) else ""
            rows.append(CheckRow(f"data: {name}", "tasks load", "missing", str(exc)[:160], fix))
            continue
        rows.append(CheckRow(f"data: {name}", "tasks load", "ok", f"{count:,} train tasks"))
    return rows


def run_checks(
    env: Mapping[str, str] | None = None, *, probe: bool = True, verify: bool = True, timeout_s: float = 2.0
) -> list[CheckRow]:
    """Every doctor check; network probes only where credentials or a base URL exist, and only if probe."""
    env = os.environ if env is None else env
    rows: list[CheckRow] = []
    openai_base = env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    rows += _key_provider_rows("openai", "OPENAI_API_KEY", openai_base.rstrip("/") + "/models", env, probe, timeout_s,
                               own_server=bool(env.get("OPENAI_BASE_URL")))
    anthropic_base = env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"  # the SDK reads the variable too
    rows += _key_provider_rows("anthropic", "ANTHROPIC_API_KEY", anthropic_base.rstrip("/") + "/v1/models", env,
                               probe, timeout_s)
    rows += _bedrock_rows(env, probe, timeout_s)
    rows += _server_rows(env, probe, timeout_s)
    rows.append(_llama_row())
    override = env.get("AGENT_EVOLVE_CACHE")
    directory = cache_dir(Path(override) / "models" if override else None)
    rows += [_local_model_row(spec, directory, verify) for spec in LOCAL_MODELS.values()]
    rows.append(_git_row())
    rows.append(_docker_row(max(timeout_s, 5.0)))
    rows.append(_confinement_row())
    rows += _data_rows()
    return rows


def render(rows: list[CheckRow], console: Console) -> None:
    """Print rows as a rich table."""
    table = Table(title="agent-evolve doctor")
    for column in ("component", "check", "status", "detail", "fix"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(escape(row.component), escape(row.check), f"[{_STYLE[row.status]}]{row.status}[/]",
                      escape(row.detail), escape(row.fix))
    console.print(table)


@click.command("doctor")
@click.option("--no-probe", is_flag=True, help="Skip network reachability checks.")
@click.option("--no-verify", is_flag=True, help="Skip hashing the local model parts.")
@click.option("--timeout", "timeout_s", default=2.0, show_default=True, help="Seconds per network probe.")
def doctor(no_probe: bool, no_verify: bool, timeout_s: float) -> None:
    """Show which model providers, local models, git, Docker, confinement and data sets are usable here, and how
    to fix what is not."""
    render(run_checks(probe=not no_probe, verify=not no_verify, timeout_s=timeout_s), Console())
