"""Task families of reasoning-mini (BIG-Bench Hard style): one pure generator per family, each with a programmatic
answer and a grading mode (number, text, list or date), from easy to hard."""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Grading = Literal["number", "text", "list", "date"]


@dataclass(frozen=True)
class Puzzle:
    """One generated task: what the agent is asked, the answer, how it is graded, other accepted answers."""

    question: str
    answer: str
    grading: Grading
    aliases: tuple[str, ...] = ()


NAMES = ("Alice", "Bob", "Claire", "Dave", "Eve", "Frank", "Grace", "Hugo", "Iris", "Jack")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five")
COLORS = ("red", "green", "blue", "yellow", "purple", "orange", "white")
WORDS = ("apple", "river", "candle", "forest", "mirror", "pepper", "garden", "ladder", "rocket", "velvet", "copper",
         "meadow", "pillow", "harbor", "lantern", "marble", "needle", "orchid", "parrot", "quartz", "saddle", "tunnel",
         "walnut", "yogurt", "anchor", "bottle", "cactus", "dolphin", "engine", "feather", "glacier", "hammer",
         "island", "jacket", "kettle", "lemon", "magnet", "nickel", "oyster", "pencil", "basket", "banner", "carpet",
         "castle", "button", "cotton", "pebble", "planet", "puzzle", "violin")
CATEGORIES: dict[str, tuple[tuple[str, str], ...]] = {
    "fruits": (("apple", "apples"), ("banana", "bananas"), ("peach", "peaches"), ("plum", "plums"),
               ("grape", "grapes"), ("strawberry", "strawberries"), ("orange", "oranges")),
    "vegetables": (("carrot", "carrots"), ("cabbage", "cabbages"), ("onion", "onions"), ("potato", "potatoes"),
                   ("lettuce head", "lettuce heads"), ("yam", "yams"), ("stalk of celery", "stalks of celery")),
    "musical instruments": (("piano", "pianos"), ("flute", "flutes"), ("violin", "violins"), ("drum", "drums"),
                            ("trumpet", "trumpets"), ("clarinet", "clarinets"), ("accordion", "accordions")),
    "animals": (("cat", "cats"), ("goat", "goats"), ("rabbit", "rabbits"), ("snail", "snails"), ("frog", "frogs"),
                ("donkey", "donkeys"), ("mouse", "mice")),
}
CITIES = ("Porto", "Lyon", "Krakow", "Osaka", "Quito", "Tunis", "Perth", "Bergen", "Leeds", "Malaga")
PRODUCTS = ("lamps", "chairs", "kettles", "backpacks", "helmets", "blankets", "clocks", "mugs")


def boolean(rng: random.Random) -> Puzzle:
    """A Boolean expression of 3 to 5 constants with not, and, or and parentheses: True or False."""

    def build(leaves: int) -> tuple[str, bool]:
        if leaves == 1:
            value = rng.random() < 0.5
            text, negate = str(value), rng.random() < 0.3
            return (f"not {text}", not value) if negate else (text, value)
        left_count = rng.randint(1, leaves - 1)
        (left, a), (right, b) = build(left_count), build(leaves - left_count)
        op = rng.choice(("and", "or"))
        value = (a and b) if op == "and" else (a or b)
        if rng.random() < 0.25:
            return f"not ({left} {op} {right})", not value
        return f"({left} {op} {right})", value

    text, value = build(rng.randint(3, 5))
    text = text[1:-1] if text.startswith("(") else text
    return Puzzle(f"Evaluate the Boolean expression: {text}\nAnswer True or False.", str(value), "text")


def extraction(rng: random.Random) -> Puzzle:
    """Three orders in one paragraph; a question about one field of one of them (text or number)."""
    ids = rng.sample(range(1000, 9999), 3)
    orders = [(i, rng.choice(NAMES), rng.choice(CITIES), rng.choice(DAYS), rng.randint(2, 9), rng.choice(PRODUCTS),
               rng.randint(3, 40)) for i in ids]
    lines = [f"Order {i}: {qty} {product} at {price} dollars each for {name}, delivered to {city} on {day}."
             for i, name, city, day, qty, product, price in orders]
    order, name, city, day, qty, _, price = rng.choice(orders)
    field = rng.choice(("city", "day", "name", "quantity", "total"))
    asks = {
        "city": (f"To which city is order {order} delivered?", city, "text"),
        "day": (f"On which day is order {order} delivered?", day, "text"),
        "name": (f"Who placed order {order}?", name, "text"),
        "quantity": (f"How many items does order {order} contain?", str(qty), "number"),
        "total": (f"What is the total price of order {order}, in dollars?", str(qty * price), "number"),
    }
    question, answer, grading = asks[field]
    return Puzzle(" ".join(lines) + f"\n{question}", answer, grading)  # type: ignore[arg-type]


def counting(rng: random.Random) -> Puzzle:
    """Objects of several categories, some several at once: how many of one category (BBH object counting)."""
    target, *others = rng.sample(sorted(CATEGORIES), 2)
    chosen = [(item, True) for item in rng.sample(CATEGORIES[target], rng.randint(3, 5))]
    chosen += [(item, False) for item in rng.sample(CATEGORIES[others[0]], rng.randint(1, 3))]
    rng.shuffle(chosen)
    total, parts = 0, []
    for (singular, plural), counts in chosen:
        count = rng.choice((1, 1, 2, 3))
        total += count if counts else 0
        parts.append(f"a {singular}" if count == 1 else f"{NUMBER_WORDS[count]} {plural}")
    listing = ", ".join(parts[:-1]) + f", and {parts[-1]}"
    return Puzzle(f"I have {listing}. How many {target} do I have?", str(total), "number")


def arithmetic(rng: random.Random) -> Puzzle:
    """Four integers from -9 to 9 in two bracketed pairs (BBH multistep arithmetic)."""

    def operand() -> int:
        return rng.choice([n for n in range(-9, 10) if n != 0])

    def pair() -> tuple[str, int]:
        a, b, op = operand(), operand(), rng.choice("+-*")
        value = a + b if op == "+" else a - b if op == "-" else a * b
        return f"({a} {op} {b})", value

    (left, x), (right, y) = pair(), pair()
    op = rng.choice("+-*")
    value = x + y if op == "+" else x - y if op == "-" else x * y
    return Puzzle(f"Calculate ({left} {op} {right}). Answer with a number.", str(value), "number")


def weekday(rng: random.Random) -> Puzzle:
    """The day of the week some days before or after a given one."""
    start, days, later = rng.randrange(7), rng.randint(3, 60), rng.random() < 0.7
    answer = DAYS[(start + (days if later else -days)) % 7]
    when = f"will it be {days} days from today" if later else f"was it {days} days ago"
    return Puzzle(f"Today is {DAYS[start]}. What day of the week {when}? Answer with the day's name.", answer, "text")


def date_shift(rng: random.Random) -> Puzzle:
    """A calendar date some days before or after a given one (month and year ends included)."""
    start = datetime.date(1995, 1, 1) + datetime.timedelta(days=rng.randint(0, 12000))
    days, later = rng.randint(3, 45), rng.random() < 0.6
    answer = start + datetime.timedelta(days=days if later else -days)
    when = f"{days} days from today" if later else f"{days} days ago"
    question = (f"Today is {start:%B} {start.day}, {start.year}. What is the date {when}? "
                "Answer in the form YYYY-MM-DD.")
    return Puzzle(question, answer.isoformat(), "date")


def sorting(rng: random.Random) -> Puzzle:
    """Four to seven words to put in alphabetical order (BBH word sorting)."""
    words = rng.sample(WORDS, rng.randint(4, 7))
    question = (f"Sort the following words alphabetically: {' '.join(words)}\n"
                "Answer with the sorted words separated by commas.")
    return Puzzle(question, ", ".join(sorted(words)), "list")


def ordering(rng: random.Random) -> Puzzle:
    """People ranked by comparisons of neighbours, shuffled: who is at a given rank (BBH logical deduction)."""
    people = rng.sample(NAMES, rng.randint(3, 5))
    more, less = rng.choice((("taller", "shorter"), ("older", "younger"), ("faster", "slower")))
    facts = [f"{a} is {more} than {b}." if rng.random() < 0.5 else f"{b} is {less} than {a}."
             for a, b in zip(people, people[1:])]
    rng.shuffle(facts)
    rank = rng.choice(("first", "last", "second") if len(people) > 3 else ("first", "last"))
    superlative = {"taller": ("tallest", "shortest"), "older": ("oldest", "youngest"),
                   "faster": ("fastest", "slowest")}[more]
    asked, answer = {"first": (f"the {superlative[0]}", people[0]), "last": (f"the {superlative[1]}", people[-1]),
                     "second": (f"the second {superlative[0]}", people[1])}[rank]
    return Puzzle(f"{' '.join(facts)} Who is {asked}? Answer with a name.", answer, "text")


def tracking(rng: random.Random) -> Puzzle:
    """Three people holding balls of different colors swap them in pairs: who holds which at the end (BBH
    tracking shuffled objects)."""
    people = rng.sample(NAMES, 3)
    colors = dict(zip(people, rng.sample(COLORS, 3)))
    start = ", ".join(f"{p} has {'an' if c[0] in 'aeiou' else 'a'} {c} ball" for p, c in colors.items())
    steps = []
    for _ in range(rng.randint(2, 4)):
        a, b = rng.sample(people, 2)
        colors[a], colors[b] = colors[b], colors[a]
        steps.append(f"{a} and {b} swap balls.")
    asked = rng.choice(people)
    question = (f"{start}. Then, in order: {' '.join(steps)} At the end, what color is {asked}'s ball? "
                "Answer with the color.")
    return Puzzle(question, colors[asked], "text", (f"{colors[asked]} ball",))


FAMILIES: dict[str, Callable[[random.Random], Puzzle]] = {
    "boolean": boolean, "extraction": extraction, "counting": counting, "arithmetic": arithmetic, "weekday": weekday,
    "date": date_shift, "sorting": sorting, "ordering": ordering, "tracking": tracking}
"""Every family by name, easiest first by design."""
