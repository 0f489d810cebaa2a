#!/bin/bash
set -euo pipefail
tr 'A-Z' 'a-z' < /app/speech.txt | tr -d '.,;:!?"' | tr -s ' \n' '\n\n' | grep -v '^$' | sort | uniq -c | sort -k1,1nr -k2,2 | head -3 | awk '{print $2, $1}' > /app/top_words.txt
