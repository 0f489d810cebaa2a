"""The conformance suites reuse the kernel tests' deterministic fakes (kernel_fakes)."""

from __future__ import annotations

import sys
from pathlib import Path

KERNEL_TESTS = str(Path(__file__).resolve().parents[1] / "kernel")
if KERNEL_TESTS not in sys.path:
    sys.path.insert(0, KERNEL_TESTS)
