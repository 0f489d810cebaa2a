"""The bash tool of skillforge, confined by the kernel (agent_evolve.environments), not by reading the command.

Each command sees the system's programs read-only and, of the workspace, only the given layers, writable; no
`evolution/`, `.git` or manifest; an empty environment but PATH, LANG, HOME, TMPDIR; limits on time, memory,
processes, file size and output, every process ended with it. Symlinks left pointing out of the layers are
removed, and output is redacted (`llm.errors.redact`) before anyone sees or records it (docs/security.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.environments import Confinement, ConfinementUnavailable, Limits, Mount, run_confined
from agent_evolve.environments import backend_for_untrusted_code as backend
from agent_evolve.llm.errors import redact

FILE_SIZE_MB = 16


@dataclass
class ConfinedBash:
    """Runs one shell command at a time with only `layers` of the workspace `root` visible and writable."""

    root: Path
    timeout_s: float = 10.0
    output_limit: int = 2000
    allow_network: bool = False
    layers: Sequence[str] = ("prompts", "skills", "memory")
    extra_mounts: tuple[Mount, ...] = ()  # more host paths the command sees (a learner CLI's program, its inputs)
    extra_env: dict[str, str] = field(default_factory=dict)
    memory_mb: int = 2048
    processes: int = 128

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()

    @property
    def isolation(self) -> str:
        """The backend that confines the commands here, or 'unavailable' (then every command is refused)."""
        try:
            return backend().name
        except ConfinementUnavailable:
            return "unavailable"

    def _confinement(self) -> Confinement:
        mounts = [Mount.empty(self.root)]  # the workspace folder itself: read-only, holding only the layers
        for layer in self.layers:
            path = self.root / layer
            path.mkdir(exist_ok=True)  # an enabled layer may not exist yet; bash may create its first file
            mounts.append(Mount.bind(path, writable=True))
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}
        return Confinement(mounts=(*mounts, *self.extra_mounts), cwd=str(self.root), env={**env, **self.extra_env},
                           network=self.allow_network)

    def run(self, command: str) -> str:
        """The command's exit code and output, or the reason it was refused or stopped."""
        if not command.strip():
            return "Refused: empty command."
        limits = Limits(timeout_s=self.timeout_s, memory_mb=self.memory_mb, processes=self.processes,
                        file_size_mb=FILE_SIZE_MB, output_bytes=4 * self.output_limit,
                        max_output_bytes=4 * self.output_limit + 4096)
        try:
            result = run_confined(["bash", "-c", command], self._confinement(), limits, merge_stderr=True)
        except ConfinementUnavailable as exc:
            return f"Refused: {exc}."
        text = redact(result.stdout.decode("utf-8", errors="replace"))
        if len(text) > self.output_limit or result.stdout_size > len(result.stdout):
            text = text[: self.output_limit] + (f"\n[output truncated at {self.output_limit} characters "
                                                f"of {result.stdout_size} bytes]")
        removed = self._drop_escaping_links()
        if removed:
            text += "\n[removed symlinks that point outside the editable layers: " + ", ".join(removed) + "]"
        killed = "the command and its processes were killed"
        if result.timed_out:
            return f"Error: timed out after {self.timeout_s:g}s; {killed}.\n{text}".rstrip()
        if result.output_overflow:
            return f"Error: output passed {self.output_limit} characters; {killed}.\n{text}".rstrip()
        return f"exit code {result.exit_code}\n{text}".rstrip()

    def _drop_escaping_links(self) -> list[str]:
        """Remove symlinks in the layers whose target lies outside every layer; their workspace paths."""
        layers = [(self.root / layer).resolve() for layer in self.layers]
        removed = []
        for layer in layers:
            for dirpath, dirnames, filenames in os.walk(layer):
                for name in dirnames + filenames:
                    path = Path(dirpath) / name
                    target = path.resolve() if path.is_symlink() else None
                    if target is not None and not any(target == lay or target.is_relative_to(lay) for lay in layers):
                        path.unlink()
                        removed.append(path.relative_to(self.root).as_posix())
        return removed
