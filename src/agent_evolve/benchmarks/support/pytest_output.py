"""Parse pytest console output (-rA short summary, -v lines, the closing counts line) into a report."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_SHORT = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+(?:\[\d+\]\s+)?(\S+?)(?::\s.*|\s+-\s+(.*))?$")
_VERBOSE = re.compile(r"^(\S+::\S+)\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b")
_WORDS = "passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?"
_CLOSING = re.compile(rf"^=*\s*((?:\d+ (?:{_WORDS})(?:, )?)+|no tests ran)(?: in [\d.]+s.*?)?\s*=*$")
_COUNT = re.compile(rf"(\d+) ({_WORDS})")
_NORMAL = {"errors": "error", "warnings": "warning"}
_STATUS_OF = {"PASSED": "passed", "FAILED": "failed", "ERROR": "error", "SKIPPED": "skipped",
              "XFAIL": "xfailed", "XPASS": "xpassed"}


@dataclass
class PytestReport:
    """Per-test statuses and the totals of one pytest run."""

    tests: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    summary_found: bool = False

    @property
    def passed(self) -> int:
        """Tests that passed, counting expected failures (xfail) as passed."""
        return self.counts.get("passed", 0) + self.counts.get("xfailed", 0)

    @property
    def failed(self) -> int:
        """Failures, errors and unexpected passes (xpass)."""
        return self.counts.get("failed", 0) + self.counts.get("error", 0) + self.counts.get("xpassed", 0)

    @property
    def total(self) -> int:
        """Tests that decided the outcome (skipped ones do not)."""
        return self.passed + self.failed

    @property
    def all_passed(self) -> bool:
        """At least one test passed and none failed; an empty run is not a pass."""
        return self.passed > 0 and self.failed == 0

    @property
    def failing(self) -> list[str]:
        """Names of the tests that failed or errored, in output order."""
        return [name for name, status in self.tests.items() if status in ("failed", "error", "xpassed")]

    def describe(self) -> str:
        """One line: counts, then the failing tests with their reasons."""
        if not self.summary_found and not self.tests:
            return "no pytest results found in the output"
        head = f"{self.passed} passed, {self.failed} failed"
        if self.counts.get("skipped"):
            head += f", {self.counts['skipped']} skipped"
        if not self.failing:
            return head
        items = [f"{name} ({self.reasons[name]})" if self.reasons.get(name) else name for name in self.failing]
        return head + "; failing: " + "; ".join(items)


def parse_pytest_output(text: str) -> PytestReport:
    """Read statuses from -rA summary and -v lines and totals from the last closing line."""
    report = PytestReport()
    for raw in _ANSI.sub("", text).splitlines():
        line = raw.strip()
        short = _SHORT.match(line)
        verbose = _VERBOSE.match(line)
        if short:
            name = short.group(2)
            report.tests[name] = _STATUS_OF[short.group(1)]
            if short.group(3):
                report.reasons[name] = short.group(3).strip()
        elif verbose:
            report.tests.setdefault(verbose.group(1), _STATUS_OF[verbose.group(2)])
        closing = _CLOSING.match(line)
        if closing and (" in " in line or line.startswith("=")):
            report.summary_found = True
            report.counts = {}
            for number, word in _COUNT.findall(closing.group(1)):
                key = _NORMAL.get(word, word)
                report.counts[key] = report.counts.get(key, 0) + int(number)
    if not report.summary_found:
        report.counts = dict(Counter(report.tests.values()))
    return report
