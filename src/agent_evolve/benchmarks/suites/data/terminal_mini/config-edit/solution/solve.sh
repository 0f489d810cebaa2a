#!/bin/bash
set -euo pipefail
sed -i 's/^port = .*/port = 9090/; s/^debug = .*/debug = false/' /app/server.conf
