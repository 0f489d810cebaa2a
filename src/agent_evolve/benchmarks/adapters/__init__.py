"""The benchmark adapters: built-in datasets, user task files and lists, and the task-folder base (`dirbench`); the
external benchmarks live at the import paths the A-Evolve API names (`benchmarks/swe_verified.py` and its siblings)."""
