"""A tiny {placeholder} template renderer."""

import re

_FIELD = re.compile(r"\{([^}]*)\}")


def render(template: str, **values) -> str:
    """Replace each {name} with values[name]; {{ and }} are literal braces."""
    return _FIELD.sub(lambda m: str(values[m.group(1)]), template)
