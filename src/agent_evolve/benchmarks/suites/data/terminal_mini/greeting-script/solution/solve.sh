#!/bin/bash
set -euo pipefail
cat > /app/bin/greet <<'SH'
#!/bin/bash
echo "Hello, ${1:-world}!"
SH
chmod +x /app/bin/greet
