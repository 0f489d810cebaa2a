"""Benchmark adapters: built-in datasets, user task files and lists, task folders (external ones: benchmarks/)."""
