#!/bin/bash
# The task's checks, run in the agent's environment after its turn; TEST_DIR is where these files were copied.
python3 -m pytest "${TEST_DIR:-/tests}/test_outputs.py" -rA -p no:cacheprovider
