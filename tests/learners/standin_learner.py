"""A stand-in for a coding-agent CLI: reads LEARNER.md and the material, edits files, runs check_spec.

argv[1] is the mode: `skill` writes a skill naming every keyword the failing tasks missed, `harm` empties the
system prompt's keywords, `peek` records which run records it can see. It writes what it saw to skills/seen/.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SKILL = """---
name: keywords
description: "TRIGGER when: a task asks for keywords. DO NOT TRIGGER: otherwise."
---

Answer with {words}.
"""

if __name__ == "__main__":
    mode = sys.argv[1]
    assert Path("LEARNER.md").read_text().startswith("# You are improving an agent")
    tasks = [json.loads(p.read_text()) for p in sorted(Path("learning_material/current/tasks").glob("*.json"))]
    missing = sorted({w for t in tasks for w in t["judge"]["feedback"].split("'")[1::2]})
    seen = {"tasks": [t["task_id"] for t in tasks],
            "evolution": os.path.exists("evolution"), "git": os.path.exists(".git"),
            "listing": sorted(os.listdir("."))}
    if mode == "skill":
        Path("skills/keywords").mkdir(parents=True, exist_ok=True)
        Path("skills/keywords/SKILL.md").write_text(SKILL.format(words=" and ".join(missing)))
    elif mode == "harm":
        Path("prompts/system.md").write_text("Answer with nothing.\n")
    elif mode == "bad-skill":
        Path("skills/Bad_Name").mkdir(parents=True, exist_ok=True)
        Path("skills/Bad_Name/SKILL.md").write_text("no frontmatter\n")
    try:
        Path("manifest.yaml").write_text("overwritten")
        seen["manifest_writable"] = True
    except OSError:
        seen["manifest_writable"] = False
    check = subprocess.run(["check_spec"], capture_output=True, text=True)
    seen["check_spec"] = [check.returncode, check.stdout.strip().splitlines()[-1]]
    print(json.dumps(seen))
