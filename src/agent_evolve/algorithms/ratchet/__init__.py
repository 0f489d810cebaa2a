"""Ratchet: a governed skill library (ledger, skill forms, router, critic, synthesizer, curator, rollback)."""
