"""The embedded model's generation loop on llama.cpp's low-level API: one worker thread decodes every slot's sequence
(KV-cache prefixes reused, optional prompt-lookup drafts) in one batch per step."""

from __future__ import annotations

import ctypes
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.llm.llama_batching import (Active, Entry, Finish, accepted_tokens, lookup_draft, place, plan_step,
                                             reply_end)
from agent_evolve.llm.local_settings import EngineSettings

log = logging.getLogger(__name__)

TOP_K, TOP_P, MIN_P = 40, 0.95, 0.05  # llama-cpp-python's sampling defaults, kept for temperature > 0
PIECE_BYTES = 64  # longer than any token's text
GGML_ERROR, GGML_CONTINUE = 3, 5  # ggml_log_level values
BENIGN_ERRORS = ("n_ctx_seq", "control-looking token")
"""Lines llama.cpp logs as errors that this engine's own settings make harmless: a unified cache lets a sequence span
all slots' cells (the engine ends each at ``n_ctx``), and the Qwen GGUF's vocabulary marks '</s>' oddly."""
_log_callback: Any = None  # the installed C callback, kept alive while llama.cpp may call it


def reported_log_line(level: int, text: str) -> str | None:
    """The llama.cpp log line worth a user's eyes: an error that is not a benign one; None for the rest."""
    line = text.rstrip()
    return line if level == GGML_ERROR and line and not any(b in line for b in BENIGN_ERRORS) else None


def _route_llama_logs(llama_cpp: Any) -> None:
    """Send llama.cpp's reported errors to this module's logger instead of its own printing to stderr."""
    global _log_callback
    if _log_callback is not None:
        return
    last_level = [0]

    def forward(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
        last_level[0] = last_level[0] if level == GGML_CONTINUE else level
        line = reported_log_line(last_level[0], text.decode("utf-8", errors="replace"))
        if line is not None:
            log.error("llama.cpp: %s", line)

    _log_callback = llama_cpp.llama_log_callback(forward)
    llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))


@dataclass
class Generation:
    """A finished request: the reply, token counts (``cached`` prompt tokens were not read again), why it ended."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    finish: Finish
    drafted_tokens: int = 0
    accepted_drafts: int = 0


@dataclass
class _Request:
    prompt: list[int]
    max_tokens: int
    stops: tuple[str, ...]
    temperature: float
    seed: int
    deadline: float | None
    complete_at: Callable[[str], int | None] | None
    done: threading.Event = field(default_factory=threading.Event)
    result: Generation | None = None
    error: BaseException | None = None


class LlamaEngine:
    """A GGUF model with ``settings.slots`` KV-cache sequences of ``n_ctx`` tokens each, served by one worker. A unified
    cache (``settings.kv_unified``) shares a prefix without a copy but each token attends over every slot's cells
    (masked); per-slot caches attend over their own cells only and copy a prefix between slots as a whole buffer."""

    def __init__(self, path: Path, *, n_ctx: int, settings: EngineSettings) -> None:
        import llama_cpp
        from llama_cpp import _internals
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        _route_llama_logs(llama_cpp)
        self._lib = llama_cpp
        self._piece_buffer = ctypes.create_string_buffer(PIECE_BYTES)
        self.settings = settings
        self.n_ctx, self.slots, self.n_batch = n_ctx, settings.slots, settings.n_batch
        self._model = _internals.LlamaModel(path_model=str(path), params=llama_cpp.llama_model_default_params(),
                                            verbose=False)
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx * self.slots
        params.n_batch, params.n_ubatch = settings.n_batch, settings.n_ubatch
        params.n_seq_max = self.slots
        params.kv_unified = settings.kv_unified
        params.n_threads = params.n_threads_batch = settings.n_threads
        params.no_perf = True
        self._ctx = _internals.LlamaContext(model=self._model, params=params, verbose=False)
        self._memory = llama_cpp.llama_get_memory(self._ctx.ctx)
        self._batch = llama_cpp.llama_batch_init(settings.n_batch, 0, 1)
        eos = self._model.token_eos()
        template = self._model.metadata().get("tokenizer.chat_template")
        if not template:
            raise ValueError(f"{path}: the model file has no chat template")
        self._formatter = Jinja2ChatFormatter(
            template=template, eos_token=self._model.token_get_text(eos) if eos != -1 else "",
            bos_token="", stop_token_ids=[eos])
        self._cached: dict[int, list[int]] = {}
        self._last_used: dict[int, int] = {}
        self._queue: queue.Queue[_Request] = queue.Queue()
        self._worker = threading.Thread(target=self._serve, name="llama-engine", daemon=True)
        self._worker.start()

    def prompt_tokens(self, chat: list[dict[str, str]]) -> tuple[list[int], tuple[str, ...]]:
        """The model's chat template applied to ``chat``, tokenised, and the template's own stop strings."""
        formatted = self._formatter(messages=chat)
        tokens = self._model.tokenize(formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special,
                                      special=True)
        stop = formatted.stop or []
        return list(tokens), tuple([stop] if isinstance(stop, str) else stop)

    def generate(self, prompt: list[int], *, max_tokens: int, stops: tuple[str, ...], temperature: float,
                 seed: int, deadline: float | None,
                 complete_at: Callable[[str], int | None] | None = None) -> Generation:
        """Queue a request and wait for it; it ends at EOG, a stop string, where ``complete_at`` finds the answer
        complete, ``max_tokens``, its slot's context or ``deadline`` (``time.monotonic()``), whichever is first."""
        request = _Request(prompt, max_tokens, stops, temperature, seed, deadline, complete_at)
        self._queue.put(request)
        request.done.wait()
        if request.error is not None:
            raise request.error
        assert request.result is not None
        return request.result

    def _serve(self) -> None:
        waiting: list[_Request] = []
        running: dict[int, tuple[_Request, Active, Any]] = {}
        while True:
            if not waiting and not running:
                waiting.append(self._queue.get())
            while not self._queue.empty():  # this thread is the only consumer: a non-empty queue stays so
                waiting.append(self._queue.get_nowait())
            now = time.monotonic()
            for request in [r for r in waiting if r.deadline is not None and now >= r.deadline]:
                waiting.remove(request)
                request.result = Generation("", len(request.prompt), 0, 0, "timeout")
                request.done.set()
            while waiting and len(running) < self.slots:
                request = waiting.pop(0)
                try:
                    running_slot = self._admit(request, [s for s in range(self.slots) if s not in running])
                except Exception as exc:  # noqa: BLE001 - handed to the caller, the loop keeps serving
                    request.error = exc
                    request.done.set()
                    continue
                running[running_slot[1].slot] = running_slot
            try:
                self._step(running)
            except Exception as exc:  # noqa: BLE001 - a failed decode fails the requests in it, not the loop
                log.exception("local model decode failed")
                for slot, (request, _, _) in list(running.items()):
                    self._lib.llama_sampler_free(running.pop(slot)[2])
                    self._lib.llama_memory_seq_rm(self._memory, slot, 0, -1)
                    self._cached[slot] = []
                    request.error = exc
                    request.done.set()

    def _admit(self, request: _Request, free: list[int]) -> tuple[_Request, Active, Any]:
        placement = place(request.prompt, free, self._cached, self._last_used)
        slot, reuse = placement.slot, placement.reuse
        lib = self._lib
        if placement.source != slot:
            lib.llama_memory_seq_rm(self._memory, slot, 0, -1)
            if self.settings.kv_unified:  # the prefix's cells are shared, nothing is copied
                lib.llama_memory_seq_cp(self._memory, placement.source, slot, 0, reuse)
            else:  # llama.cpp copies between per-slot caches only whole: copy it all, then drop the tail
                lib.llama_memory_seq_cp(self._memory, placement.source, slot, -1, -1)
                lib.llama_memory_seq_rm(self._memory, slot, reuse, -1)
        elif not lib.llama_memory_seq_rm(self._memory, slot, reuse, -1):
            lib.llama_memory_seq_rm(self._memory, slot, 0, -1)
            reuse = 0
        self._cached[slot] = request.prompt[:reuse]
        self._last_used[slot] = max(self._last_used.values(), default=0) + 1
        active = Active(slot, request.prompt[reuse:], reuse, request.max_tokens, request.stops, request.deadline,
                        complete_at=request.complete_at)
        request.result = Generation("", len(request.prompt), 0, reuse, "stop")
        return request, active, self._sampler(request.temperature, request.seed)

    def _sampler(self, temperature: float, seed: int) -> Any:
        lib = self._lib
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        if temperature <= 0:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_greedy())
            return chain
        for sampler in (lib.llama_sampler_init_top_k(TOP_K), lib.llama_sampler_init_top_p(TOP_P, 1),
                        lib.llama_sampler_init_min_p(MIN_P, 1), lib.llama_sampler_init_temp(temperature),
                        lib.llama_sampler_init_dist(seed)):
            lib.llama_sampler_chain_add(chain, sampler)
        return chain

    def _step(self, running: dict[int, tuple[_Request, Active, Any]]) -> None:
        now = time.monotonic()
        for slot, (_, active, _) in list(running.items()):
            if active.expired(now):
                self._finish(running, slot, "timeout")
        entries = plan_step([a for _, a, _ in running.values()], self.n_batch)
        if not entries:
            return
        batch = self._batch
        outputs: dict[int, int] = {}
        n = 0
        for entry in entries:
            for offset, token in enumerate(entry.tokens):
                batch.token[n] = token
                batch.pos[n] = entry.start + offset
                batch.n_seq_id[n] = 1
                batch.seq_id[n][0] = entry.slot
                batch.logits[n] = offset >= len(entry.tokens) - entry.outputs
                n += 1
            outputs[entry.slot] = n - 1
        batch.n_tokens = n
        status = self._lib.llama_decode(self._ctx.ctx, batch)
        if status != 0:
            raise RuntimeError(f"llama_decode returned {status} (the KV cache is full or the batch is invalid)")
        for entry in entries:
            self._absorb(running, entry, outputs[entry.slot])

    def _absorb(self, running: dict[int, tuple[_Request, Active, Any]], entry: Entry, last: int) -> None:
        """Take one slot's decoded tokens into its state and sample what it asked logits for (row ``last`` is
        the batch index of its last token)."""
        request, active, sampler = running[entry.slot]
        if active.next_token is None:
            self._cached[entry.slot] = self._cached[entry.slot] + entry.tokens
            active.n_past += len(entry.tokens)
            del active.pending[: len(entry.tokens)]
            if entry.outputs:
                self._emit(running, entry.slot, [self._lib.llama_sampler_sample(sampler, self._ctx.ctx, last)])
            return
        draft, first = entry.tokens[1:], last - len(entry.tokens) + 1
        kept = accepted_tokens(draft, lambda i: self._lib.llama_sampler_sample(sampler, self._ctx.ctx, first + i))
        fed = len(kept)  # the next token and the drafted tokens the model confirmed are in the cache now
        if fed < len(entry.tokens):
            self._lib.llama_memory_seq_rm(self._memory, entry.slot, active.n_past + fed, -1)
        self._cached[entry.slot] = self._cached[entry.slot] + entry.tokens[:fed]
        active.n_past += fed
        active.next_token = None
        assert request.result is not None
        request.result.drafted_tokens += len(draft)
        request.result.accepted_drafts += fed - 1
        self._emit(running, entry.slot, kept)

    def _emit(self, running: dict[int, tuple[_Request, Active, Any]], slot: int, tokens: list[int]) -> None:
        """Append sampled tokens to a reply until one ends it (the i-th of k tokens was sampled with ``n_past - (k -
        1 - i)`` tokens cached); the last kept one is decoded next."""
        request, active, _ = running[slot]
        vocab = self._model.vocab
        for index, token in enumerate(tokens):
            if self._lib.llama_vocab_is_eog(vocab, token):
                self._finish(running, slot, "stop")
                return
            active.generated.append(token)
            active.text += self._piece(token)
            cut = reply_end(active.text.decode("utf-8", errors="ignore"), active.stops, active.complete_at)
            if cut is not None:
                self._finish(running, slot, "stop", cut)
                return
            n_past = active.n_past - (len(tokens) - 1 - index)
            if len(active.generated) >= active.max_tokens or n_past + 1 >= self.n_ctx:
                self._finish(running, slot, "length")
                return
        active.next_token = tokens[-1]
        active.draft = self._draft(request, active)

    def _draft(self, request: _Request, active: Active) -> list[int]:
        """Prompt-lookup draft tokens for a greedy request when drafts are on, within its token and context room."""
        settings = self.settings
        if settings.draft != "prompt-lookup" or request.temperature > 0:
            return []
        room = min(settings.draft_tokens, active.max_tokens - len(active.generated) - 1,
                   self.n_ctx - active.n_past - 2)
        if room <= 0:
            return []
        return lookup_draft(request.prompt + active.generated, settings.draft_ngram, room)

    def _piece(self, token: int) -> bytes:
        """The bytes of one token's text (special tokens render as nothing)."""
        n = self._lib.llama_token_to_piece(self._model.vocab, token, self._piece_buffer, PIECE_BYTES, 0, False)
        return self._piece_buffer.raw[: max(n, 0)]

    def _finish(self, running: dict[int, tuple[_Request, Active, Any]], slot: int, finish: Finish,
                cut: int | None = None) -> None:
        request, active, sampler = running.pop(slot)
        self._lib.llama_sampler_free(sampler)
        text = active.text.decode("utf-8", errors="ignore")
        assert request.result is not None
        request.result.text = text if cut is None else text[:cut]
        request.result.completion_tokens = len(active.generated)
        request.result.finish = finish
        request.done.set()


def system_info() -> str:
    """What the installed llama.cpp was built with (``AVX2 = 1`` and friends), for the doctor and benchmarks."""
    import llama_cpp

    return str(llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")).strip()
