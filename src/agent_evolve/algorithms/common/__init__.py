"""Machinery the built-in engines share: evidence analysis, bounded summaries, skill and memory operations,
schema-checked generation, edit batches checked in full before any is written, and the prompt texts."""
