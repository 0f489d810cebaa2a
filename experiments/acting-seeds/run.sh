#!/usr/bin/env bash
# Issue 14: embedded-model baselines of the acting seeds on the shipped suites, then one evolution run each.
# swe: the seed with an 8-turn, 512-token budget (the shipped seed allows 30 turns of 1,024 tokens: hours a task
# on one shared core); mcp: the shipped seed as is. Resumable by deleting nothing: finished outputs are kept.
set -uo pipefail
cd /work/main
export AGENT_EVOLVE_N_THREADS=${AGENT_EVOLVE_N_THREADS:-1}
D=/work/runs/lane-b3
for pair in swe:swe-mini mcp:mcp-mini; do
  agent=${pair%%:*}; bench=${pair##*:}
  for split in train test; do
    [ -s $D/$agent-baseline-$split.json ] || { echo "== $(date -u +%T) baseline $agent $bench $split"; \
      nice -n 10 agent-evolve eval --workspace $D/$agent-seed --benchmark $bench --split $split --concurrency 1 \
        --output $D/$agent-baseline-$split.json; }
  done
  echo "== $(date -u +%T) evolve $agent $bench"
  nice -n 10 agent-evolve run --agent $D/$agent-seed --benchmark $bench --cycles 2 --batch-size 3 \
    --holdout-ratio 0.4 --holdout-limit 4 --concurrency 1 --workspace $D/$agent-evolved
  echo "== $(date -u +%T) done $agent rc=$?"
done
