"""A user's first hour on a mixed task set the project does not ship: 40 short tasks whose answer format is shown
only by the expected answers (a bare sentiment label, a count, a sorted list as "1, 2, 3"), an exact-match
metric, `ae.evolve` with its defaults on the embedded model.
Usage: PYTHONPATH=src python experiments/probes/first_hour_mixed/probe.py RUN_FOLDER [CANDIDATES]
(CANDIDATES: the demos engine's `candidates` param, e.g. program,experience,demos,rule; default: ae.evolve's)"""
import random, sys, time
import agent_evolve as ae

rng = random.Random(11)
GOOD = ["arrived early and works perfectly", "the staff were kind and quick", "best purchase I made this year",
        "tastes great and the price is fair", "setup took two minutes, love it"]
BAD = ["stopped working after a week", "the staff ignored us for an hour", "a waste of money",
       "cold food and a rude waiter", "the box arrived crushed and parts were missing"]
WORDS = "mississippi bookkeeper assessment committee parallel tattoo balloon possession referee successes".split()
NOUNS = "the old man walked his small dog along the quiet river every cold morning before work".split()
tasks = []
for i in range(40):
    kind = i % 4
    if kind == 0:
        label = rng.choice(["positive", "negative"])
        text = rng.choice(GOOD if label == "positive" else BAD)
        tasks.append({"input": f"Review: \"{text.capitalize()}.\" What is the sentiment of this review?",
                      "expected": label})
    elif kind == 1:
        word = rng.choice(WORDS)
        letter = max(sorted(set(word)), key=word.count)
        tasks.append({"input": f"How many times does the letter '{letter}' appear in the word '{word}'?",
                      "expected": str(word.count(letter))})
    elif kind == 2:
        numbers = rng.sample(range(1, 100), rng.randint(5, 7))
        tasks.append({"input": f"Sort these numbers from smallest to largest: {' '.join(map(str, numbers))}",
                      "expected": ", ".join(map(str, sorted(numbers)))})
    else:
        start = rng.randint(0, len(NOUNS) - 9)
        sentence = " ".join(NOUNS[start:start + rng.randint(6, 9)])
        tasks.append({"input": f"How many words are in this sentence: \"{sentence}\"?",
                      "expected": str(len(sentence.split()))})


def metric(example, output):
    return output.strip().strip(".").lower() == example["expected"].lower()


t = time.time()
config = ae.EvolveConfig(engine_params={"candidates": sys.argv[2]}) if len(sys.argv) > 2 else None
result = ae.evolve(tasks, metric, budget="light", workspace=sys.argv[1], config=config)
print("baseline", result.baseline_score, "final", result.final_score, "accepted", result.accepted, "in",
      round(time.time() - t), "s")
print(result.agent()("Sort these numbers from smallest to largest: 42 7 19 88 3"))
result.save(sys.argv[1] + "-agent")
