"""``manifest.yaml``: what a workspace is, which agent runs it, and which layers evolution may edit.

::

    name: gsm8k-solver
    version: 0.1.0
    contract_version: "1.0"
    agent:
      type: reference          # reference | custom
      entrypoint: agent_evolve.agents.reference.ReferenceAgent
      config: {}
    evolvable_layers: [prompts, skills, memory]
    reload_strategy: hot       # hot | cold

Required: ``name``, ``contract_version``, ``agent.entrypoint``, ``evolvable_layers``; the rest has defaults.
Unknown top-level keys are kept in ``Manifest.raw``. Nothing here ever writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.errors import ManifestError
from agent_evolve.io.safe_yaml import load_yaml

if TYPE_CHECKING:
    from agent_evolve.config import EvolveConfig

MANIFEST_FILE = "manifest.yaml"
SUPPORTED_CONTRACT_VERSIONS: tuple[str, ...] = ("1.0",)
LAYER_PATHS: dict[str, str] = {"prompts": "prompts", "skills": "skills", "memory": "memory", "tools": "tools"}
AGENT_TYPES: tuple[str, ...] = ("reference", "custom")
RELOAD_STRATEGIES: tuple[str, ...] = ("hot", "cold")
_ENTRYPOINT_RE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$", re.ASCII)


@dataclass
class Manifest:
    name: str
    version: str
    contract_version: str
    agent_type: Literal["reference", "custom"]
    entrypoint: str
    evolvable_layers: list[str]
    reload_strategy: Literal["hot", "cold"]
    agent_config: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)


def read_manifest_data(workspace_path: str | Path) -> dict[str, Any]:
    """The parsed YAML mapping of ``<workspace>/manifest.yaml``, unvalidated. Raises :class:`ManifestError`."""
    path = Path(workspace_path) / MANIFEST_FILE
    try:
        text = read_regular_text(path)
    except FileNotFoundError:
        raise ManifestError(f"{path}: manifest not found; every workspace needs a {MANIFEST_FILE}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: cannot read manifest: {exc}") from None
    data = load_yaml(text, str(path), ManifestError)
    if data is None:
        raise ManifestError(f"{path}: manifest is empty")
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: manifest must be a YAML mapping, got {type(data).__name__}")
    return data


def manifest_problems(data: dict[str, Any], path: str | Path = MANIFEST_FILE) -> list[str]:
    """Every problem of a parsed manifest mapping, each naming ``path`` and the key (empty when valid)."""
    problems: list[str] = []

    def bad(key: str, what: str) -> None:
        problems.append(f"{path}: key '{key}' {what}")

    name = data.get("name")
    if name is None:
        bad("name", "is missing")
    elif not isinstance(name, str) or not name.strip():
        bad("name", f"must be a non-empty string, got {name!r}")

    if "version" in data and not isinstance(data["version"], (str, int, float)):
        bad("version", f"must be a string, got {type(data['version']).__name__}")

    contract = data.get("contract_version")
    if contract is None:
        bad("contract_version", f"is missing (supported: {', '.join(SUPPORTED_CONTRACT_VERSIONS)})")
    elif str(contract) not in SUPPORTED_CONTRACT_VERSIONS:
        bad("contract_version", f"is {contract!r}; supported: {', '.join(SUPPORTED_CONTRACT_VERSIONS)}")

    agent = data.get("agent")
    if agent is None:
        bad("agent", "is missing (a mapping with at least 'entrypoint')")
    elif not isinstance(agent, dict):
        bad("agent", f"must be a mapping, got {type(agent).__name__}")
    else:
        entrypoint = agent.get("entrypoint")
        if entrypoint is None:
            bad("agent.entrypoint", "is missing (a dotted class path such as package.module.MyAgent)")
        elif not isinstance(entrypoint, str) or not _ENTRYPOINT_RE.match(entrypoint):
            bad("agent.entrypoint", f"is {entrypoint!r}; expected a dotted class path such as package.module.MyAgent")
        agent_type = agent.get("type", "custom")
        if agent_type not in AGENT_TYPES:
            bad("agent.type", f"is {agent_type!r}; expected one of {', '.join(AGENT_TYPES)}")
        if agent.get("config") is not None and not isinstance(agent["config"], dict):
            bad("agent.config", f"must be a mapping, got {type(agent['config']).__name__}")

    layers = data.get("evolvable_layers")
    if layers is None:
        bad("evolvable_layers", f"is missing (a non-empty list of {', '.join(LAYER_PATHS)})")
    elif not isinstance(layers, list) or not layers:
        bad("evolvable_layers", f"must be a non-empty list of {', '.join(LAYER_PATHS)}, got {layers!r}")
    else:
        unknown = [layer for layer in layers if not isinstance(layer, str) or layer not in LAYER_PATHS]
        if unknown:
            bad("evolvable_layers", f"has unknown layer(s) {unknown!r}; known: {', '.join(LAYER_PATHS)}")
        elif len(set(layers)) != len(layers):
            bad("evolvable_layers", f"lists a layer twice: {layers!r}")

    reload_strategy = data.get("reload_strategy", "hot")
    if reload_strategy not in RELOAD_STRATEGIES:
        bad("reload_strategy", f"is {reload_strategy!r}; expected one of {', '.join(RELOAD_STRATEGIES)}")
    return problems


def load_manifest(workspace_path: str | Path) -> Manifest:
    """Read and validate ``<workspace>/manifest.yaml``. Raises :class:`ManifestError` listing every problem."""
    path = Path(workspace_path) / MANIFEST_FILE
    data = read_manifest_data(workspace_path)
    problems = manifest_problems(data, path)
    if problems:
        raise ManifestError("; ".join(problems))
    agent = data["agent"]
    return Manifest(name=data["name"], version=str(data.get("version", "0.0.0")),
                    contract_version=str(data["contract_version"]), agent_type=agent.get("type", "custom"),
                    entrypoint=agent["entrypoint"], evolvable_layers=list(data["evolvable_layers"]),
                    reload_strategy=data.get("reload_strategy", "hot"), agent_config=dict(agent.get("config") or {}),
                    raw=data)


def enabled_layers(config: EvolveConfig, workspace_path: str | Path) -> list[str]:
    """Layers evolution may edit: those the manifest declares (all, without a manifest) that the config enables."""
    enabled = {"prompts": config.evolve_prompts, "skills": config.evolve_skills, "memory": config.evolve_memory,
               "tools": config.evolve_tools}
    has_manifest = (Path(workspace_path) / MANIFEST_FILE).exists()
    declared = load_manifest(workspace_path).evolvable_layers if has_manifest else list(LAYER_PATHS)
    return [layer for layer in declared if enabled.get(layer, False)]
