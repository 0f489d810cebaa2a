"""Compare dotted version strings."""


def parse(version: str) -> list[str]:
    """The parts of a version string."""
    parts = version.strip().split(".")
    if not all(p.isdigit() for p in parts):
        raise ValueError(f"not a version: {version!r}")
    return parts


def is_newer(candidate: str, current: str) -> bool:
    """True when `candidate` is a later version than `current`."""
    return parse(candidate) > parse(current)
