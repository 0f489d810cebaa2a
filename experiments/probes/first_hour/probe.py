"""A user's first hour on a task set the project does not ship: 40 word tasks with text answers, `ae.evolve` with
its defaults on the embedded model. Usage: PYTHONPATH=src python experiments/probes/first_hour/probe.py RUN_FOLDER"""
import random, sys, time
import agent_evolve as ae

rng = random.Random(7)
WORDS = "apple river stone candle forest mirror pepper violin tiger window garden rocket saddle lemon anchor".split()
tasks = []
for i in range(40):
    ws = rng.sample(WORDS, 4)
    kind = i % 4
    if kind == 0:
        tasks.append({"input": f"Which of these words comes first in alphabetical order: {', '.join(ws)}? Answer with the word only.", "expected": min(ws)})
    elif kind == 1:
        tasks.append({"input": f"Which of these words is the longest: {', '.join(ws)}? If several tie, give the first. Answer with the word only.", "expected": max(ws, key=len)})
    elif kind == 2:
        w = ws[0]
        tasks.append({"input": f"Write the word '{w}' backwards. Answer with the reversed word only.", "expected": w[::-1]})
    else:
        w = ws[1]
        tasks.append({"input": f"What is the last letter of the word '{w}'? Answer with the letter only.", "expected": w[-1]})

def metric(example, output):
    return output.strip().strip(".").lower() == example["expected"].lower()

t = time.time()
result = ae.evolve(tasks, metric, budget="light", workspace=sys.argv[1])
print("baseline", result.baseline_score, "final", result.final_score, "accepted", result.accepted, "in", round(time.time() - t), "s")
print(result.agent()("Write the word 'planet' backwards. Answer with the reversed word only."))
result.save(sys.argv[1] + "-agent")
