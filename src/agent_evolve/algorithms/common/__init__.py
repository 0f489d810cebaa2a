"""Machinery the built-in engines share: evidence analysis, bounded summaries, skill and memory operations,
schema-checked generation, edit batches that write all or nothing, and the prompt texts."""
