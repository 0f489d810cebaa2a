"""The embedded local model: llama.cpp in process, one engine per model serving concurrent calls in batches."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.errors import optional_module
from agent_evolve.llm.base import Completion, FinishReason, Message, ToolCall, ToolSpec
from agent_evolve.llm.draws import DrawCounter, draw_seed
from agent_evolve.llm.errors import ContextLengthError, LLMTimeoutError
from agent_evolve.llm.local_model import ensure_model_file
from agent_evolve.llm.local_settings import EngineSettings
from agent_evolve.llm.models import LocalModelSpec, llama_install_hint
from agent_evolve.llm.providers._common import one_call
from agent_evolve.llm.qwen_tools import parse_tool_calls, to_chat_messages
from agent_evolve.llm.stops import StopRule

log = logging.getLogger(__name__)

DEFAULT_N_CTX = 4096
DEFAULT_MAX_TOKENS = 1024


class LocalDeadlineError(LLMTimeoutError):
    """The local model reached the call's deadline and stopped generating; not retried, since the same
    machine would need as long again."""

    retryable = False


@dataclass
class LoadedModel:
    """A loaded model's engine, where its file is, and how long preparing and loading took."""

    engine: Any
    path: Path
    prepare_s: float
    load_s: float


_models: dict[tuple[str, int], LoadedModel] = {}
_models_lock = threading.Lock()


def _import_llama_cpp() -> Any:
    """llama-cpp-python, or MissingDependencyError with the command that builds it portable."""
    return optional_module("llama_cpp", "local", "the local model", llama_install_hint())


def load_model(spec: LocalModelSpec, *, n_ctx: int = DEFAULT_N_CTX, cache_dir: str | None = None) -> LoadedModel:
    """The process-wide engine of spec (joined, verified and loaded on first use), speed settings from
    ``AGENT_EVOLVE_*`` variables (:class:`~agent_evolve.llm.local_settings.EngineSettings`); each slot has ``n_ctx``
    tokens of context."""
    key = (spec.name, n_ctx)
    with _models_lock:
        if key in _models:
            return _models[key]
        settings = EngineSettings.from_env()
        _import_llama_cpp()
        from agent_evolve.llm.providers.llama_engine import LlamaEngine

        started = time.perf_counter()
        path = ensure_model_file(spec, directory=cache_dir)
        prepared = time.perf_counter()
        engine = LlamaEngine(path, n_ctx=n_ctx, settings=settings)
        loaded = LoadedModel(engine, path, prepared - started, time.perf_counter() - prepared)
        log.info("loaded %s from %s (prepare %.1fs, load %.1fs)", spec.name, path, loaded.prepare_s, loaded.load_s)
        _models[key] = loaded
        return loaded


class LocalLlamaClient:
    """An LLMClient over the embedded GGUF model, using the model's own chat template and Qwen-style tool calls."""

    def __init__(
        self, model: str, spec: LocalModelSpec, *, n_ctx: int = DEFAULT_N_CTX, cache_dir: str | None = None,
        timeout_s: float | None = None, seed: int = 0,
    ) -> None:
        self.model = model
        self.provider = "local"
        self.spec = spec
        self.n_ctx = n_ctx
        self.cache_dir = cache_dir
        self.timeout_s = timeout_s
        self.seed = seed
        self._draws = DrawCounter()

    def _seed(self, prompt: list[int], max_tokens: int | None, stop: list[str] | None, temperature: float) -> int:
        """The client's seed, moved on for each repeat of one sampled request (greedy requests ignore it)."""
        if temperature <= 0:
            return self.seed
        return draw_seed(self.seed, self._draws.next([prompt, max_tokens, stop, temperature]))

    def __repr__(self) -> str:
        return f"LocalLlamaClient(model={self.model!r}, n_ctx={self.n_ctx})"

    def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        stop: list[str] | None = None,
    ) -> Completion:
        """Generate a reply in process (a <tool_call> block becomes a ToolCall); past the ``timeout_s`` deadline it
        raises :class:`LocalDeadlineError`; a ``stop`` that is a :class:`StopRule` ends the reply where it is
        complete."""
        started = time.monotonic()
        engine = load_model(self.spec, n_ctx=self.n_ctx, cache_dir=self.cache_dir).engine
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
