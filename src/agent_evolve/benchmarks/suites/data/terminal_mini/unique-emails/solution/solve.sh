#!/bin/bash
set -euo pipefail
sed 's/^[[:space:]]*//; s/[[:space:]]*$//' /app/signups.txt | tr 'A-Z' 'a-z' | grep -v '^$' | sort -u > /app/unique_emails.txt
