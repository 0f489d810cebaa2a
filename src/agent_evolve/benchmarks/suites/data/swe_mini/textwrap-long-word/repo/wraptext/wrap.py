"""Greedy word wrapping."""


def wrap(text: str, width: int) -> list[str]:
    """Lines of at most `width` characters (longer single words get a line of their own)."""
    lines, current = [], ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= width:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines
