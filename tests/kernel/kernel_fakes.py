"""Deterministic agents, benchmarks and engines for kernel tests; no model involved."""

from __future__ import annotations

import itertools
import json
import os
import signal
from pathlib import Path

import agent_evolve as ae
from agent_evolve.engine.records import RunRecords
from agent_evolve.types import Feedback, StepResult, Task, Trajectory

MANIFEST = """name: counter
version: 0.1.0
contract_version: "1.0"
agent:
  type: custom
  entrypoint: kernel_fakes.KeywordAgent
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""


def reference_manifest(name: str) -> str:
    """The manifest of a reference-agent workspace without skill routing (for scripted-model runs)."""
    return f"""name: {name}
version: 0.1.0
contract_version: "1.0"
agent:
  type: reference
  entrypoint: agent_evolve.agents.reference.ReferenceAgent
  config: {{skill_mode: none}}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""


def family_tasks(families: dict[str, object], count: int, text: str, **metadata: str) -> list[Task]:
    """Tasks t0..t{count-1}, each about the next family in turn, one in three easy; `text` is formatted with
    level, family and i; the answer is the family's value."""
    tasks = []
    for i in range(count):
        family = list(families)[i % len(families)]
        level = "easy" if i % 3 == 0 else "hard"
        tasks.append(Task(f"t{i}", text.format(level=level, family=family, i=i),
                          {"answer": str(families[family]), "family": family, **metadata}))
    return tasks


def make_workspace(path: Path, prompt: str = "baseline\n", manifest: str = MANIFEST) -> Path:
    (path / "prompts").mkdir(parents=True, exist_ok=True)
    (path / "skills").mkdir(exist_ok=True)
    (path / "memory").mkdir(exist_ok=True)
    (path / "prompts" / "system.md").write_text(prompt)
    if manifest:
        (path / "manifest.yaml").write_text(manifest)
    return path


def crash_if(point: str) -> None:
    """kill -9 this process when CRASH_AT names `point` (used by the crash-resume test)."""
    if os.environ.get("CRASH_AT") == point:
        os.kill(os.getpid(), signal.SIGKILL)


_SOLVES = itertools.count(1)


class KeywordAgent(ae.BaseAgent):
    """Solves a task when its keyword appears in the system prompt."""

    def solve(self, task: Task) -> Trajectory:
        crash_if(f"solve#{next(_SOLVES)}")
        answer = task.metadata["keyword"] if task.metadata["keyword"] in self.system_prompt else "?"
        return Trajectory(task_id=task.id, output=answer)


class KeywordBenchmark(ae.BenchmarkAdapter):
    """Tasks t0..tN-1 with keywords k0..k{K-1}; the answer is the keyword."""

    def __init__(self, n: int = 20, keywords: int = 2):
        self.n, self.keywords = n, keywords

    def get_tasks(self, split: str = "train", limit: int = 10) -> list[Task]:
        tasks = [Task(id=f"t{i}", input=f"task {i}", metadata={"keyword": f"k{i % self.keywords}"}) for i in range(self.n)]
        return tasks[:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output == task.metadata["keyword"]
        return Feedback(success=ok, score=float(ok))


class PlanEngine(ae.EvolutionEngine):
    """Applies one scripted edit per cycle: ('prompt', text) | ('skill', name, body) | ('memory', text) | ('raise',) | ('noop',)."""

    def __init__(self, plan: list[tuple]):
        self.plan = plan
        self.seen: list[list[str]] = []

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        cycle = self.context.cycle
        crash_if(f"step:{cycle}")
        self.seen.append([o.task.id for o in observations])
        log = self.state_dir / "steps.log"
        log.write_text(log.read_text() + f"{cycle}\n" if log.exists() else f"{cycle}\n")
        action = self.plan[(cycle - 1) % len(self.plan)]
        kind = action[0]
        if kind == "prompt":
            workspace.write_prompt(action[1])
        elif kind == "skill":
            workspace.write_skill(action[1], action[2])
        elif kind == "memory":
            workspace.add_memory({"content": action[1]})
        elif kind == "file":
            target = Path(workspace.path) / action[1]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(action[2])
        elif kind == "raise":
            workspace.write_prompt("half-written edit")
            raise RuntimeError("engine blew up")
        crash_if(f"after-step:{cycle}")
        return StepResult(mutated=kind != "noop", summary=f"cycle {cycle}: {kind}")

    def on_cycle_end(self, accepted: bool, score: float) -> None:
        crash_if(f"cycle-end:{self.context.cycle}")


def holdout_ids(workspace: Path) -> list[str]:
    """The run's holdout ids, from the sealed records outside the workspace."""
    return json.loads(RunRecords(Path(workspace)).holdout_plan.read_text())["holdout_ids"]


def skill_text(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: TRIGGER when testing. DO NOT TRIGGER otherwise.\n---\n\n{body}\n"
