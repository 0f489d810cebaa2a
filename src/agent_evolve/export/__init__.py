"""Evolved skills (and optionally prompt and memories) exported for Claude Code, Codex and Agent Skills hosts."""
