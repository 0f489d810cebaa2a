"""Executor tests reuse the kernel's deterministic fakes."""

from __future__ import annotations

import sys
from pathlib import Path

KERNEL_TESTS = Path(__file__).parents[1] / "kernel"
if str(KERNEL_TESTS) not in sys.path:
    sys.path.insert(0, str(KERNEL_TESTS))
