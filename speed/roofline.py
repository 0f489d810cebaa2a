"""Where this machine's limit lies for the embedded model, and how close the engine gets to it.

Probes (numpy, one array per thread, arrays far larger than the caches): memory bandwidth (read: a sum; copy:
read + write), float32 matmul through numpy's BLAS on as many threads as llama.cpp gets, and numpy's int8 matmul
(unvectorised: it only shows numpy has no fast integer path; llama.cpp's Q4_K x Q8_K AVX2 kernels are its own and
can beat the float32 bound, so a prompt-reading fraction above 100% means they out-run float32 BLAS).

Then the embedded model through the batched engine: prompt reading, and generation with 1, 2, 4, 8 and 16
concurrent streams, each against the roofline: one step reads every weight once (the model's tensor bytes)
whatever the batch, and costs 2 x parameters flops per token, so B streams reach at most
``B / max(weight_bytes / bandwidth, B x 2 x params / flops)`` tokens/s, where flops is the better of float32 BLAS
and what prompt reading (the same kernels at full batch) achieved. KV-cache reads (short here) are left out;
"parameters" is llama.cpp's count, the token-embedding table included (looked up, not multiplied), so the flop
bound is a little low.

    PYTHONPATH=src python -u speed/roofline.py [--tokens 48] [--streams 1,2,4,8,16] [--write]
    PYTHONPATH=src python -u speed/roofline.py --prompt-tokens 1000 --streams 16 --no-probe --json
    AGENT_EVOLVE_KV_UNIFIED=0 PYTHONPATH=src python -u speed/roofline.py --prompt-tokens 1000 ...  # per-slot caches
    PYTHONPATH=src python -u speed/roofline.py --sweep      # threads x n_ubatch x slots, one process each

Engine settings come from the ``AGENT_EVOLVE_*`` variables (``llm/local_settings.py``); slots are raised to the
largest stream count. ``--prompt-tokens N`` gives every stream a distinct prompt of about N tokens (a run's prompts
carry worked examples and skills): with a unified KV cache each decoded token attends over every slot's cells, so
long prompts show what that costs against per-slot caches (``AGENT_EVOLVE_KV_UNIFIED=0``). ``--write`` appends
the table to speed/README.md. Measure on quiet cores: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from agent_evolve.llm.local_settings import EngineSettings
from agent_evolve.llm.models import LOCAL_MODELS

README = Path(__file__).with_name("README.md")
PROBE_BYTES = 256 * 1024 * 1024  # per thread: far past any cache of this machine
SYSTEM = "You are a careful assistant. Follow the instructions exactly."
TASK = "Write the numbers from one to three hundred in words, one per line, and nothing else. Start with {}."
READING = " ".join(f"Item {i}: crate {i} holds {i * 7 % 50} kilograms of apples." for i in range(24))


@dataclass
class Probe:
    """The machine's measured limits."""

    read_gbs: float
    copy_gbs: float
    f32_gflops: float
    int8_gops: float


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def in_threads(threads: int, work: Callable[[int], float]) -> float:
    """Run ``work(i)`` in ``threads`` threads at once (numpy releases the GIL); the sum of their results."""
    results = [0.0] * threads

    def run(i: int) -> None:
        results[i] = work(i)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(results)


def best_rate(amount: float, call: Callable[[], object], repeats: int) -> float:
    """``amount`` per second of the fastest of ``repeats`` calls."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return amount / best


def probe(threads: int, repeats: int = 5) -> Probe:
    """Memory bandwidth with ``threads`` readers/copiers, BLAS float32 matmul on ``threads`` threads, and numpy's
    (unthreaded, unvectorised) int8 matmul, which only shows that numpy has no fast integer path to compare."""
    sources = [np.ones(PROBE_BYTES // 4, dtype=np.float32) for _ in range(threads)]
    targets = [np.empty_like(a) for a in sources]
    read = in_threads(threads, lambda i: best_rate(PROBE_BYTES / 1e9, sources[i].sum, repeats))
    copy = in_threads(threads, lambda i: best_rate(2 * PROBE_BYTES / 1e9,
                                                   lambda: np.copyto(targets[i], sources[i]), repeats))
    del sources, targets
    n = 2048
    a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    with threadpool_limits(limits=threads):  # BLAS on as many threads as llama.cpp gets
        f32 = best_rate(2 * n**3 / 1e9, lambda: a @ a, repeats)
    m = 512
    q = np.random.default_rng(1).integers(-8, 8, (m, m), dtype=np.int8)
    int8 = best_rate(2 * m**3 / 1e9, lambda: np.matmul(q, q, dtype=np.int32), 2)
    return Probe(read, copy, f32, int8)


def bound(streams: int, weight_bytes: float, params: float, read_gbs: float, gflops: float) -> float:
    """The roofline's tokens/s for ``streams`` sequences per step."""
    return streams / max(weight_bytes / (read_gbs * 1e9), streams * 2 * params / (gflops * 1e9))


def padded(task: str, prompt_tokens: int, count_tokens: Callable[[str], int]) -> str:
    """``task`` after enough of the reading text that the user turn has about ``prompt_tokens`` tokens."""
    sentences = READING.split(". ")
    filler: list[str] = []
    while count_tokens(" ".join(filler) + " " + task) < prompt_tokens:
        filler.append(sentences[len(filler) % len(sentences)].rstrip(".") + ".")
    return " ".join([*filler, task]).strip()


def measure_model(tokens: int, streams: list[int], prompt_tokens: int = 0) -> dict[str, object]:
    """Prompt reading and generation tokens/s of the engine at each stream count, prompts of about
    ``prompt_tokens`` tokens each (0: the short task alone)."""
    from agent_evolve.llm.providers.llama_cpp_local import load_model
    from agent_evolve.llm.qwen_tools import to_chat_messages
    from agent_evolve.llm.base import Message

    os.environ["AGENT_EVOLVE_LOCAL_SLOTS"] = str(max(max(streams), EngineSettings.from_env().slots))
    started = time.perf_counter()
    loaded = load_model(LOCAL_MODELS["qwen2.5-coder-1.5b"], n_ctx=max(1024, prompt_tokens + tokens + 128))
    engine = loaded.engine
    load_s = time.perf_counter() - started
    model = engine._model  # noqa: SLF001 - the benchmark reads the loaded model's size

    def tokens_of(system: str, user: str) -> tuple[list[int], tuple[str, ...]]:
        return engine.prompt_tokens(to_chat_messages([Message("system", system), Message("user", user)], None))

    fresh, stops = tokens_of(f"Run {time.time_ns()}. {SYSTEM}", READING)
    started = time.perf_counter()
    engine.generate(fresh, max_tokens=1, stops=stops, temperature=0.0, seed=0, deadline=None)
    prompt_rate = len(fresh) / (time.perf_counter() - started)
    rates: dict[int, float] = {}
    for count in streams:
        tasks = [TASK.format(count * 100 + i + 1) for i in range(count)]
        if prompt_tokens:
            tasks = [f"Stream {count * 100 + i + 1}. " + padded(task, prompt_tokens,
                                                              lambda text: len(tokens_of(SYSTEM, text)[0]))
                     for i, task in enumerate(tasks)]
        prompts = [tokens_of(SYSTEM, task)[0] for task in tasks]
        for prompt in prompts:  # read once, so the timed part is generation only
            engine.generate(prompt, max_tokens=1, stops=stops, temperature=0.0, seed=0, deadline=None)
        produced = [0] * count

        def stream(i: int) -> None:
            produced[i] = engine.generate(prompts[i], max_tokens=tokens, stops=stops, temperature=0.0, seed=0,
                                          deadline=None).completion_tokens

        workers = [threading.Thread(target=stream, args=(i,)) for i in range(count)]
        started = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        rates[count] = sum(produced) / (time.perf_counter() - started)
    return {"weight_bytes": float(model.size()), "params": float(model.n_params()), "load_s": load_s,
            "prompt_tokens": len(fresh), "prompt_rate": prompt_rate, "rates": rates,
            "stream_prompt_tokens": [len(p) for p in prompts],
            "settings": asdict(engine.settings)}


def table(machine: Probe, model: dict[str, object]) -> str:
    """The measurement as a markdown table."""
    weight_bytes, params = float(model["weight_bytes"]), float(model["params"])  # type: ignore[arg-type]
    rates: dict[int, float] = model["rates"]  # type: ignore[assignment]
    prompt_bound = machine.f32_gflops * 1e9 / (2 * params)
    prompt_rate = float(model["prompt_rate"])  # type: ignore[arg-type]
    gflops = max(machine.f32_gflops, prompt_rate * 2 * params / 1e9)  # the kernels' own best, if above BLAS
    lines = [
        f"machine: read {machine.read_gbs:.1f} GB/s, copy {machine.copy_gbs:.1f} GB/s, float32 matmul "
        f"{machine.f32_gflops:.1f} GFLOP/s, numpy int8 matmul {machine.int8_gops:.2f} GOP/s; model: "
        f"{weight_bytes / 1e9:.2f} GB of weights, {params / 1e9:.2f} B parameters; arithmetic bound used "
        f"{gflops:.1f} GFLOP/s (the better of float32 BLAS and prompt reading); settings {model['settings']}",
        "",
        "| streams | tokens/s total | roofline tokens/s | fraction | bound by |",
        "|---:|---:|---:|---:|---|",
    ]
    for count, rate in sorted(rates.items()):
        limit = bound(count, weight_bytes, params, machine.read_gbs, gflops)
        by = "bandwidth" if weight_bytes / machine.read_gbs >= count * 2 * params / gflops else "flops"
        lines.append(f"| {count} | {rate:.1f} | {limit:.1f} | {rate / limit:.0%} | {by} |")
    lines.append(f"| prompt reading ({model['prompt_tokens']} tokens) | {prompt_rate:.1f} | "
                 f"{prompt_bound:.1f} (float32 BLAS) | {prompt_rate / prompt_bound:.0%} | flops |")
    best_streams = max(rates, key=lambda count: rates[count])
    best, default = rates[best_streams], EngineSettings().slots
    lines.append("")
    lines.append(f"best total {best:.1f} tokens/s at {best_streams} streams; the default {default} streams reach "
                 f"{rates.get(default, 0.0) / best:.0%} of it")
    return "\n".join(lines)


def sweep(tokens: int) -> None:
    """Each combination of threads, n_ubatch and slots in its own process (one model process at a time)."""
    grid = itertools.product((1, os.cpu_count() or 1), (128, 512), (4, 8))
    for threads, ubatch, slots in grid:
        env = {**os.environ, "AGENT_EVOLVE_N_THREADS": str(threads), "AGENT_EVOLVE_N_UBATCH": str(ubatch)}
        command = [sys.executable, __file__, "--tokens", str(tokens), "--streams", str(slots), "--json",
                   "--no-probe"]
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        row = json.loads(result.stdout.strip().splitlines()[-1])
        print(f"threads {threads} n_ubatch {ubatch} streams {slots}: {row['rates'][str(slots)]:.1f} tokens/s, "
              f"prompt {row['prompt_rate']:.1f} tokens/s (load {load_average()})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=48, help="tokens generated per stream")
    parser.add_argument("--streams", default="1,2,4,8,16", help="stream counts, comma-separated")
    parser.add_argument("--prompt-tokens", type=int, default=0, help="each stream's prompt length (0: short)")
    parser.add_argument("--write", action="store_true", help="append the table to speed/README.md")
    parser.add_argument("--sweep", action="store_true", help="threads x n_ubatch x slots, one process each")
    parser.add_argument("--json", action="store_true", help="print the model measurement as one JSON line")
    parser.add_argument("--no-probe", action="store_true", help="skip the numpy probes")
    args = parser.parse_args()
    if args.sweep:
        sweep(args.tokens)
        return
    settings = EngineSettings.from_env()
    print(f"load average before: {load_average()}", flush=True)
    machine = Probe(0.0, 0.0, 0.0, 0.0) if args.no_probe else probe(settings.n_threads)
    if not args.no_probe:
        print(f"probe: {machine}", flush=True)
    model = measure_model(args.tokens, [int(s) for s in args.streams.split(",")], args.prompt_tokens)
    if args.json:
        print(json.dumps(model))
        return
    text = table(machine, model)
    after = load_average()
    print(text)
    print(f"load average after: {after}")
    if args.write:
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        with README.open("a", encoding="utf-8") as readme:
            readme.write(f"\n#### Measured {stamp} (`roofline.py --tokens {args.tokens} --streams {args.streams} "
                         f"--prompt-tokens {args.prompt_tokens}`, "
                         f"load average after: {after})\n\n{text}\n")


if __name__ == "__main__":
    main()
