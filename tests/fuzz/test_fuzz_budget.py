"""The default fuzz run generates at least 10,000 inputs across all properties."""

from __future__ import annotations

from strategies import DEFAULTS


def test_the_default_run_has_at_least_ten_thousand_inputs() -> None:
    assert len(DEFAULTS) >= 15
    assert sum(DEFAULTS) >= 10_000
