"""The user's view of a run: its records read back as rows, version labels, status, rollback and new workspaces."""
