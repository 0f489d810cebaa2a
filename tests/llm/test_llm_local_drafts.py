"""The engine's cache bookkeeping on a fake llama.cpp: drafted greedy replies equal plain ones, rejected drafted
tokens leave the cache, stop rules end replies the same way with drafts on, and a prefix copied between per-slot
caches (copied whole, its tail dropped) answers as a unified cache's shared prefix does."""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import replace
from types import SimpleNamespace

import pytest

from agent_evolve.llm.local_settings import EngineSettings
from agent_evolve.llm.providers.llama_engine import LlamaEngine


class FakeLlama:
    """A deterministic "model": the token after position p is a function of the two cached tokens ending at p.

    Like llama.cpp, a position may be written once per sequence until removed, so a drafted token left in the
    cache after its rejection fails the next decode."""

    def __init__(self, n_batch: int, unified: bool = True) -> None:
        self.unified, self.copies = unified, 0
        self.cache: dict[int, dict[int, int]] = {}
        self.batch = SimpleNamespace(token=[0] * n_batch, pos=[0] * n_batch, n_seq_id=[0] * n_batch,
                                     seq_id=[[0] for _ in range(n_batch)], logits=[False] * n_batch, n_tokens=0)
        self.decoded_tokens = 0

    def llama_decode(self, ctx: object, batch: SimpleNamespace) -> int:
        for i in range(batch.n_tokens):
            cells = self.cache.setdefault(batch.seq_id[i][0], {})
            assert batch.pos[i] not in cells, f"position {batch.pos[i]} decoded twice"
            cells[batch.pos[i]] = batch.token[i]
        self.decoded_tokens += batch.n_tokens
        return 0

    def llama_sampler_sample(self, sampler: object, ctx: object, index: int) -> int:
        batch = self.batch
        assert batch.logits[index]
        cells, pos = self.cache[batch.seq_id[index][0]], batch.pos[index]
        return (3 * cells.get(pos - 1, 1) + cells[pos]) % 17 + 10

    def llama_memory_seq_rm(self, memory: object, seq: int, p0: int, p1: int) -> bool:
        cells = self.cache.setdefault(seq, {})
        for pos in [p for p in cells if p >= p0 and (p1 < 0 or p < p1)]:
            del cells[pos]
        return True

    def llama_memory_seq_cp(self, memory: object, source: int, target: int, p0: int, p1: int) -> None:
        """As llama.cpp: negative bounds mean the whole sequence; between per-slot caches only whole copies."""
        if not self.unified:
            assert p0 < 0 and p1 < 0, "seq_cp() is only supported for full KV buffers"
        self.copies += 1
        end = p1 if p1 >= 0 else 1 << 30
        self.cache[target] = {p: t for p, t in self.cache.get(source, {}).items() if max(p0, 0) <= p < end}

    def llama_vocab_is_eog(self, vocab: object, token: int) -> bool:
        return token == 0

    def llama_sampler_chain_default_params(self) -> None:
        return None

    def llama_sampler_chain_init(self, params: object) -> object:
        return object()

    def llama_sampler_init_greedy(self) -> object:
        return object()

    def llama_sampler_chain_add(self, chain: object, sampler: object) -> None:
        return None

    def llama_sampler_free(self, sampler: object) -> None:
        return None


def fake_engine(settings: EngineSettings, n_ctx: int = 256) -> tuple[LlamaEngine, FakeLlama]:
    lib = FakeLlama(settings.n_batch, settings.kv_unified)
    engine = LlamaEngine.__new__(LlamaEngine)
    engine.settings, engine.n_ctx, engine.slots, engine.n_batch = settings, n_ctx, settings.slots, settings.n_batch
    engine._lib, engine._batch, engine._memory = lib, lib.batch, None
    engine._ctx, engine._model = SimpleNamespace(ctx=None), SimpleNamespace(vocab=None)
    engine._piece = lambda token: f"<{token}>".encode()  # type: ignore[method-assign]
    engine._cached, engine._last_used, engine._queue = {}, {}, queue.Queue()
    engine._worker = threading.Thread(target=engine._serve, daemon=True)
    engine._worker.start()
    return engine, lib


PROMPT = [5, 9, 12, 7, 5, 9, 12, 7, 5, 9]


def reply(engine: LlamaEngine, prompt: list[int], complete_at=None, max_tokens: int = 60) -> tuple[str, int]:
    generation = engine.generate(prompt, max_tokens=max_tokens, stops=(), temperature=0.0, seed=0,
                                 deadline=None, complete_at=complete_at)
    return generation.text, generation.completion_tokens


@pytest.mark.parametrize("slots", [1, 3])
def test_drafted_greedy_replies_equal_plain_ones_in_fewer_decoded_steps(slots: int) -> None:
    settings = EngineSettings(slots=slots, n_threads=1, n_batch=64)
    plain_engine, plain_lib = fake_engine(settings)
    drafting_engine, drafting_lib = fake_engine(replace(settings, draft="prompt-lookup", draft_tokens=6))
    prompts = [PROMPT, [*PROMPT, 11], [3, 4, 3, 4, 3]]
    plain = [reply(plain_engine, p) for p in prompts]
    results: dict[int, tuple[str, int]] = {}
    workers = [threading.Thread(target=lambda i=i: results.__setitem__(i, reply(drafting_engine, prompts[i])))
               for i in range(len(prompts))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert [results[i] for i in range(len(prompts))] == plain
    assert all(tokens == 60 for _, tokens in plain)
    assert drafting_lib.decoded_tokens > plain_lib.decoded_tokens  # drafts were fed, some rejected and removed


def test_a_stop_rule_ends_a_drafted_reply_where_it_ends_a_plain_one() -> None:
    settings = EngineSettings(slots=1, n_threads=1, n_batch=64)
    plain_engine, _ = fake_engine(settings)
    drafting_engine, _ = fake_engine(replace(settings, draft="prompt-lookup"))
    plain_text, _ = reply(plain_engine, PROMPT)
    marker = plain_text[20:32]

    def complete_at(text: str) -> int | None:
        found = text.find(marker)
        return None if found < 0 else found + len(marker)

    cut = reply(plain_engine, PROMPT, complete_at)
    assert cut == reply(drafting_engine, PROMPT, complete_at)
    assert plain_text.startswith(cut[0]) and len(cut[0]) < len(plain_text)


def test_a_drafted_reply_meets_the_context_limit_where_a_plain_one_does() -> None:
    settings = EngineSettings(slots=1, n_threads=1, n_batch=64)
    plain_engine, _ = fake_engine(settings, n_ctx=40)
    drafting_engine, _ = fake_engine(replace(settings, draft="prompt-lookup"), n_ctx=40)
    plain = reply(plain_engine, PROMPT)
    assert plain[1] < 60  # ended by the context, not by max_tokens
    assert reply(drafting_engine, PROMPT) == plain


@pytest.mark.parametrize("kv_unified", [True, False])
def test_a_prefix_copied_to_another_slot_answers_as_the_prompt_read_alone(kv_unified: bool) -> None:
    settings = EngineSettings(slots=2, n_threads=1, n_batch=64, kv_unified=kv_unified)
    engine, lib = fake_engine(settings)
    first, second = [*PROMPT, 4], [*PROMPT, 6]
    generating, go = threading.Event(), threading.Event()

    def hold_once(text: str) -> None:  # keeps the first request in slot 0 until the second is queued
        if not generating.is_set():
            generating.set()
            go.wait(10)

    results: dict[str, tuple[str, int]] = {}
    threads = {"first": threading.Thread(target=lambda: results.__setitem__("first", reply(engine, first, hold_once))),
               "second": threading.Thread(target=lambda: results.__setitem__("second", reply(engine, second)))}
    threads["first"].start()
    assert generating.wait(10)
    threads["second"].start()
    while engine._queue.qsize() == 0:
        time.sleep(0.001)
    go.set()
    for thread in threads.values():
        thread.join()
    assert lib.copies == 1, "the second prompt took its prefix from the first request's slot"
    alone = [reply(fake_engine(settings)[0], prompt) for prompt in (first, second)]
    assert [results["first"], results["second"]] == alone
