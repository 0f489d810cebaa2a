"""Optional packages imported when first needed, with an error naming the extra that installs them."""

from __future__ import annotations

import importlib
from types import ModuleType

from agent_evolve.errors import MissingDependencyError


def optional_module(module: str, extra: str, purpose: str) -> ModuleType:
    """Import `module`, or raise MissingDependencyError saying `purpose` needs `pip install 'agent-evolve[extra]'`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(f"{purpose} needs {module.split('.')[0]}: pip install 'agent-evolve[{extra}]'") from exc
