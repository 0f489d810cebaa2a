"""Fuzz suite: prints how many generated inputs ran, so the 10,000-input floor is visible in every run."""

from __future__ import annotations

from typing import Any

from strategies import TOTAL


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if TOTAL["examples"]:
        terminalreporter.write_line(f"fuzz: {TOTAL['examples']} generated inputs ran")
