"""A coding-agent CLI (Claude Code, Codex, or any command) as the learner; the loop's gate decides.

Each step writes the cycle's train observations as Hermit's learning material, LEARNER.md and a `check_spec`
command, then runs the command in the workspace, confined: only the enabled layers writable; the manifest,
material, instructions and `check_spec` read-only; nothing of `evolution/` or `.git`; a time limit. Its exit and
redacted output are the step's report; what it left in the layers is the candidate.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from agent_evolve.algorithms.cli_learner.material import INSTRUCTIONS_NAME, MATERIAL_NAME, instructions, write_material
from agent_evolve.algorithms.common.base import ModelEngine, StepInput
from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash
from agent_evolve.contract.paths import atomic_write
from agent_evolve.environments import Mount
from agent_evolve.errors import AgentEvolveError, ConfigError, MissingDependencyError
from agent_evolve.types import StepResult

if TYPE_CHECKING:
    from agent_evolve.config import EvolveConfig
    from agent_evolve.llm.base import LLMClient

BIN = "/opt/agent-evolve/bin"
SOURCE = str(Path(__file__).resolve().parents[3])  # the folder holding the agent_evolve package, for check_spec
PROMPT = "Read LEARNER.md in the current folder and follow it. Edit the files in place; do not ask questions."


@dataclass(frozen=True)
class Preset:
    """One CLI: its executable, how to install it, its arguments, the credentials and endpoints it reads."""

    executable: str
    install: str
    arguments: tuple[str, ...]
    keys: tuple[str, ...]


PRESETS: dict[str, Preset] = {
    "claude": Preset("claude", "npm install -g @anthropic-ai/claude-code",
                     ("-p", PROMPT, "--permission-mode", "acceptEdits",
                      "--allowedTools", "Read Edit Write Glob Grep Bash(check_spec)"),
                     ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_USE_BEDROCK", "AWS_REGION")),
    "codex": Preset("codex", "npm install -g @openai/codex",
                    ("exec", "--skip-git-repo-check", "--full-auto", PROMPT),
                    ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME")),
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


class CliLearnerEngine(ModelEngine):
    """Runs a learner command line (or a preset) on the learning material, confined to the editable layers."""

    name = "cli"
    defaults: ClassVar[dict[str, Any]] = {
        "preset": None,          # claude | codex; else `command` is run
        "command": None,         # argv list or a shell line, run in the workspace folder
        "timeout_s": 900.0,      # wall-clock limit of one learner run
        "network": None,         # none: on for presets (they call their model), off for a command
        "binds": [],             # host folders the command needs, visible read-only at their paths
        "output_chars": 4000,    # of the learner's output kept in the report
    }

    def __init__(self, config: EvolveConfig | None = None, llm: LLMClient | None = None, **params: Any) -> None:
        super().__init__(config, llm, **params)
        if self.params["preset"]:
            preset_command(self.params["preset"])  # a missing CLI fails when the engine is built, not mid-run

    def _argv(self) -> list[str]:
        preset, command = self.params["preset"], self.params["command"]
        if preset:
            return preset_command(preset)
        if not command:
            raise ConfigError(f"cli: set preset ({' or '.join(sorted(PRESETS))}) or command (engine_params)")
        return shlex.split(command) if isinstance(command, str) else [str(part) for part in command]

    def _shell(self, root: Path, layers: list[str], scratch: Path, material: Path) -> ConfinedBash:
        preset = self.params["preset"]
        network = self.params["network"] if self.params["network"] is not None else bool(preset)
        mounts = [Mount("ro", f"{root}/{MATERIAL_NAME}", str(material.resolve())),
                  Mount("ro", f"{root}/{INSTRUCTIONS_NAME}", str((scratch / INSTRUCTIONS_NAME).resolve())),
                  Mount("ro", BIN, str((scratch / "bin").resolve())), Mount.bind(SOURCE)]
        if (root / "manifest.yaml").is_file():
            mounts.append(Mount.bind(root / "manifest.yaml"))
        mounts += [Mount.bind(path) for path in self.params["binds"]]
        env = {"PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": SOURCE}
        if preset:
            executable = Path(preset_command(preset)[0])
            mounts += [Mount.bind(executable.parent), Mount.bind(executable.resolve().parent.parent)]
            env.update({key: os.environ[key] for key in PRESETS[preset].keys if key in os.environ})
        return ConfinedBash(root, timeout_s=float(self.params["timeout_s"]), output_limit=int(self.params["output_chars"]),
                            allow_network=network, layers=tuple(layers), extra_mounts=tuple(mounts), extra_env=env,
                            memory_mb=8192, processes=256)  # a CLI agent's larger limits

    def _step(self, step: StepInput) -> StepResult:
        """Material, instructions, the confined learner run; the gate judges what it left."""
        if self.context is None:
            raise AgentEvolveError("cli: runs only inside the loop (it needs the run's records folders)")
        argv = self._argv()
        root = Path(step.workspace.path).resolve()
        layers, hidden, observations = sorted(step.layers), step.hidden, step.observations
        scratch = self.context.scratch_dir
        material = write_material(self.context.state_dir.parent / MATERIAL_NAME, self.cycle, observations, hidden)
        atomic_write(scratch / INSTRUCTIONS_NAME, instructions(layers, self.cycle, hidden))
        check = scratch / "bin" / "check_spec"
        # sys.executable itself, not its resolved target: in a virtual environment only it finds the packages
        atomic_write(check, f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m "
                            f"agent_evolve.algorithms.cli_learner.check_spec {shlex.quote(str(root))}\n")
        check.chmod(0o755)
        shell = self._shell(root, layers, scratch, material.parent)
        output = shell.run(shlex.join(argv))
        atomic_write(self.context.output_dir / "learner.log", output + "\n")
        ok = output.startswith("exit code 0")
        return StepResult(mutated=ok, summary=f"cli learner {Path(argv[0]).name}: {output.splitlines()[0]}",
                          metadata={"cli": {"argv": argv[:1], "output": output[-int(self.params["output_chars"]):]}},
                          status="done" if ok else "failed")


class CodexLearnerEngine(CliLearnerEngine):
    """Hermit's `codex` learner: the cli engine with the Codex CLI preset."""

    name = "codex"
    defaults: ClassVar[dict[str, Any]] = {**CliLearnerEngine.defaults, "preset": "codex"}


class ClaudeLearnerEngine(CliLearnerEngine):
    """Hermit's `claude` learner: the cli engine with the Claude Code preset."""

    name = "claude"
    defaults: ClassVar[dict[str, Any]] = {**CliLearnerEngine.defaults, "preset": "claude"}
