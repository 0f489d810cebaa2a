"""Regenerate docs/report.png: a five-cycle scripted run (no model), its report, a headless Chromium screenshot.

Run from the repository root: `PYTHONPATH=src python docs/make_report_screenshot.py` (needs matplotlib and chromium).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "userview"))

from browser import screenshot  # noqa: E402
from userview_fakes import PLAN, make_run  # noqa: E402

from agent_evolve.report.build import build_report  # noqa: E402

DEMO_PLAN = [*PLAN, {"memory/notes.jsonl": '{"content": "k2 needs care"}\n'}, {"prompts/system.md": "Answer k0, k1 or k2.\n"}]

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        workspace = make_run(Path(folder) / "demo-run", cycles=5, plan=DEMO_PLAN)
        page = build_report(workspace, Path(folder) / "report.html")
        print(screenshot(page, ROOT / "docs" / "report.png", width=1200, height=2000))
