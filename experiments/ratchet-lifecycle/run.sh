#!/usr/bin/env bash
# Ratchet's lifecycle run (README.md here): 16 rounds on GSM8K with the embedded model, then the ledger, audit trail,
# skill list, per-round held-out scores and the bank plot copied into this folder. Resumable: run it again.
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE=experiments/ratchet-lifecycle
WS="${RATCHET_WORKSPACE:-/work/runs/ratchet-lifecycle/workspace}"
export AGENT_EVOLVE_N_THREADS="${AGENT_EVOLVE_N_THREADS:-1}"
PYTHONPATH=src nice -n 10 python -m agent_evolve.cli.main -v run --agent gsm8k --benchmark gsm8k --engine ratchet \
    --config "$HERE/config.yaml" --workspace "$WS" --cycles "${RATCHET_ROUNDS:-16}"
PYTHONPATH=src python "$HERE/collect.py" "$WS" "$HERE"
