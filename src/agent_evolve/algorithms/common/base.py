"""ModelEngine: what every built-in engine shares (params, the lazy metered client, layer flags, state, `step`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from agent_evolve.algorithms.common.evidence import Evidence, analyse
from agent_evolve.algorithms.common.summaries import rejected_attempts
from agent_evolve.config import EvolveConfig, type_ok, type_words
from agent_evolve.contract.manifest import enabled_layers
from agent_evolve.contract.paths import atomic_write
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.engine.base import EngineContext, EvolutionEngine
from agent_evolve.errors import ConfigError
from agent_evolve.io.safe_json import parse_json
from agent_evolve.llm.metered import MeteredClient, RetryPolicy
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.types import Observation, StepResult, Usage

if TYPE_CHECKING:
    from agent_evolve.algorithms.common.edits import EditBatch
    from agent_evolve.contract.workspace import AgentWorkspace
    from agent_evolve.engine.observer import EvolutionHistory
    from agent_evolve.engine.trial import TrialRunner
    from agent_evolve.llm.base import LLMClient

def metered(llm: LLMClient) -> tuple[MeteredClient, UsageLedger | None]:
    """The engine's client, metered once: a metered client as given, any other on a ledger of the engine's own
    (returned too, so a step can report that usage)."""
    if isinstance(llm, MeteredClient):
        return llm, None
    ledger = UsageLedger()
    return MeteredClient(llm, role="engine", ledger=ledger, retry=RetryPolicy(max_retries=0)), ledger


@dataclass
class StepInput:
    """The step's arguments engines read, and what they derive: the layers it may edit and the batch's evidence."""

    workspace: AgentWorkspace
    observations: list[Observation]
    trial: TrialRunner | None
    layers: set[str]
    hidden: bool
    rejected: str = ""  # the changes the gate rejected since the last accepted version, one line each

    @cached_property
    def evidence(self) -> Evidence:
        """The batch analysed once, on first use (engines that do not read it pay nothing)."""
        return analyse(self.observations, self.hidden)


class ModelEngine(EvolutionEngine):
    """Base of the built-in engines: `Engine(config=None, llm=None, **params)`, unknown params a ConfigError. The
    run's config decides layer flags and trajectory_only; the engine's own config, which model it calls."""

    defaults: ClassVar[dict[str, Any]] = {}
    editable: ClassVar[frozenset[str] | None] = None  # the layers this engine edits at most (None: all)

    def __init__(self, config: EvolveConfig | None = None, llm: LLMClient | None = None, **params: Any) -> None:
        allowed = {"max_tokens": 768, **self.defaults}
        unknown = sorted(set(params) - set(allowed))
        if unknown:
            raise ConfigError(f"{self.engine_name}: unknown params {unknown}; known: {sorted(allowed)}")
        for key, value in params.items():  # a number or a flag of the wrong type would fail mid-run, in every step
            if isinstance(allowed[key], int | float) and not type_ok(value, type(allowed[key])):
                raise ConfigError(f"{self.engine_name}: param {key}={value!r} must be {type_words(type(allowed[key]))}")
        self._config = config
        self._llm, self._own_ledger = metered(llm) if llm is not None else (None, None)
        self.params: dict[str, Any] = {**allowed, **params}
        self._memory_state: dict[str, Any] = {}

    @property
    def config(self) -> EvolveConfig:
        """The run's config while the loop runs the engine, else the one given, else the defaults."""
        return self.context.config if self.context is not None else self._config or EvolveConfig()

    @property
    def llm(self) -> MeteredClient:
        """The engine's model client, built from the config's evolver_model on first use."""
        if self._llm is None:
            from agent_evolve.llm.factory import client_from_config

            self._llm, self._own_ledger = metered(client_from_config(self._config or self.config, "engine"))
        return self._llm

    @property
    def max_tokens(self) -> int:
        """Output tokens per request: the `max_tokens` param, within the config's evolver_max_tokens."""
        return min(int(self.params["max_tokens"]), self.config.evolver_max_tokens)

    @property
    def cycle(self) -> int:
        """The loop's cycle number (0 outside the loop)."""
        return self.context.cycle if self.context is not None else 0

    @property
    def source(self) -> dict[str, Any]:
        """The origin that memory entries and skills written by this step record: the engine and the cycle."""
        return {"source": self.engine_name, "cycle": self.cycle}

    def written(self, batch: EditBatch, metadata: dict[str, Any], shell: list[str] | None = None) -> StepResult:
        """Write the staged edits; the step's result names them and the files `shell` commands changed, and records
        how many edits were proposed, how many were valid and how many files the shell changed (``edits``)."""
        changes = batch.apply() + [f"bash changed {path}" for path in shell or []]
        return StepResult(bool(changes), f"{self.engine_name}: {'; '.join(changes) or 'no change'}",
                          {**metadata, "edits": {**batch.tally(), "shell": len(shell or [])}})

    def step(self, workspace: AgentWorkspace, observations: list[Observation], history: EvolutionHistory,
             trial: TrialRunner | None = None, *, context: EngineContext | None = None) -> StepResult:
        """The template of every built-in engine: bind the context, derive layers and evidence, run `_step`, and
        report the usage of this step's model calls."""
        if context is not None:  # engines run outside the loop keep their own context
            self.context = context
        mark = self.usage_mark()
        layers = self.layers(workspace)
        if self.editable is not None:
            layers &= self.editable
        rejected = rejected_attempts(self.context.history.cycle_records()) if self.context is not None else ""
        result = self._step(StepInput(workspace, observations, trial, layers, self.hidden(observations), rejected))
        # usage of this step's calls on the engine's own ledger (calls through the run's ledger are counted there)
        return replace(result, usage=result.usage + (self.usage_mark() - mark))

    def _step(self, step: StepInput) -> StepResult:
        """The engine's own part of the step."""
        raise NotImplementedError

    def layers(self, workspace: AgentWorkspace) -> set[str]:
        """Layers this step may edit: enabled in the config and declared evolvable by the manifest."""
        return set(enabled_layers(self.config, workspace.path))

    def hidden(self, observations: list[Observation]) -> bool:
        """True when scores and feedback must not be used (trajectory_only)."""
        return self.config.trajectory_only or any(o.feedback.raw.get("hidden") for o in observations)

    def usage_mark(self) -> Usage:
        """The usage on the engine's own ledger so far, to measure a step against."""
        return self._own_ledger.total() if self._own_ledger is not None else Usage()

    def load_state(self) -> dict[str, Any]:
        """The engine's JSON state from state_dir (kept in memory when run outside the loop)."""
        if self.context is None:
            return dict(self._memory_state)
        path = self.context.state_dir / f"{self.engine_name}.json"
        return parse_json(read_regular_text(path), str(path)) if path.is_file() else {}

    def save_state(self, state: dict[str, Any]) -> None:
        """Write the engine's JSON state atomically (into memory outside the loop)."""
        if self.context is None:
            self._memory_state = dict(state)
            return
        atomic_write(self.context.state_dir / f"{self.engine_name}.json", json.dumps(state, indent=1))
