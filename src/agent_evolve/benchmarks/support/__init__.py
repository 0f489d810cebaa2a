"""What adapters and suites share: splits, answer parsing, the sandbox, data loading, Docker, task folders."""
