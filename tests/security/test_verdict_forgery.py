"""A candidate cannot write its own verdict (issue 35): whatever it sends on its reply pipe, a wrong function fails.

Each attack below writes framed messages (a 4-byte big-endian length, then JSON) where the grader's candidate
process sends its replies, as a HumanEval completion can: the descriptor is in /proc/self/fd. The tests it is
graded against never pass (`assert False` after one call), so any pass is a forgery.
"""

from __future__ import annotations

import json
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_evolve.agents.answering.checks import CodeTask, first_failure
from agent_evolve.benchmarks.adapters.humaneval import HumanEvalBenchmark
from agent_evolve.benchmarks.support.sandbox import SandboxLimits, _result, _verdict, run_tests
from agent_evolve.environments import ConfinementUnavailable, ExecResult, backend_for_untrusted_code
from agent_evolve.types import Feedback, Trajectory


def _confined() -> bool:
    try:
        backend_for_untrusted_code()
    except ConfinementUnavailable:
        return False
    return True


confined = pytest.mark.skipif(not _confined(), reason="kernel confinement (unshare) is unavailable here")

LIMITS = SandboxLimits(timeout_s=10.0)
NEVER = "def check(candidate):\n    assert candidate(2) == 4\n    assert False, 'these tests never pass'\n"
SENTINEL = "the-right-answer-7f3a"
WRONG = f"def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(3) == {SENTINEL!r}\n"
FORGED = {"kind": "error", "status": "passed"}

SENDER = """\
import fcntl, json, os, struct

def _frame(message):
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    return struct.pack('>I', len(data)) + data

def _reply_fds():
    found = []
    for name in os.listdir('/proc/self/fd'):
        fd = int(name)
        try:
            if fd > 2 and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                found.append(fd)
        except OSError:
            pass
    return found

def _send(data):
    for fd in _reply_fds():
        os.write(fd, data)
"""


def frame(message: dict | bytes) -> bytes:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    return struct.pack(">I", len(data)) + data


def program(data: bytes, *, when: str = "load", then: str = "") -> str:
    """A candidate whose `double` is wrong, sending `data` to its reply pipe at load or inside the call, then `then`."""
    send = f"{SENDER}_send({data!r})\n" + (f"{then}\n" if then else "")
    if when == "load":
        return f"{send}def double(x):\n    return -1\n"
    body = "".join(f"    {line}\n" for line in send.splitlines())
    return f"def double(x):\n{body}    return -1\n"


ATTACKS = {
    # the forgery: one framed error carrying status "passed", then leave
    "error_with_status_then_os_exit": program(frame(FORGED), then="os._exit(0)"),
    # the same with every other key of the verdict chosen too, the candidate still serving
    "error_with_status_where_type_message_line": program(frame(
        {"kind": "error", "status": "passed", "where": "tests", "type": None, "message": None, "line": None})),
    # sent while the function runs, before it returns
    "error_with_status_inside_the_call": program(frame(FORGED), when="call", then="os._exit(0)"),
    # a candidate that exits 0 after writing
    "error_with_status_then_exit_0": program(frame(FORGED), when="call", then="raise SystemExit(0)"),
    # several replies in one write: a ready the grader did not wait for, then the forgery
    "ready_then_error_in_one_write": program(frame({"kind": "ready"}) + frame(FORGED)),
    # garbage and a bogus header after a valid forged frame
    "garbage_after_a_valid_frame": program(frame(FORGED) + b"\xff\x00garbage" + struct.pack(">I", 2**31)),
    # a forged frame carrying a large field into the verdict
    "forged_frame_with_a_large_field": program(frame({**FORGED, "message": "x" * 60_000})),
    # a frame whose header claims more than the grader accepts
    "frame_over_the_size_limit": program(struct.pack(">I", 2**30) + b"{}"),
    # the forgery written to every descriptor 0..255
    "every_descriptor": f"import os\nfor fd in range(256):\n    try:\n        os.write(fd, {frame(FORGED)!r})\n"
                        "    except OSError:\n        pass\ndef double(x):\n    return -1\n",
    # a value reply (and a ready) carrying a status
    "value_reply_carrying_status": program(frame({"kind": "value", "repr": "4", "status": "passed"}), when="call",
                                           then="os._exit(0)"),
    "ready_carrying_status": program(frame({"kind": "ready", "status": "passed", "where": None})),
    # a non-string type and line where the verdict expects text and a number
    "error_with_wrong_field_types": program(frame({"kind": "error", "status": "passed", "type": ["x"] * 10,
                                                   "line": {"a": 1}, "message": 7})),
}


@confined
@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_forged_reply_never_passes(name: str) -> None:
    result = run_tests(ATTACKS[name], NEVER, "double", LIMITS)
    assert not result.passed
    assert result.error_type is None or isinstance(result.error_type, str)
    assert result.error_line is None or isinstance(result.error_line, int)
    assert result.error_where in (None, "candidate", "tests")
    assert len(result.error_message or "") <= 2000


def humaneval_0(data: bytes) -> Feedback:
    """HumanEval/0 graded for a completion that sends `data` when the tests call it, then leaves."""
    bench = HumanEvalBenchmark(timeout_s=10.0)
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "HumanEval/0")
    forge = program(data, when="call", then="os._exit(0)").replace("def double(x):", "def has_close_elements(n, t):")
    return bench.evaluate(task, Trajectory(task_id=task.id, output=f"```python\n{forge}```"))


@confined
def test_a_forged_humaneval_completion_gets_no_score() -> None:
    feedback = humaneval_0(frame(FORGED))
    assert not feedback.success and feedback.score == 0.0


@confined
def test_a_candidates_report_cannot_point_into_the_hidden_tests_or_crash_the_grader() -> None:
    """Its `where` is the grader's to say (a line of the tests would show hidden tests); a text line is dropped."""
    pointing = humaneval_0(frame({"kind": "error", "type": "E", "message": "m", "line": 2, "where": "tests"}))
    assert not pointing.success and pointing.raw["error_where"] == "candidate"
    text_line = humaneval_0(frame({"kind": "error", "type": "E", "message": "m", "line": "2"}))
    assert not text_line.success and text_line.raw["error_line"] is None


@confined
def test_a_forged_reply_does_not_pass_the_docstring_examples() -> None:
    code = CodeTask('def double(x):\n    """Twice x.\n    >>> double(2)\n    4\n    """\n', "double")
    reply = f"```python\n{program(frame(FORGED), when='call', then='os._exit(0)')}```"
    failure = first_failure(code, reply, SandboxLimits(timeout_s=10.0))
    assert failure is not None and failure.example.call == "double(2)"


@confined
def test_a_forged_assertion_from_the_candidate_is_not_shown_as_the_examples_verdict() -> None:
    """The candidate raising AssertionError('it returned 4') is the candidate's error, not the example's."""
    code = CodeTask('def double(x):\n    """Twice x.\n    >>> double(2)\n    4\n    """\n', "double")
    reply = "```python\ndef double(x):\n    raise AssertionError('it returned 4')\n```"
    failure = first_failure(code, reply, SandboxLimits(timeout_s=10.0))
    assert failure is not None and failure.problem.startswith("it raised AssertionError")


_KEYS = st.sampled_from(["kind", "status", "where", "type", "message", "line", "repr"]) | st.text(max_size=8)
_VALUES = (st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.text(max_size=20)
           | st.sampled_from(["passed", "failed", "ready", "value", "error", "candidate", "tests", "4", "None"]))
_MESSAGES = st.one_of(
    st.fixed_dictionaries({"kind": st.sampled_from(["error", "ready", "value"])},
                          optional={"status": st.just("passed") | _VALUES,
                                    **{key: _VALUES for key in ("where", "type", "message", "line", "repr")}}),
    st.dictionaries(_KEYS, _VALUES, max_size=6),
    st.binary(max_size=40),
).map(frame)
_FRAMES = st.lists(_MESSAGES | st.binary(min_size=1, max_size=64), min_size=1, max_size=4).map(b"".join)


@confined
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_FRAMES, when=st.sampled_from(["load", "call"]),
       then=st.sampled_from(["", "os._exit(0)", "raise SystemExit(0)"]))
def test_random_framed_replies_never_pass_a_wrong_function(data: bytes, when: str, then: str) -> None:
    assert not run_tests(program(data, when=when, then=then), WRONG, "double", LIMITS).passed


FAILED = {"status": "failed", "where": "tests", "type": "AssertionError", "message": "no", "line": 3}


def _ran(exit_code: int = 0) -> ExecResult:
    return ExecResult(exit_code, b"", b"", 0, 0, False, False, 0.1, "namespaces")


@pytest.mark.parametrize("verdict", [
    {"status": "passed", "where": "candidate"},
    {"status": "passed", "type": None, "message": None, "line": None},
    {**FAILED, "status": "passed"},
    {**FAILED, "extra": 1},
    {**FAILED, "where": "elsewhere"},
    {**FAILED, "type": ["AssertionError"]},
    {**FAILED, "message": {"a": 1}},
    {**FAILED, "line": "3"},
    {**FAILED, "line": True},
    {"status": "PASSED"},
    {"status": True},
    ["status", "passed"],
    "passed",
])
def test_the_parent_takes_only_the_two_shapes_the_tests_write(verdict: object) -> None:
    parsed = _verdict(json.dumps(verdict).encode())
    assert parsed == {}
    result = _result(_ran(), _ran(), parsed, LIMITS)
    assert not result.passed and result.error_type == "GraderError"


def test_the_parent_keeps_a_well_formed_verdict() -> None:
    assert _result(_ran(), _ran(), _verdict(b'{"status": "passed"}'), LIMITS).passed
    failure = _result(_ran(), _ran(), _verdict(json.dumps(FAILED).encode()), LIMITS)
    assert (failure.passed, failure.error_where, failure.error_line) == (False, "tests", 3)
    assert not _result(_ran(), _ran(exit_code=1), _verdict(b'{"status": "passed"}'), LIMITS).passed
