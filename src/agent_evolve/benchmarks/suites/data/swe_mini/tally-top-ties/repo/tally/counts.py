"""Count words and list the most frequent."""


def count_words(text: str) -> dict:
    counts = {}
    for word in text.lower().split():
        counts[word] = counts.get(word, 0) + 1
    return counts


def top(counts: dict, n: int = 3) -> list:
    """All items, most frequent first, unless `n` is given; equal counts ordered by key."""
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ordered[:n]
