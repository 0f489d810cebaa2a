"""Shared machinery of the external benchmark adapters: data loading, splits, Docker, task folders, parsers."""
