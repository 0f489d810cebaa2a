"""Skill routing, one package for the reference agent and Ratchet: the model-picked router with its tf-idf
shortlist (`router`), Ratchet's bank router and workspace marker (`bank`), and the embeddings it shortlists with."""
