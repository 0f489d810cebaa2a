"""Read pytest's JUnit XML report (the grade's source) and check it against the console's -rA summary, so a forger
must fake both consistently (docs/security.md)."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections import Counter

from agent_evolve.benchmarks.support.pytest_output import PytestReport

MAX_REPORT_CHARS = 8 * 2**20
"""A report larger than this is refused rather than parsed."""


class ReportError(ValueError):
    """The XML report is missing, too large or not pytest's JUnit format."""


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
