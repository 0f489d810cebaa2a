"""Headless Chromium driven directly (Debian's `chromium`): the rendered DOM, console output and a screenshot."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--enable-logging=stderr", "--v=0",
]
CONSOLE_LINE = re.compile(r":CONSOLE[:(]")


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def render(page: Path, *extra: str) -> tuple[str, list[str]]:
    """The DOM after load (with --dump-dom) and every console line the page produced."""
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [chromium() or "chromium", *FLAGS, f"--user-data-dir={profile}", *extra, page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120,
        )
    return proc.stdout, [line for line in proc.stderr.splitlines() if CONSOLE_LINE.search(line)]


def screenshot(page: Path, target: Path, width: int = 1200, height: int = 1600) -> Path:
    render(page, "--hide-scrollbars", f"--window-size={width},{height}", f"--screenshot={target.resolve()}")
    return target
