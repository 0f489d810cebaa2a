#!/usr/bin/env bash
# The real Ratchet run: the full recipe and its own no-skill arm A1, seed 0, 10 rounds each, on HumanEval.
# Resumable: run it again after an interruption (finished arms are read back, a round resumes from its journal).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${RATCHET_OUT:-/work/scratch/s3-ratchet-engine/ratchet-humaneval}"
export AGENT_EVOLVE_N_THREADS="${AGENT_EVOLVE_N_THREADS:-1}"
PYTHONPATH=src nice -n 10 python -m agent_evolve.cli.main -v ablate --agent humaneval --benchmark humaneval \
    --arms A1 --seeds 0 --cycles 10 --test-limit 20 --allow-small-test \
    --config experiments/ratchet-humaneval/config.yaml --out "$OUT"
