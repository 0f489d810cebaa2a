"""Whether the embedded model's greedy replies are the same alone, repeated, and batched with other requests.

The batched client decodes several sequences in one llama.cpp batch and reuses a cached prompt prefix; both change
the shapes of the matrix products, so floating-point sums may round differently and a greedy reply may change.
This measures how often it does, on the same prompts, through `LocalLlamaClient` (the path every run uses):

    PYTHONPATH=src python speed/local_model_determinism.py [--prompts 4] [--tokens 96]
"""

from __future__ import annotations

import argparse
import os
import threading

from agent_evolve.llm.base import Message
from agent_evolve.llm.models import LOCAL_MODELS
from agent_evolve.llm.local_settings import EngineSettings
from agent_evolve.llm.providers.llama_cpp_local import LocalLlamaClient

SYSTEM = "Solve the problem step by step. End with a line 'Answer: <number>'."
PROBLEMS = (
    "A farmer has 17 sheep and buys 3 times as many goats. He sells 12 goats. How many animals does he have?",
    "A train travels 45 km in 30 minutes. At the same speed, how far does it go in 2 hours and 10 minutes?",
    "Mia reads 14 pages a day for 9 days, then 20 pages a day until she finishes a 300-page book. How many days?",
    "A shop sells pens at 3 for $2. How much do 27 pens cost, and how much change is left from $20?",
    "Tom is twice as old as Ann. In 6 years the sum of their ages will be 45. How old is Ann now?",
    "A tank holds 240 litres. It fills at 12 litres a minute and leaks 4 litres a minute. How long to fill it?",
    "There are 5 boxes with 36 apples each. A quarter of the apples are rotten. How many good apples are there?",
    "A rectangle is 3 times as long as it is wide, and its perimeter is 64 cm. What is its area?",
)


def chat(problem: str) -> list[Message]:
    return [Message("system", SYSTEM), Message("user", problem)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", choices=sorted(LOCAL_MODELS))
    parser.add_argument("--prompts", type=int, default=4, choices=range(1, len(PROBLEMS) + 1),
                        help="problems, also the batch size")
    parser.add_argument("--tokens", type=int, default=96, help="tokens generated per reply")
    args = parser.parse_args()
    threads = EngineSettings.from_env().n_threads
    print(f"threads: {threads}, load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    client = LocalLlamaClient(f"local/{args.model}", LOCAL_MODELS[args.model])
    problems = PROBLEMS[: args.prompts]
    alone = [client.complete(chat(p), max_tokens=args.tokens).text for p in problems]
    repeated = [client.complete(chat(p), max_tokens=args.tokens).text for p in problems]
    together: list[str] = [""] * len(problems)

    def solve(i: int) -> None:
        together[i] = client.complete(chat(problems[i]), max_tokens=args.tokens).text

    workers = [threading.Thread(target=solve, args=(i,)) for i in range(len(problems))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    same_repeat = sum(a == b for a, b in zip(alone, repeated, strict=True))
    same_batched = sum(a == b for a, b in zip(alone, together, strict=True))
    print(f"replies of {args.tokens} tokens, greedy (temperature 0), {len(problems)} problems")
    print(f"alone vs alone again (prompt prefix cached): {same_repeat} of {len(problems)} identical")
    print(f"alone vs {len(problems)} batched together: {same_batched} of {len(problems)} identical")
    for i, (a, b) in enumerate(zip(alone, together, strict=True)):
        if a != b:
            first = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            print(f"  problem {i}: batched reply differs from character {first} of {len(a)}")


if __name__ == "__main__":
    main()
