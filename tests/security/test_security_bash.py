"""The escapes from the engine's bash tool listed in issue 9: none may read, write or outlive its command."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agent_evolve
from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "prompts").mkdir(parents=True)
    (ws / "prompts" / "system.md").write_text("the prompt\n")
    (ws / "evolution").mkdir()
    (ws / "evolution" / "history.jsonl").write_text('{"cycle": 1}\n')
    (ws / ".git").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("outside-secret-42\n")
    return ws


def test_brace_expansion_cannot_read_outside(root: Path) -> None:
    assert "outside-secret-42" not in ConfinedBash(root).run("cat .{.,}./outside/secret")


def test_brace_expansion_cannot_write_outside(root: Path) -> None:
    ConfinedBash(root).run("echo pwned | tee .{.,}./outside/x")
    assert not (root.parent / "outside" / "x").exists()


def test_a_symlink_made_by_python_cannot_be_read_through_a_glob(root: Path) -> None:
    bash = ConfinedBash(root)
    up = "chr(46) * 2"  # '..', built at run time
    out = bash.run(f"python3 -c \"import os; os.symlink(os.path.join({up}, {up}, 'outside', 'secret'), "
                   "os.path.join('prompts', 'notes.md'))\"; cat prompts/note*")
    assert "outside-secret-42" not in out
    link = root / "prompts" / "notes.md"
    assert not link.exists() or "outside-secret-42" not in link.read_text()  # nor on the host side afterwards


def test_a_setsid_job_does_not_outlive_the_command(root: Path) -> None:
    out = ConfinedBash(root).run("(setsid sh -c 'sleep 2; echo changed > prompts/system.md' > /dev/null 2>&1 &); "
                                 "echo started")
    assert "started" in out
    time.sleep(3)
    assert (root / "prompts" / "system.md").read_text() == "the prompt\n"


def bash_in_helper(root: Path, command: str, hide_unshare: bool, env: dict[str, str] | None = None) -> str:
    """Run the tool in a fresh helper process (started with `env`), optionally on a machine without `unshare`."""
    helper = (
        "import shutil, sys\n"
        "which = shutil.which\n"
        f"if {hide_unshare}:\n"
        "    shutil.which = lambda name, *args, **kwargs: None if name == 'unshare' else which(name, *args, **kwargs)\n"
        "from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash\n"
        f"print(ConfinedBash({str(root)!r}).run(sys.stdin.read()))\n"
    )
    package_root = Path(agent_evolve.__file__).resolve().parents[1]
    full_env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([str(package_root), *sys.path])}
    full_env.pop("AGENT_EVOLVE_ALLOW_UNCONFINED", None)
    run = subprocess.run([sys.executable, "-c", helper], input=command, capture_output=True, text=True, env=full_env,
                         timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout + run.stderr


@pytest.mark.parametrize("hide_unshare", [False, True], ids=["namespaces", "no-unshare"])
def test_the_parents_environment_cannot_be_read(root: Path, hide_unshare: bool) -> None:
    """The command reads the environ of every ancestor, the engine's process first."""
    script = (
        "import os\n"
        "pid = os.getppid()\n"
        "while pid > 1:\n"
        "    proc = os.sep.join(['', 'proc', str(pid)])\n"
        "    print([v for v in open(os.path.join(proc, 'environ')).read().split(chr(0)) if 'KEY' in v])\n"
        "    pid = int(open(os.path.join(proc, 'stat')).read().rsplit(')', 1)[1].split()[1])\n"
        "print([v for v in os.environ.values() if 'sk-' in v])\n"
    )
    out = bash_in_helper(root, f"python3 -c {shlex.quote(script)}", hide_unshare,
                         {"OPENAI_API_KEY": "sk-engine-secret-0123456789"})
    assert "sk-engine-secret" not in out


@pytest.mark.parametrize("hide_unshare", [False, True], ids=["namespaces", "no-unshare"])
def test_the_run_records_cannot_be_appended_to(root: Path, hide_unshare: bool) -> None:
    bash_in_helper(root, "cd evol*n && echo '{\"cycle\": 99}' >> history.jsonl", hide_unshare)
    bash_in_helper(root, "python3 -c \"open('evolution' + chr(47) + 'history.jsonl', 'a').write('forged')\"",
                   hide_unshare)
    assert (root / "evolution" / "history.jsonl").read_text() == '{"cycle": 1}\n'


def test_without_confinement_commands_are_refused_and_say_how_to_opt_in(root: Path) -> None:
    out = bash_in_helper(root, "echo hi > prompts/x.md", hide_unshare=True)
    assert out.startswith("Refused:") and "AGENT_EVOLVE_ALLOW_UNCONFINED=1" in out
    assert not (root / "prompts" / "x.md").exists()
