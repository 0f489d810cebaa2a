#!/bin/bash
set -euo pipefail
{ echo "region,total"; tail -n +2 /app/sales.csv | awk -F, '{s[$2]+=$3} END {for (r in s) printf "%s,%.2f\n", r, s[r]}' | sort; } > /app/totals.csv
