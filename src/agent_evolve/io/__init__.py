"""Safe, bounded readers of YAML and JSON text: below every other package, so `config` and `contract` both use them."""
