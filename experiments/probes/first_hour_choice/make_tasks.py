"""Write 40 multiple-choice tasks as a user's task file: each line declares `answer_kind: choice`, and the
expected answer is the option's letter, a format only the answers show (the questions do not ask for it).
Usage: python experiments/probes/first_hour_choice/make_tasks.py OUT.jsonl"""
import json, random, sys

rng = random.Random(5)
WORDS = "pear apple mango cherry lemon plum grape melon olive peach kiwi fig banana apricot".split()
lines = []
for i in range(40):
    kind = i % 4
    if kind == 0:
        options = rng.sample(range(10, 100), 3)
        question, right = "Which number is the largest?", max(options)
    elif kind == 1:
        options = rng.sample(WORDS, 3)
        question, right = "Which word comes first in alphabetical order?", min(options)
    elif kind == 2:
        odd = [n for n in rng.sample(range(11, 99), 12) if n % 2][:2]
        even = rng.choice([n for n in range(12, 99, 2)])
        options = odd + [even]
        rng.shuffle(options)
        question, right = "Which number is even?", even
    else:
        options = [w for w in rng.sample(WORDS, 6)]
        options = sorted({len(w): w for w in options}.values(), key=lambda w: rng.random())[:3]
        question, right = "Which word has the most letters?", max(options, key=len)
    text = " ".join(f"({letter}) {option}" for letter, option in zip("ABC", options))
    lines.append({"id": f"c{i}", "input": f"{question} Options: {text}", "answer": "ABC"[options.index(right)],
                  "answer_kind": "choice"})
with open(sys.argv[1], "w") as out:
    out.writelines(json.dumps(line) + "\n" for line in lines)
