"""pytest's reports: console output (-rA short summary, -v lines, the closing counts line) and the JUnit XML report
(the grade's source), checked against each other so a forger must fake both consistently (docs/security.md)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
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
MAX_REPORT_CHARS = 8 * 2**20
"""A JUnit report larger than this is refused rather than parsed."""


class ReportError(ValueError):
    """The XML report is missing, too large or not pytest's JUnit format."""


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


def node_id(file: str, classname: str, name: str) -> str:
    """The pytest node id of a `<testcase>` (xunit1: `file` is the test file relative to the root directory)."""
    if not file:
        return f"{classname}::{name}" if classname else name
    module = file.removesuffix(".py").replace("/", ".")
    if not classname and name == module:
        return file
    classes = classname[len(module) + 1:].split(".") if classname.startswith(module + ".") else []
    return "::".join([file, *classes, name])


def parse_junit_report(text: str) -> PytestReport:
    """Statuses per test and totals from pytest's `--junitxml` output (junit_family=xunit1)."""
    if len(text) > MAX_REPORT_CHARS:
        raise ReportError(f"the test report is larger than {MAX_REPORT_CHARS} characters")
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise ReportError(f"the test report is not valid XML: {exc}") from None
    if root.tag not in ("testsuites", "testsuite"):
        raise ReportError(f"the test report's root element is <{root.tag}>, not <testsuites>")
    report = PytestReport(summary_found=True)
    for case in root.iter("testcase"):
        name = node_id(case.get("file", ""), case.get("classname", ""), case.get("name", ""))
        status, reason = _status_of(case)
        report.tests[name] = status
        if reason:
            report.reasons[name] = reason
    report.counts = dict(Counter(report.tests.values()))
    return report


def _status_of(case: ElementTree.Element) -> tuple[str, str]:
    """A testcase's status (error over failure over skip) and the message that goes with it."""
    for tag, status in (("error", "error"), ("failure", "failed")):
        found = case.find(tag)
        if found is not None:
            return status, (found.get("message") or "")[:300]
    skipped = case.find("skipped")
    if skipped is not None:
        return ("xfailed" if skipped.get("type") == "pytest.xfail" else "skipped"), ""
    return "passed", ""


def disagreement(xml: PytestReport, console: PytestReport, exit_code: int | None) -> str | None:
    """Why the console run and the XML report disagree, None when they agree: tests run and their statuses (skips and
    names with whitespace aside), the closing summary, and a clean run's exit code 0."""
    if not console.summary_found:
        return "pytest's console output has no closing summary"
    shown = {name: ("passed" if status == "xpassed" else status)
             for name, status in console.tests.items() if status != "skipped"}
    reported = {name: status for name, status in xml.tests.items()
                if status != "skipped" and len(name.split()) == 1}
    if shown != reported:
        differing = sorted(set(shown.items()) ^ set(reported.items()))[:5]
        return f"the console summary and the XML report differ on {differing}"
    if xml.all_passed and exit_code != 0:
        return f"the XML report has every test passing but pytest exited with {exit_code}"
    return None
