"""Speed of the embedded model: prompt reading, single-stream generation, throughput at concurrency 4, memory.

Measured through `LocalLlamaClient` (the path every run uses), and, for the ratio, through llama-cpp-python's
high-level `Llama.create_chat_completion` (what the client used before) in the same process. Prints what the
installed llama.cpp was built with, since a build without AVX2 is several times slower.

    PYTHONPATH=src python speed/local_model_speed.py [--model qwen2.5-coder-1.5b] [--tokens 128] [--no-old]
"""

from __future__ import annotations

import argparse
import os
import resource
import threading
import time

from agent_evolve.llm.base import Message
from agent_evolve.llm.models import LOCAL_MODELS
from agent_evolve.llm.local_settings import EngineSettings
from agent_evolve.llm.providers.llama_cpp_local import LocalLlamaClient, load_model
from agent_evolve.llm.providers.llama_engine import system_info

SYSTEM = ("You are a careful assistant. Follow the instructions exactly. " * 12).strip()
LONG_TASK = "Write the numbers from one to three hundred in words, one per line, and nothing else."
READING = " ".join(f"Item {i}: the quantity of apples in crate {i} is {i * 7 % 50} kilograms." for i in range(16))


def rss_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(call: object) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()  # type: ignore[operator]
    return time.perf_counter() - started, result


def measure_client(client: LocalLlamaClient, tokens: int, repeats: int) -> dict[str, float]:
    """Prompt tok/s (a fresh ~400-token prompt), generation tok/s, and total tok/s of 4 concurrent streams."""
    rates: dict[str, list[float]] = {"prompt": [], "generation": [], "concurrent": [], "prefix_hit_s": []}
    for attempt in range(repeats):
        fresh = [Message("system", f"Run {attempt}-{time.time_ns()}. {SYSTEM}"), Message("user", READING)]
        seconds, completion = timed(lambda: client.complete(fresh, max_tokens=1))
        rates["prompt"].append(completion.usage.input_tokens / seconds)  # type: ignore[attr-defined]
        story = [Message("system", SYSTEM), Message("user", LONG_TASK)]
        client.complete(story, max_tokens=1)  # the prompt is now cached: the next call reads one token
        seconds, completion = timed(lambda: client.complete(story, max_tokens=tokens))
        rates["generation"].append(completion.usage.output_tokens / seconds)  # type: ignore[attr-defined]
        other = [Message("system", SYSTEM), Message("user", "Name three colours.")]
        seconds, _ = timed(lambda: client.complete(other, max_tokens=1))
        rates["prefix_hit_s"].append(seconds)
        outputs: list[int] = []
        chats = [[Message("system", SYSTEM), Message("user", f"{LONG_TASK} Start with number {i + 1}.")]
                 for i in range(4)]
        for chat in chats:  # read each prompt once, as for the single stream: both rows time generation only
            client.complete(chat, max_tokens=1)

        def stream(i: int) -> None:
            outputs.append(client.complete(chats[i], max_tokens=tokens).usage.output_tokens)

        threads = [threading.Thread(target=stream, args=(i,)) for i in range(4)]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rates["concurrent"].append(sum(outputs) / (time.perf_counter() - started))
    return {name: (min(values) if name == "prefix_hit_s" else max(values)) for name, values in rates.items()}


def measure_old(path: str, tokens: int, threads: int) -> dict[str, float]:
    """The same prompt-reading and generation rates through llama-cpp-python's high-level chat API."""
    import llama_cpp

    llama = llama_cpp.Llama(model_path=path, n_ctx=4096, n_threads=threads, verbose=False, seed=0)
    fresh = [{"role": "system", "content": f"Old {time.time_ns()}. {SYSTEM}"}, {"role": "user", "content": READING}]
    seconds, response = timed(lambda: llama.create_chat_completion(messages=fresh, max_tokens=1, temperature=0.0))
    prompt = response["usage"]["prompt_tokens"] / seconds  # type: ignore[index]
    story = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": LONG_TASK}]
    llama.create_chat_completion(messages=story, max_tokens=1, temperature=0.0)
    seconds, response = timed(lambda: llama.create_chat_completion(messages=story, max_tokens=tokens,
                                                                   temperature=0.0))
    generation = response["usage"]["completion_tokens"] / seconds  # type: ignore[index]
    return {"prompt": prompt, "generation": generation}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", choices=sorted(LOCAL_MODELS))
    parser.add_argument("--tokens", type=int, default=128, help="tokens generated per stream")
    parser.add_argument("--repeats", type=int, default=2, help="best of N (the machine is shared)")
    parser.add_argument("--no-old", action="store_true", help="skip the high-level llama-cpp-python comparison")
    args = parser.parse_args()
    threads = EngineSettings.from_env().n_threads
    print(f"llama.cpp: {system_info()}")
    print(f"threads: {threads}, load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    spec = LOCAL_MODELS[args.model]
    seconds, loaded = timed(lambda: load_model(spec))
    print(f"load: {seconds:.1f}s, peak RSS after load: {rss_mb():.0f} MB")
    new = measure_client(LocalLlamaClient(f"local/{args.model}", spec), args.tokens, args.repeats)
    print(f"peak RSS after the batched client: {rss_mb():.0f} MB")
    print(f"{'':<34} {'batched client':>15}" + ("" if args.no_old else f" {'high-level API':>15} {'ratio':>7}"))
    old = {} if args.no_old else measure_old(str(loaded.path), args.tokens, threads)  # type: ignore[attr-defined]
    rows = [("prompt reading, tok/s", "prompt"), ("generation, 1 stream, tok/s", "generation"),
            ("generation, 4 streams total, tok/s", "concurrent")]
    for label, key in rows:
        line = f"{label:<34} {new[key]:>15.1f}"
        if key in old:
            line += f" {old[key]:>15.1f} {new[key] / old[key]:>6.2f}x"
        print(line)
    print(f"4 streams vs 1 stream: {new['concurrent'] / new['generation']:.2f}x")
    print(f"shared-prefix call (1 token out, prefix cached): {new['prefix_hit_s'] * 1000:.0f} ms")
    print(f"peak RSS: {rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
