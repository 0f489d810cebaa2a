"""Command lines of the coding-agent CLIs a learner can run, and a clear error when one is not installed."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from agent_evolve.errors import ConfigError, MissingDependencyError

PROMPT = "Read LEARNER.md in the current folder and follow it. Edit the files in place; do not ask questions."


@dataclass(frozen=True)
class Preset:
    """One CLI: its executable, how to install it, its arguments, the keys and config folder it needs."""

    executable: str
    install: str
    arguments: tuple[str, ...]
    keys: tuple[str, ...]
    config_dir: str


PRESETS: dict[str, Preset] = {
    "claude": Preset("claude", "npm install -g @anthropic-ai/claude-code",
                     ("-p", PROMPT, "--permission-mode", "acceptEdits",
                      "--allowedTools", "Read Edit Write Glob Grep Bash(check_spec)"),
                     ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_USE_BEDROCK", "AWS_REGION"), ".claude"),
    "codex": Preset("codex", "npm install -g @openai/codex",
                    ("exec", "--skip-git-repo-check", "--full-auto", PROMPT),
                    ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME"), ".codex"),
}


def preset_command(name: str) -> list[str]:
    """The preset's full command line, its executable resolved on PATH; MissingDependencyError when absent."""
    if name not in PRESETS:
        raise ConfigError(f"cli: unknown preset {name!r}; known: {sorted(PRESETS)}")
    preset = PRESETS[name]
    found = shutil.which(preset.executable)
    if found is None:
        raise MissingDependencyError(
            f"the {name} learner needs the `{preset.executable}` CLI on PATH; install it with: {preset.install}")
    return [found, *preset.arguments]


def preset_env(name: str) -> dict[str, str]:
    """The credentials and endpoints the preset's CLI reads, taken from this process's environment."""
    return {key: os.environ[key] for key in PRESETS[name].keys if key in os.environ}
