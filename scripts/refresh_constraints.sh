#!/usr/bin/env bash
# Refresh constraints.txt: install the newest versions the registries offer into a fresh virtual environment, run
# the whole test suite there, and only when it passes write what was installed as the new constraints.
# Run it monthly (or before a release) from the repository root: bash scripts/refresh_constraints.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
venv="$(mktemp -d /tmp/agent-evolve-lock-venv.XXXXXX)"
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --disable-pip-version-check -q --upgrade pip
"$venv/bin/python" -m pip install --disable-pip-version-check -q -e ".[dev,local,data,plot]"
"$venv/bin/python" -m pytest -q -p no:cacheprovider
{
    echo "# The versions the whole test suite passed with; made by scripts/refresh_constraints.sh on $(date -u +%F)."
    echo "# Used by the README's install commands and .ci/run: pip install -c constraints.txt -e \".[...]\""
    "$venv/bin/python" -m pip freeze --exclude-editable --disable-pip-version-check | grep -v '^-e '
} > constraints.txt
echo "constraints.txt refreshed ($(grep -vc '^#' constraints.txt) packages)"
