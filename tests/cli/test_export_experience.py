"""An accepted experience memory is exported: its worked examples (in the agent's form) and settings reach the
host's instructions with --with-prompt, or the export exits non-zero naming them; they are not memory lines."""

from __future__ import annotations

import json
from pathlib import Path

from test_export_evolved import PROGRAM, evolved_run, export

from agent_evolve.contract.experience import EXPERIENCE_FILE, EXPERIENCE_SETTINGS, example, experience_text

EXAMPLES = [example("t1", "say w1 backwards", "1w yas"), example("t2", "say w2", "w2 " + "step\n" * 80 + "w2")]
FILES = {"prompts/program.md": PROGRAM, EXPERIENCE_FILE: experience_text(EXAMPLES, {"t1", "t2"}),
         EXPERIENCE_SETTINGS: "k: 1\nform: short\nmax_chars: 1500\n"}


def test_the_worked_examples_reach_the_host_in_their_form(tmp_path: Path) -> None:
    workspace = evolved_run(tmp_path / "ws", FILES)
    out = tmp_path / "out"
    code, _, err = export(str(workspace), str(out), "--to", "claude-code")
    assert code == 1 and EXPERIENCE_FILE in err and EXPERIENCE_SETTINGS in err
    code, stdout, err = export(str(workspace), str(out), "--to", "claude-code", "--with-prompt")
    assert code == 0 and "warning" not in err and EXPERIENCE_SETTINGS in stdout
    section = (out / "CLAUDE.md").read_text()
    assert f"### Solved examples ({EXPERIENCE_FILE})" in section
    assert "Problem: say w1 backwards" in section and "1w yas" in section
    assert EXAMPLES[1].short in section and EXAMPLES[1].solution not in section, "the short form, as the agent shows"
    assert "### Memories" not in section and json.dumps(EXAMPLES[0].to_dict())[:20] not in section
