"""What a lift experiment runs: its arms, seeds and test split, and the per-arm, per-seed result record."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agent_evolve.errors import ConfigError

BASELINE = "baseline"  # the seed workspace, scored once on the test split
EVOLVED = "evolved"  # the engine under test
CONTROL = "control"  # the same loop with an engine that never edits
MATCHED = "matched"  # the baseline workspace with the evolved arm's test-time tokens, spent on a vote
ARMS: tuple[str, ...] = (EVOLVED, CONTROL, MATCHED)
ARM_ROWS = {EVOLVED: "runs", CONTROL: "control", MATCHED: "matched"}  # where lift.json keeps each arm's per-seed rows
DEFAULT_DRAWS = 2
DEFAULT_SEEDS: tuple[int, ...] = (0, 1, 2)
MIN_TEST_TASKS = 120  # fewer test tasks cannot tell a real lift of +0.08 from noise


@dataclass(frozen=True)
class LiftPlan:
    """One experiment: agent, benchmark and engine names, seeds, cycles, test tasks (the first `test_limit`, or
    `test_reserve` that no earlier plan scored), test draws, and which controls run."""

    agent: str
    benchmark: str
    engine: str
    seeds: tuple[int, ...] = DEFAULT_SEEDS
    cycles: int = 2
    test_limit: int = MIN_TEST_TASKS
    control: bool = True
    allow_small_test: bool = False
    draws: int = DEFAULT_DRAWS
    matched: bool = True
    test_reserve: int | None = None

    def __post_init__(self) -> None:
        check_draws(self.draws, self.test_reserve)

    @property
    def arms(self) -> tuple[str, ...]:
        return (EVOLVED, *((CONTROL,) if self.control else ()), *((MATCHED,) if self.matched else ()))

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "seeds": list(self.seeds), "arms": list(self.arms)}


def check_draws(draws: int, test_reserve: int | None) -> None:
    """Refuse fewer than one test draw or an empty reserve."""
    if draws < 1:
        raise ConfigError(f"--draws {draws}: a test scoring needs at least one draw")
    if test_reserve is not None and test_reserve < 1:
        raise ConfigError(f"--test-reserve {test_reserve}: reserve at least one test task")


def check_test_split(test_ids: list[str], train_ids: list[str], minimum: int, allow_small: bool) -> None:
    """Refuse a test split that evolution can touch (shared ids with train) or, unless allowed, a small one."""
    shared = sorted(set(test_ids) & set(train_ids))
    if shared:
        raise ConfigError(f"the test split shares {len(shared)} task(s) with train (e.g. {shared[:3]}); "
                          "evolution must never touch the test tasks")
    if len(test_ids) < minimum and not allow_small:
        raise ConfigError(f"the test split has {len(test_ids)} task(s), fewer than {minimum}: a lift measured on it "
                          "is noise; raise --test-limit or pass --allow-small-test")


@dataclass
class ArmRun:
    """One arm of one seed: its evolution summary, per-task test scores (each task averaged over the draws, and
    each draw's), its mean tokens per test task in each draw, and cost."""

    arm: str
    seed: int
    workspace: str
    test_key: str = ""
    test_scores: dict[str, float] = field(default_factory=dict)
    draw_scores: list[dict[str, float]] = field(default_factory=list)
    test_tokens: list[float] = field(default_factory=list)
    baseline_holdout: float = 0.0
    final_holdout: float = 0.0
    accepted: int = 0
    rejected: int = 0
    cycles: int = 0
    score_curve: list[float] = field(default_factory=list)
    cost: dict[str, float] = field(default_factory=dict)
    finished: bool = False
    edits: dict[str, int] = field(default_factory=dict)

    @property
    def draws(self) -> list[dict[str, float]]:
        """The scores of each draw (an arm from before draws had one)."""
        return self.draw_scores or [self.test_scores]


@dataclass(frozen=True)
class ComparisonPlan:
    """Several engines side by side: each evolves on the same seeds, splits, cycles and config (so budgets), and
    all are scored against one baseline on the same test tasks; one control arm per seed serves them all."""

    agent: str
    benchmark: str
    engines: tuple[str, ...]
    seeds: tuple[int, ...] = DEFAULT_SEEDS
    cycles: int = 2
    test_limit: int = MIN_TEST_TASKS
    control: bool = True
    allow_small_test: bool = False
    draws: int = DEFAULT_DRAWS
    test_reserve: int | None = None

    def __post_init__(self) -> None:
        check_draws(self.draws, self.test_reserve)
        if not self.engines:
            raise ConfigError("a comparison needs at least one engine")
        repeated = sorted({e for e in self.engines if self.engines.count(e) > 1})
        reserved = sorted(set(self.engines) & {BASELINE, "scores", "replies", *ARMS})
        if repeated or reserved:
            raise ConfigError(f"engines {repeated or reserved} are named twice or clash with a folder of the "
                              "experiment (baseline, scores, evolved, control)")

    def lift_plan(self, engine: str) -> LiftPlan:
        """The single-engine plan of one engine of the comparison."""
        return LiftPlan(self.agent, self.benchmark, engine, self.seeds, self.cycles, self.test_limit, self.control,
                        self.allow_small_test, self.draws, False, self.test_reserve)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "engines": list(self.engines), "seeds": list(self.seeds)}
