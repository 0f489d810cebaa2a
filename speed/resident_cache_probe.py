"""Does a unified KV cache full of finished requests' prompts slow decoding? One stream's generation rate with the
other slots' caches resident or cleared, interleaved (the engine attends over every occupied cell).

    PYTHONPATH=src python -u speed/resident_cache_probe.py [WORDS]   # WORDS per filler prompt (default 230)
"""

from __future__ import annotations

import os
import sys
import threading
import time

from agent_evolve.llm.models import LOCAL_MODELS
from agent_evolve.llm.providers.llama_cpp_local import load_model
from agent_evolve.llm.providers.llama_engine import Generation, LlamaEngine


def prompt(engine: LlamaEngine, index: int, words: int) -> list[int]:
    """A distinct prompt of about ``words`` words (about three tokens each)."""
    text = " ".join(f"word{(index * 7919 + j) % 5000}" for j in range(words))
    chat = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": f"Task {index}: {text}\nWrite a long story about numbers."}]
    return engine.prompt_tokens(chat)[0]


def generate(engine: LlamaEngine, tokens: list[int], n: int) -> tuple[Generation, float]:
    started = time.perf_counter()
    reply = engine.generate(tokens, max_tokens=n, stops=(), temperature=0.0, seed=0, deadline=None)
    return reply, time.perf_counter() - started


def fill(engine: LlamaEngine, words: int) -> None:
    """Read one filler prompt into every slot but one, together, so each lands in a slot of its own."""
    threads = [threading.Thread(target=generate, args=(engine, prompt(engine, 100 + i, words), 1))
               for i in range(engine.slots - 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def clear(engine: LlamaEngine) -> None:
    for slot in range(engine.slots):
        engine._lib.llama_memory_seq_rm(engine._memory, slot, 0, -1)
        engine._cached[slot] = []


def main() -> None:
    words = int(sys.argv[1]) if len(sys.argv) > 1 else 230
    engine = load_model(LOCAL_MODELS["qwen2.5-coder-1.5b"]).engine
    print(f"settings {engine.settings}, {engine.slots} slots of {engine.n_ctx} tokens", flush=True)
    for rep in range(2):
        for mode in ("cleared", "resident"):
            clear(engine)
            if mode == "resident":
                fill(engine, words)
            tokens = prompt(engine, rep, 60)
            generate(engine, tokens, 1)  # the prompt is read first, so only generation is timed
            reply, seconds = generate(engine, tokens, 64)
            cached = sum(len(v) for v in engine._cached.values())
            print(f"{mode:9s} rep {rep}: {reply.completion_tokens / seconds:.1f} tokens/s; {cached} tokens cached in "
                  f"all slots; load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
