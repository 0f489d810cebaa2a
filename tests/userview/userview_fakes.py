"""A skill-reading agent and a file-writing engine for user-view tests; deterministic, no model."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import agent_evolve as ae
from agent_evolve.types import Feedback, StepResult, Task, Trajectory, Usage

HERE = Path(__file__).parent
MANIFEST = """name: keywords
version: 0.1.0
contract_version: "1.0"
agent:
  type: custom
  entrypoint: userview_fakes.SkillKeywordAgent
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""


def skill_text(name: str, body: str, **metadata: str) -> str:
    meta = "".join(f"\n  {k}: {v}" for k, v in metadata.items())
    head = f"---\nname: {name}\ndescription: TRIGGER when testing {name}. DO NOT TRIGGER otherwise.\n"
    return head + (f"metadata:{meta}\n" if meta else "") + f"---\n\n{body}\n"


class SkillKeywordAgent(ae.BaseAgent):
    """Solves a task when its keyword is in the prompt or in a skill body; records the skills it injected."""

    def solve(self, task: Task) -> Trajectory:
        time.sleep(float(os.environ.get("USERVIEW_SOLVE_DELAY", "0")))
        skills = [s.name for s in self.skills]
        text = self.system_prompt + "".join(self.get_skill_content(n) for n in skills)
        keyword = task.metadata["keyword"]
        return Trajectory(
            task_id=task.id,
            output=keyword if keyword in text else "?",
            steps=[{"type": "skills", "injected": skills}],
        )


class KeywordBenchmark(ae.BenchmarkAdapter):
    """Tasks t0..t{n-1}; task i's answer is the keyword k{i % 3}."""

    def __init__(self, n: int = 20):
        self.n = n

    def get_tasks(self, split: str = "train", limit: int = 10) -> list[Task]:
        return [Task(id=f"t{i}", input=f"task {i}", metadata={"keyword": f"k{i % 3}"}) for i in range(self.n)][:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output == task.metadata["keyword"]
        return Feedback(success=ok, score=float(ok))


class FileEngine(ae.EvolutionEngine):
    """Cycle N writes the files of plan[N-1] ({relative path: text}); cycles past the plan change nothing."""

    def __init__(self, plan: list[dict[str, str]] | None = None):
        self.plan = PLAN if plan is None else plan

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        cycle = self.context.cycle
        files = self.plan[cycle - 1] if cycle <= len(self.plan) else {}
        for rel, text in files.items():
            target = Path(workspace.path) / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        usage = Usage(calls=1, input_tokens=900 + 100 * cycle, output_tokens=150, cost=0.002 * cycle)
        return StepResult(mutated=bool(files), summary=f"cycle {cycle}: wrote {', '.join(files) or 'nothing'}", usage=usage)


PLAN: list[dict[str, str]] = [
    {"prompts/system.md": "Answer k0.\n"},
    {"skills/useless/SKILL.md": skill_text("useless", "nothing here")},
    {"prompts/system.md": "Answer k0 or k1.\n", "skills/third/SKILL.md": skill_text("third", "k2", origin="cycle-3")},
]


def config(**overrides: object) -> ae.EvolveConfig:
    return ae.EvolveConfig(**{"batch_size": 4, "holdout_ratio": 0.3, "concurrency": 1, **overrides})


def make_workspace(path: Path) -> Path:
    for folder in ("prompts", "skills", "memory"):
        (path / folder).mkdir(parents=True, exist_ok=True)
    (path / "prompts" / "system.md").write_text("Answer.\n")
    (path / "manifest.yaml").write_text(MANIFEST)
    return path


def make_run(path: Path, cycles: int = 3, plan: list[dict[str, str]] | None = None) -> Path:
    if not path.exists():
        make_workspace(path)
    ae.Evolver(str(path), KeywordBenchmark(), config(), FileEngine(PLAN if plan is None else plan)).run(cycles)
    return path


if __name__ == "__main__":
    make_run(Path(sys.argv[1]), cycles=int(sys.argv[2]))
