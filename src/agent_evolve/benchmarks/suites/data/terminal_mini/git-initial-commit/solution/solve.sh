#!/bin/bash
set -euo pipefail
cd /app/project
git init -q
printf '*.log\n' > .gitignore
git add -A
git -c user.name=Agent -c user.email=agent@example.com commit -q -m "initial import"
