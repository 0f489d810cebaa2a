"""EvolveConfig: every knob of an evolution run, loadable from YAML with errors that name the key."""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.errors import ConfigError
from agent_evolve.io.safe_yaml import load_yaml

DEFAULT_MODEL = "local/qwen2.5-coder-1.5b"
EMBEDDED_SLOTS = 16  # sequences the embedded engine decodes together by default (speed/README.md: the best total rate)
REMOTE_CONCURRENCY = 4  # requests in flight to a remote provider by default, within common rate limits
DEFAULT_AGENT_MAX_TOKENS = 1024  # the agent's answer limit when neither the config nor the manifest sets one
# Names a key may take, checked before anything loads (engine.acceptance and engine.executors agree; a test checks).
GATE_STRATEGIES = ("strict", "min_improvement", "paired", "best_so_far", "keep")
EXECUTORS = ("threads", "processes", "ray")
GRADER_OPTIONS = ("ignore_case", "strip_punctuation")  # options of the jsonl exact grader


@dataclass
class EvolveConfig:
    # Batch and cycle control
    batch_size: int = 10
    max_cycles: int = 20
    holdout_ratio: float = 0.2

    # Evolvable layers
    evolve_prompts: bool = True
    evolve_skills: bool = True
    evolve_memory: bool = True
    evolve_tools: bool = False

    # Observation transparency
    trajectory_only: bool = False

    # Evolver LLM
    evolver_model: str = DEFAULT_MODEL
    evolver_max_tokens: int = 16384

    # Convergence
    egl_threshold: float = 0.05
    egl_window: int = 3

    # Extension point
    extra: dict[str, Any] = field(default_factory=dict)

    # Agent LLM and provider settings per role (llm_base_url is the agent's only, llm_timeout_s both roles' default)
    agent_model: str = DEFAULT_MODEL
    agent_max_tokens: int | None = None
    agent_temperature: float | None = None
    agent_base_url: str | None = None
    agent_timeout_s: float | None = None
    evolver_base_url: str | None = None
    evolver_timeout_s: float | None = None
    llm_base_url: str | None = None
    llm_timeout_s: float | None = None  # None: 120 s for remote providers, 1800 s for the embedded model
    llm_max_retries: int = 3
    llm_cache: bool = True  # a run caches replies (llm_cache_dir, else its records folder); false: never
    llm_cache_dir: str | None = None
    prices: dict[str, Any] = field(default_factory=dict)

    # Data and reproducibility
    seed: int = 0
    task_pool_limit: int = 100_000
    holdout_limit: int | None = 50  # cap on the carved holdout, so a local model can afford each gate (None: no cap)
    val_ratio: float = 0.0  # share of the train pool (after the holdout) kept as learners' validation tasks
    val_limit: int | None = None

    # Gate
    gate_strategy: str = "strict"  # strict | min_improvement | paired | best_so_far | keep
    gate_min_improvement: float = 0.0
    gate_accept_ties: bool = False
    gate_repeats: int = 1  # score each holdout task k times
    gate_alpha: float = 0.05  # significance level of the paired strategy
    gate_remeasure_incumbent: bool | None = None  # None: only when the agent or grader is not deterministic
    gate_curtail: bool = True  # stop a gate or trial once no outcome of its unscored tasks can change it
    gate_sprt_beta: float | None = None  # off; else also stop (reject) once an SPRT says futile: a candidate winning 2 of 3 differing tasks is stopped with probability <= this

    # Stopping and faults
    patience: int | None = None  # stop after this many cycles without an accepted improvement (off by default)
    max_infra_failure_ratio: float = 0.25  # a batch or gate with more infrastructure failures is a failed cycle
    preflight: bool = True  # check every model role and the benchmark before the baseline

    # Engine and grader parameters
    engine_params: dict[str, Any] = field(default_factory=dict)
    engine_resume: bool = False  # hand an engine that supports_resume its previous session handle
    grader: str | None = None  # jsonl benchmarks: exact | regex | numeric | python:module:function
    answer_kind: str | None = None  # jsonl benchmarks: what every answer is (benchmarks.answer_kinds); None: inferred
    grader_options: dict[str, Any] = field(default_factory=dict)  # jsonl exact grader: ignore_case, strip_punctuation

    # Execution
    concurrency: int | None = None  # tasks in flight; None: `in_flight`, which fills the embedded engine's slots
    executor: str = "threads"  # threads | processes | ray
    ray_address: str | None = None
    allow_early_stop: bool = True

    # Budgets (None = unlimited)
    max_total_tokens: int | None = None
    max_cost_usd: float | None = None

    def __post_init__(self) -> None:
        validate_config(self)

    @property
    def in_flight(self) -> int:
        """Tasks (and model calls) in flight: `concurrency` when set, else the embedded engine's slots when threads
        share one local agent model (its best measured rate), else 4 (remote rate limits; processes load their own)."""
        if self.concurrency is not None:
            return self.concurrency
        shared_engine = self.executor == "threads" and self.agent_model.startswith("local/")
        return EMBEDDED_SLOTS if shared_engine else REMOTE_CONCURRENCY

    @classmethod
    def from_yaml(cls, path: str | Path) -> EvolveConfig:
        """Load a YAML file; unknown keys, wrong types or values raise ConfigError naming the file and the key."""
        path = Path(path)
        try:
            text = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raise ConfigError(f"{path}: config file not found") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save the config as UTF-8") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the config: {exc.strerror or exc}") from None
        data = load_yaml(text, str(path), ConfigError)
        return cls.from_dict({} if data is None else data, source=str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "config") -> EvolveConfig:
        """Build from a mapping; an unknown key (with the nearest known one), a wrong type or value raises
        ConfigError naming the key. A run's own extension settings go under `extra:`."""
        if not isinstance(data, dict):
            raise ConfigError(f"{source}: expected a mapping of keys to values, got {type(data).__name__}")
        odd = [k for k in data if not isinstance(k, str)]
        if odd:
            raise ConfigError(f"{source}: keys must be names, got {odd[0]!r} ({type(odd[0]).__name__})")
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = [k for k in data if k not in known]
        if unknown:
            raise ConfigError(f"{source}: {unknown_key_message(unknown[0], known, _OWN_SETTINGS)}")
        if data.get("extra") is None:
            data = {**data, "extra": {}}
        try:
            return cls(**data)
        except ConfigError as exc:
            raise ConfigError(f"{source}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# key: (description, minimum inclusive, maximum exclusive)
_RULES: dict[str, tuple[str, float | None, float | None]] = {
    **dict.fromkeys(("batch_size", "evolver_max_tokens", "agent_max_tokens", "egl_window", "task_pool_limit",
                     "holdout_limit", "val_limit", "gate_repeats", "patience", "concurrency", "max_total_tokens"),
                    ("a positive integer", 1, None)),
    **dict.fromkeys(("llm_timeout_s", "agent_timeout_s", "evolver_timeout_s"), ("a positive number", 1e-9, None)),
    **dict.fromkeys(("holdout_ratio", "val_ratio"), ("a number in [0, 1)", 0.0, 1.0)),
    **dict.fromkeys(("max_cycles", "llm_max_retries"), ("a non-negative integer", 0, None)),
    **dict.fromkeys(("egl_threshold", "gate_min_improvement"), ("a non-negative number", 0.0, None)),
    "agent_temperature": ("a number in [0, 2]", 0.0, 2.0 + 1e-12),
    "gate_alpha": ("a number in (0, 1)", 1e-12, 1.0),
    "gate_sprt_beta": ("a number in (0, 1) or null (off)", 1e-12, 1.0),
    "max_infra_failure_ratio": ("a number in [0, 1]", 0.0, 1.0 + 1e-12),
    "max_cost_usd": ("a positive number", 1e-12, None),
}


def unknown_key_message(key: str, known: list[str], otherwise: str) -> str:
    """`unknown key 'batch_sise' (did you mean 'batch_size'?)` when a known name is close, else `otherwise`."""
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f"unknown key '{key}'" + (f" (did you mean '{close[0]}'?)" if close else f"; {otherwise}")


_OWN_SETTINGS = "put a setting of your own under 'extra:'"


def type_ok(value: Any, annotation: Any) -> bool:
    """Whether `value` fits a settings annotation (unions, Literal, bool apart from int, an int as a float)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(type_ok(value, arg) for arg in typing.get_args(annotation))
    if origin is typing.Literal:
        return value in typing.get_args(annotation)
    if annotation is type(None):
        return value is None
    annotation = origin or annotation
    if annotation is Any:
        return True
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, annotation)


_TYPE_WORDS: dict[Any, str] = {int: "a whole number", float: "a number", str: "text", bool: "true or false",
                               type(None): "null", list: "a list", dict: "a mapping", Any: "any value"}


def type_words(annotation: Any) -> str:
    """A settings annotation as a YAML user reads it: `int | None` is "a whole number or null"."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_words(arg) for arg in typing.get_args(annotation))
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(arg) for arg in typing.get_args(annotation))
    return _TYPE_WORDS.get(origin or annotation, getattr(annotation, "__name__", str(annotation)))


def with_reply_cache(config: EvolveConfig, folder: Path | None) -> EvolveConfig:
    """`config` caching replies in `folder` unless caching is off or a folder is named: asking again adds churn no edit
    caused (greedy decoding is not bit-stable across batches), so a run keeps one cache for all it asks."""
    if folder is None or not config.llm_cache or config.llm_cache_dir is not None:
        return config
    return dataclasses.replace(config, llm_cache_dir=str(folder.resolve()))


def validate_config(config: EvolveConfig) -> None:
    """Raise ConfigError naming the first key whose value has the wrong type or is out of range."""
    hints = typing.get_type_hints(type(config))
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if not type_ok(value, hints[f.name]):
            raise ConfigError(f"key '{f.name}' must be {type_words(hints[f.name])}, got {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"key '{f.name}' must be a finite number, got {value!r}")
        if f.name in _RULES and value is not None:
            description, low, high = _RULES[f.name]
            if (low is not None and value < low) or (high is not None and value >= high):
                raise ConfigError(f"key '{f.name}' must be {description}, got {value!r}")
    for key, choices in (("gate_strategy", GATE_STRATEGIES), ("executor", EXECUTORS)):
        if getattr(config, key) not in choices:
            raise ConfigError(f"key '{key}' must be one of {', '.join(choices)}, got {getattr(config, key)!r}")
    for option, value in config.grader_options.items():
        if option not in GRADER_OPTIONS:
            known = f"grader options are {', '.join(GRADER_OPTIONS)}"
            raise ConfigError(f"grader_options: {unknown_key_message(str(option), list(GRADER_OPTIONS), known)}")
        if not isinstance(value, bool):
            raise ConfigError(f"grader_options: '{option}' must be true or false, got {value!r}")
    for model_key in ("evolver_model", "agent_model"):
        if not getattr(config, model_key).strip():
            raise ConfigError(f"key '{model_key}' must name a model, got an empty string")
