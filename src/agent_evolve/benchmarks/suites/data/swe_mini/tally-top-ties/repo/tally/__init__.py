from tally.counts import count_words, top

__all__ = ["count_words", "top"]
