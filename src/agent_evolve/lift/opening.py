"""Opening an experiment folder: test tasks chosen and the plan registered (or checked) before anything runs, test
draws scored into the ledgers (:class:`DrawScorer`), and each arm's working folder carried in `checkpoint.tar.gz`."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig, with_reply_cache
from agent_evolve.contract.paths import REPLIES_DIR, atomic_write
from agent_evolve.engine.loop import ARM_PHASE, Progress, ProgressEvent
from agent_evolve.engine.records import holding_lock
from agent_evolve.errors import ConfigError, WorkspaceError
from agent_evolve.lift.analysis import task_means
from agent_evolve.lift.ledger import LEDGER_FILE, View, ViewLedgers, earlier_plans, ids_hash, reserve, user_store
from agent_evolve.lift.plan import (BASELINE, DEFAULT_DRAWS, MATCHED, MIN_TEST_TASKS, ComparisonPlan, LiftPlan,
                                   check_test_split)
from agent_evolve.lift.registration import PLAN_FILE, is_registered, legacy_id, plan_record, register
from agent_evolve.lift.scoring import AgentMaker, score_tasks, store_cost, workspace_key
from agent_evolve.lift.shapes import read_plan
from agent_evolve.llm.draws import draw_seed
from agent_evolve.registry import seed_path
from agent_evolve.stats import mean
from agent_evolve.types import Task

CHECKPOINT = "checkpoint.tar.gz"
LOCK_FILE = ".lock"  # held by the one process running the experiment in this folder
_LEFT_OUT = ("arm.json", CHECKPOINT, "__pycache__")  # committed on their own, or rebuilt

# Written into every experiment folder: `git add` of it keeps what a later checkout needs to resume and report, and
# leaves out the arms' working folders (own git, journals, partial costs), which the checkpoint carries.
EXPERIMENT_GITIGNORE = f"""# agent-evolve experiment: commit this folder; a fresh checkout resumes from it
/*/seed-*/*
!/*/seed-*/arm.json
!/*/seed-*/{CHECKPOINT}
/{LOCK_FILE}
"""
NEW_PLAN_FIELDS = ("draws", "matched", "test_reserve")  # what plans gained with registration
TEST_SEED = 104_729  # the sampling seed of test draw 0; draw d uses draw_seed(TEST_SEED, d)


@dataclass
class Experiment:
    """An opened folder: the seed workspace, the test tasks, the config every arm runs with, the scorer of test
    draws, and the registration (plan id, whether registered, who scored these test tasks before)."""

    source: Path
    tests: list[Task]
    config: EvolveConfig
    scorer: DrawScorer
    registration: dict[str, Any]

    def evidence(self) -> dict[str, Any]:
        """The registration with the test tasks' view count, read from the ledgers now."""
        return {**self.registration, "planned_tasks": len(self.tests),
                **earlier_plans(self.scorer.views.rows(), [t.id for t in self.tests], self.registration["plan_id"])}


def check_legacy_plan(path: Path, saved: dict[str, Any], plan: LiftPlan | ComparisonPlan,
                      config: EvolveConfig) -> None:
    """Refuse to resume an unregistered folder under another experiment: the plan as such a folder wrote it (no
    draws, reserve or compute-matched control) and the config (settings added since keep their defaults)."""
    old = {k: v for k, v in plan.to_dict().items() if k not in NEW_PLAN_FIELDS}
    if "arms" in old:
        old["arms"] = [arm for arm in old["arms"] if arm != MATCHED]
    saved = {**saved, "config": {**json.loads(json.dumps(EvolveConfig().to_dict())), **saved["config"]}}
    if saved != json.loads(json.dumps({"plan": old, "config": config.to_dict()})):
        raise ConfigError(f"{path}: this folder holds another experiment (other plan or config); "
                          "use another --out or remove the folder")


def choose_tests(plan: LiftPlan | ComparisonPlan, split: list[Task], saved: Any, views: ViewLedgers) -> list[Task]:
    """The test tasks: the registered ones on a resume of a reserve, a fresh reserve, or the first test_limit."""
    if plan.test_reserve is None:
        return split[: plan.test_limit]
    if is_registered(saved) and saved["plan"].get("test_reserve") == plan.test_reserve:
        chosen = set(saved["test"]["ids"])
    else:
        where = f"{views.store} and {views.folder}"
        chosen = set(reserve([t.id for t in split], views.rows(), plan.test_reserve, where))
    return [t for t in split if t.id in chosen]


def experiment_lock(out_dir: Path) -> AbstractContextManager[None]:
    """One process runs an experiment folder at a time: a second would score its test tasks again, counted twice."""
    return holding_lock(out_dir / LOCK_FILE, out_dir)


def open_experiment(plan: LiftPlan | ComparisonPlan, benchmark: BenchmarkAdapter, config: EvolveConfig,
                    out_dir: Path, progress: Progress | None = None) -> Experiment:
    """Check the test split, register the plan (or check it on a resume), open the ledgers and draws; one reply cache
    under the folder, a namespace per draw, so paired lifts share replies."""
    split = benchmark.get_tasks("test", limit=None)
    split_hash = ids_hash([t.id for t in split])
    views = ViewLedgers(out_dir / LEDGER_FILE, user_store(split_hash), split_hash)
    path = out_dir / PLAN_FILE
    saved = read_plan(path)
    source = Path(plan.agent) if Path(plan.agent).is_dir() else seed_path(plan.agent)  # a workspace path or a seed name
    legacy = saved is not None and not is_registered(saved)
    tests = split[: plan.test_limit] if legacy else choose_tests(plan, split, saved, views)
    train = benchmark.get_tasks("train", limit=config.task_pool_limit)
    check_test_split([t.id for t in tests], [t.id for t in train], MIN_TEST_TASKS, plan.allow_small_test)
    if legacy:
        check_legacy_plan(path, saved, plan, config)
        registration = {"plan_id": legacy_id(saved), "registered": False, "draws": 1}
    else:
        record = register(path, plan_record(plan.to_dict(), config, [t.id for t in tests], split_hash,
                                            workspace_key(source)))
        registration = {"plan_id": record["id"], "registered": True, "draws": plan.draws, "code": record["code"],
                        "test_ids_hash": record["test"]["ids_hash"], "registered_at": record["registered"]}
    ignore = out_dir / ".gitignore"
    if not ignore.is_file() or ignore.read_text(encoding="utf-8") != EXPERIMENT_GITIGNORE:
        atomic_write(ignore, EXPERIMENT_GITIGNORE)  # an older folder's rules are brought up to date
    if progress is not None:
        progress(ProgressEvent(0, ARM_PHASE, message=f"plan {registration['plan_id']} ({path})"))
    cached = with_reply_cache(config, out_dir / REPLIES_DIR)
    layout = DrawLayout(out_dir, registration["draws"], legacy)
    scorer = DrawScorer(benchmark, tests, cached, layout, views, registration["plan_id"], progress)
    return Experiment(source, tests, cached, scorer, registration)


@dataclass(frozen=True)
class DrawLayout:
    """Test draws: draw `d` scores every workspace again with its own sampling seed, reply-cache namespace and score
    files (arms share replies within a draw, nothing across draws); an unregistered (legacy) folder has one."""

    out_dir: Path
    draws: int = DEFAULT_DRAWS
    legacy: bool = False

    def store(self, draw: int, who: str, key: str) -> Path:
        """The score file of `who` (``baseline``, ``evolved/seed-0``, ...) in `draw`; a legacy folder's is keyed
        by the workspace's content."""
        if self.legacy:
            return self.out_dir / "scores" / f"{key}.jsonl"
        return self.out_dir / "scores" / f"draw-{draw}" / f"{who.replace('/', '-')}.jsonl"

    def sampling_seed(self, draw: int) -> int:
        """The sampling seed every role uses in `draw` (the same for every arm of the draw)."""
        return 0 if self.legacy else draw_seed(TEST_SEED, draw)

    def config(self, config: EvolveConfig, draw: int) -> EvolveConfig:
        """`config` with the draw's reply-cache namespace (a folder of its own under the experiment's cache)."""
        if self.legacy or not config.llm_cache_dir:
            return config
        return dataclasses.replace(config, llm_cache_dir=str(Path(config.llm_cache_dir) / f"draw-{draw}"))


@dataclass
class Drawn:
    """A workspace's test scores in each draw, its content key, its mean tokens per task in each draw, its cost."""

    key: str
    draws: list[dict[str, float]] = field(default_factory=list)
    tokens_per_task: list[float] = field(default_factory=list)
    cost: dict[str, float] = field(default_factory=dict)

    @property
    def scores(self) -> dict[str, float]:
        return task_means(self.draws)


@dataclass
class DrawScorer:
    """Scores workspaces on one experiment's test tasks in each of its draws; every completed scoring is a row
    in the test-view ledgers, under the experiment's plan id."""

    benchmark: BenchmarkAdapter
    tests: list[Task]
    config: EvolveConfig
    layout: DrawLayout
    views: ViewLedgers
    plan_id: str
    progress: Progress | None = None

    def charged(self, who: str) -> str | None:
        """Whose rows of a score file count as `who`'s cost: all of them in a file of its own; in an unregistered
        folder's file shared by content, the rows the arm made (the baseline's, older than that mark, are all)."""
        return who if self.layout.legacy and who != BASELINE else None

    def complete(self, scores: Mapping[str, float]) -> bool:
        """Whether `scores` hold every test task (an infrastructure failure leaves its task out, to solve again)."""
        return bool(scores) and set(scores) == {t.id for t in self.tests}

    def record(self, who: str, key: str, draw: int, scores: Mapping[str, float]) -> None:
        """A complete scoring of the test tasks into the ledgers (each skips a scoring it holds already)."""
        if self.complete(scores):
            self.views.record(View(self.plan_id, who, key, draw, tuple(scores), mean(list(scores.values()))))

    def score(self, workspace: Path, who: str, agent: Callable[[int], AgentMaker | None] | None = None) -> Drawn:
        """`workspace` solved on the test tasks by `who` (its score files and ledger rows name it), draw by draw;
        `agent(d)` builds draw d's agent (None: the workspace's own)."""
        if not self.layout.legacy:
            self.views.claim(self.plan_id, [t.id for t in self.tests])
        key = workspace_key(workspace)
        drawn = Drawn(key)
        totals = {"solves": 0.0, "tokens": 0.0, "seconds": 0.0}
        for draw in range(self.layout.draws):
            store = self.layout.store(draw, who, key)
            scores = score_tasks(workspace, self.benchmark, self.tests, store, self.layout.config(self.config, draw),
                                 who, self.progress, sampling_seed=self.layout.sampling_seed(draw),
                                 make_agent=agent(draw) if agent else None)
            self.record(who, key, draw, scores)
            made = store_cost(store, self.charged(who))
            every = store_cost(store)
            drawn.draws.append(scores)
            drawn.tokens_per_task.append(every["tokens"] / every["scored"] if every["scored"] else 0.0)
            totals = {k: totals[k] + made[k] for k in totals}
        drawn.cost = totals
        return drawn


def _keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    parts = Path(info.name).parts
    if any(part in _LEFT_OUT for part in parts) or info.name.endswith((".lock", ".tmp")):
        return None
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def save_checkpoint(folder: Path) -> Path | None:
    """Pack `folder` (one arm of one seed) into `folder/checkpoint.tar.gz`, atomically; None when it has nothing."""
    entries = [p for p in sorted(folder.iterdir()) if p.name not in _LEFT_OUT] if folder.is_dir() else []
    if not entries:
        return None
    target = folder / CHECKPOINT
    fd, tmp = tempfile.mkstemp(prefix=f".{CHECKPOINT}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz", compresslevel=6) as tar:
            for entry in entries:
                tar.add(entry, arcname=entry.name, filter=_keep)
        os.chmod(tmp, 0o644)  # mkstemp's file is private; a checkpoint is as readable as the rest of the folder
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def restore_checkpoint(folder: Path) -> bool:
    """Unpack `folder/checkpoint.tar.gz` when the arm's workspace is missing (a fresh clone; one there is newer and
    wins); True if it did."""
    archive = folder / CHECKPOINT
    if (folder / "workspace").exists() or not archive.is_file():
        return False
    with tempfile.TemporaryDirectory(prefix=".restore-", dir=folder, ignore_cleanup_errors=True) as staging:
        try:
            with tarfile.open(archive, "r:gz") as tar:
                tar.extractall(staging, filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise WorkspaceError(f"{archive}: cannot unpack the arm's checkpoint ({exc}); remove it to start the "
                                 "arm again from its first cycle") from None
        for entry in sorted(Path(staging).iterdir()):
            destination = folder / entry.name
            if destination.is_dir():
                shutil.rmtree(destination)
            elif destination.exists():
                destination.unlink()
            entry.rename(destination)
    return True
