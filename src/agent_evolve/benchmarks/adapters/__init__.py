"""The benchmark adapters: built-in datasets, user task files and lists, and the external benchmarks."""
