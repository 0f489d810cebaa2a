"""Parse one line of comma-separated values."""


def parse_row(line: str) -> list[str]:
    """The fields of one CSV line."""
    return line.rstrip("\r\n").split(",")
