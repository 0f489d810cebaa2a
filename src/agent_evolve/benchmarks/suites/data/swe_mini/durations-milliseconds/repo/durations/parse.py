"""Parse human durations such as 1h30m or 250ms into seconds."""

import re

UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
_PART = re.compile(r"(\d+(?:\.\d+)?)(h|m|s|ms)")


def parse_duration(text: str) -> float:
    """Seconds in `text`; ValueError when something in it is not a number with a unit."""
    text = text.strip()
    total, end = 0.0, 0
    for match in _PART.finditer(text):
        if match.start() != end:
            raise ValueError(f"cannot parse duration {text!r}")
        total += float(match.group(1)) * UNITS[match.group(2)]
        end = match.end()
    if end != len(text) or not text:
        raise ValueError(f"cannot parse duration {text!r}")
    return total
