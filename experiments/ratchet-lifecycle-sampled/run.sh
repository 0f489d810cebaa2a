#!/usr/bin/env bash
# Ratchet's lifecycle, second run (README.md here): 10 rounds on GSM8K with the embedded model sampling its train
# attempts, then the ledger, audit trail, per-round held-out scores and the bank plot copied into this folder.
# Resumable: run it again. RATCHET_WORKSPACE and RATCHET_ROUNDS as in ../ratchet-lifecycle/run.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE=experiments/ratchet-lifecycle-sampled
WS="${RATCHET_WORKSPACE:-/work/runs/ratchet-lifecycle-sampled/workspace}"
export AGENT_EVOLVE_N_THREADS="${AGENT_EVOLVE_N_THREADS:-1}"
PYTHONPATH=src nice -n 10 python -m agent_evolve.cli.main -v run --agent gsm8k --benchmark gsm8k --engine ratchet \
    --config "$HERE/config.yaml" --workspace "$WS" --cycles "${RATCHET_ROUNDS:-10}"
PYTHONPATH=src python experiments/ratchet-lifecycle/collect.py "$WS" "$HERE"
