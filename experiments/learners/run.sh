#!/usr/bin/env bash
# The learners' side-by-side run on GSM8K with the embedded model (experiments/README.md, Learners).
# Resumable: run it again after a stop; it continues where it was. Extra arguments go to the command.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec nice -n 10 agent-evolve experiment --agent gsm8k --benchmark gsm8k \
    --engines skillforge,gepa,skillopt,demos --seeds 0 --cycles 2 --test-limit 60 --allow-small-test \
    --config experiments/learners/config.yaml --out experiments/learners/gsm8k "$@"
