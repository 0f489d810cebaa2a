"""The embedded local model: llama-cpp-python in process, one instance per model, calls serialised."""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.errors import MissingDependencyError
from agent_evolve.llm.base import Completion, FinishReason, Message, ToolCall, ToolSpec
from agent_evolve.llm.errors import ContextLengthError, LLMError
from agent_evolve.llm.local_model import ensure_model_file
from agent_evolve.llm.models import LocalModelSpec, llama_install_hint
from agent_evolve.llm.qwen_tools import parse_tool_calls, to_chat_messages
from agent_evolve.types import Usage

log = logging.getLogger(__name__)

DEFAULT_N_CTX = 4096
DEFAULT_MAX_TOKENS = 1024


@dataclass
class LoadedModel:
    """A loaded llama.cpp model with the lock that serialises its calls, and how long loading took."""

    llama: Any
    lock: threading.Lock
    path: Path
    prepare_s: float
    load_s: float


_models: dict[tuple[str, int], LoadedModel] = {}
_models_lock = threading.Lock()


def _import_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as exc:
        raise MissingDependencyError(
            f"the local model needs llama-cpp-python; install it with: {llama_install_hint()}"
        ) from exc
    return llama_cpp


def load_model(spec: LocalModelSpec, *, n_ctx: int = DEFAULT_N_CTX, cache_dir: str | None = None) -> LoadedModel:
    """The process-wide instance of spec (joined, verified and loaded on first use; later calls reuse it)."""
    key = (spec.name, n_ctx)
    with _models_lock:
        if key in _models:
            return _models[key]
        llama_cpp = _import_llama_cpp()
        started = time.perf_counter()
        path = ensure_model_file(spec, directory=cache_dir)
        prepared = time.perf_counter()
        threads = int(os.environ.get("AGENT_EVOLVE_N_THREADS") or 0) or os.cpu_count() or 1
        llama = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads, verbose=False, seed=0)
        loaded = LoadedModel(llama, threading.Lock(), path, prepared - started, time.perf_counter() - prepared)
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
        self.timeout_s = timeout_s
        self.seed = seed
        self.provider = "local"
        self.spec = spec
        self.n_ctx = n_ctx
        self.cache_dir = cache_dir

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
        """Generate a reply in process; a <tool_call> block in the reply becomes a ToolCall."""
        loaded = load_model(self.spec, n_ctx=self.n_ctx, cache_dir=self.cache_dir)
        chat = to_chat_messages(messages, tools)
        try:
            with loaded.lock:
                response = loaded.llama.create_chat_completion(
                    messages=chat, max_tokens=max_tokens or DEFAULT_MAX_TOKENS, temperature=temperature,
                    stop=stop or None, seed=self.seed,
                )
        except ValueError as exc:
            if "context" in str(exc).lower():
                raise ContextLengthError(str(exc), provider="local", model=self.spec.name) from None
            raise LLMError(str(exc), provider="local", model=self.spec.name) from None
        choice = response["choices"][0]
        text = choice["message"].get("content") or ""
        calls: list[ToolCall] = []
        if tools:
            text, calls = parse_tool_calls(text, {t.name for t in tools})
        usage = response.get("usage") or {}
        finish: FinishReason = "tool_calls" if calls else "stop"
        if choice.get("finish_reason") == "length":
            finish = "length"
        return Completion(
            text=text,
            tool_calls=calls,
            usage=Usage(calls=1, input_tokens=usage.get("prompt_tokens", 0),
                        output_tokens=usage.get("completion_tokens", 0)),
            finish_reason=finish,
            model=self.model,
        )
