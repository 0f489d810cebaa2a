#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import json
users = json.load(open("/app/users.json"))
active = sorted((u for u in users if u["active"]), key=lambda u: u["last_login"], reverse=True)
open("/app/active_users.txt", "w").write("".join(u["name"] + "\n" for u in active))
PY
