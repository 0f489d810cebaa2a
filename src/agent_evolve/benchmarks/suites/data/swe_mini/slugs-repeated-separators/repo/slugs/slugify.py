"""URL slugs from titles."""

import re


def slugify(title: str) -> str:
    """Lower-case ASCII letters and digits joined by dashes."""
    return re.sub(r"[^a-z0-9]", "-", title.lower())
