#!/usr/bin/env bash
# Ratchet's lifecycle, fifth run (README.md here): the fourth run's settings with retrieval routing, on GSM8K with the embedded model, the
# bank starting full with the three seed skills in seed-skills/, then the ledger, audit trail, per-round held-out
# scores and the bank plot copied into this folder. Resumable: run it again. RATCHET_WORKSPACE and RATCHET_ROUNDS
# as in ../ratchet-lifecycle/run.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE=experiments/ratchet-lifecycle-retrieval
WS="${RATCHET_WORKSPACE:-/work/runs/ratchet-lifecycle-retrieval/workspace}"
export AGENT_EVOLVE_N_THREADS="${AGENT_EVOLVE_N_THREADS:-1}"
if [ ! -e "$WS" ]; then
    PYTHONPATH=src python -m agent_evolve.cli.main init --template gsm8k "$WS"
    cp -r "$HERE"/seed-skills/* "$WS/skills/"
fi
PYTHONPATH=src nice -n 10 python -m agent_evolve.cli.main -v run --agent gsm8k --benchmark gsm8k --engine ratchet \
    --config "$HERE/config.yaml" --workspace "$WS" --cycles "${RATCHET_ROUNDS:-10}"
PYTHONPATH=src python experiments/ratchet-lifecycle/collect.py "$WS" "$HERE"
