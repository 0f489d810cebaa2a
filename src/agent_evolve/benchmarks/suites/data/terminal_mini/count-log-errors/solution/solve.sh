#!/bin/bash
set -euo pipefail
grep -hw ERROR /app/logs/*.log | wc -l > /app/error_count.txt
