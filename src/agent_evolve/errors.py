"""The error hierarchy (every error says which file, key, provider or model it is about), and optional imports."""

from __future__ import annotations

import importlib
from types import ModuleType


class AgentEvolveError(Exception):
    """Base class of every error this package raises on purpose. `fatal` errors (a missing dependency, bad
    configuration, rejected credentials) no retry or next task can fix: the loop stops the run with them."""

    fatal: bool = False


class ConfigError(AgentEvolveError, ValueError):
    """A configuration value has the wrong type or value; the message names the key and the source."""

    fatal = True


class WorkspaceError(AgentEvolveError):
    """A workspace is missing, malformed, or an operation would escape it."""


class ManifestError(WorkspaceError):
    """manifest.yaml is missing or invalid."""


class SkillFormatError(WorkspaceError):
    """A SKILL.md file is not a valid Agent Skill."""


class UnknownNameError(AgentEvolveError, KeyError):
    """A registry lookup failed; the message lists the known names."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class MissingDependencyError(AgentEvolveError, ImportError):
    """An optional extra, a data package, Docker or a credential is missing; the message says what to install."""

    fatal = True


class BudgetExceededError(AgentEvolveError):
    """A token or cost budget is spent; the loop ends the run with status out_of_budget."""


class TrialError(AgentEvolveError):
    """An engine asked the trial runner for something it may not see (holdout or test tasks, outside paths)."""


def is_fatal(exc: BaseException) -> bool:
    """True for errors that no retry and no other task can fix: the run must stop and say what to set or install."""
    return bool(getattr(exc, "fatal", False))


def optional_module(module: str, extra: str, purpose: str, install: str = "") -> ModuleType:
    """Import `module` of an optional package, or raise MissingDependencyError saying that `purpose` needs it and
    how to install it (`pip install 'agent-evolve[extra]'` unless `install` gives the command)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        how = install or f"pip install 'agent-evolve[{extra}]'"
        raise MissingDependencyError(f"{purpose} needs {module.split('.')[0]}: {how}") from exc
