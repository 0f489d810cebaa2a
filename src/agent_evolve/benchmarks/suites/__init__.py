"""Shipped offline suites: task data in `data/` and the adapters that serve it with no Docker and no network."""
