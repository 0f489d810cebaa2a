"""Curtailment: a gate stops scoring once no outcome of its unscored tasks can change its decision (monotone
strategy: the table completed at the candidate's worst and at its best agree); `GateCurtailer` holds the rules."""

from __future__ import annotations

import logging
import math
import random
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol, TypeVar

from agent_evolve.engine.acceptance import AcceptanceStrategy
from agent_evolve.engine.gate import GateDecision, decide

log = logging.getLogger(__name__)

T = TypeVar("T")

ALL_SCORED = "every task was scored (only a rejection settled before the last task stops a gate)"

StopRule = Callable[[dict[str, list[float]], list[str]], bool]
"""Given the tasks scored so far (task id -> repeat scores) and those still unscored: stop scoring now?"""


class StopScoring(Exception):  # noqa: N818 - a signal, not an error
    """Raised from a solve's `on_done` once a stop rule says stop: the executor starts no further task."""


@dataclass(frozen=True)
class ScoreRange:
    """The lowest and highest score one task can get (a benchmark's `score_range`, [0, 1] by default)."""

    low: float = 0.0
    high: float = 1.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low <= self.high):
            raise ValueError(f"score range [{self.low}, {self.high}] must be two finite numbers, low <= high")

    def contains(self, score: float) -> bool:
        return self.low <= score <= self.high


@dataclass(frozen=True)
class Settlement:
    """Whether the decision is settled: `action` is "accept" or "reject" when it is, None while it is open."""

    action: Literal["accept", "reject"] | None
    reason: str

    @property
    def settled(self) -> bool:
        return self.action is not None


def settle(strategy: AcceptanceStrategy, candidate: Mapping[str, Sequence[float]],
           incumbent: Mapping[str, Sequence[float]], *, unscored_candidate: Collection[str],
           unscored_incumbent: Collection[str] = (), score_range: ScoreRange = ScoreRange(),
           best_so_far: float | None = None) -> Settlement:
    """Is the decision on the full table already known from the tasks scored so far (task id -> repeat scores), each
    side's `unscored_*` tasks scoring anywhere in `score_range`? Never settled early for a non-monotone strategy."""
    if not getattr(strategy, "monotone", False):
        return Settlement(None, f"strategy {strategy.name} is not declared monotone: every task is scored")
    low, high = score_range.low, score_range.high
    worst = decide(_completed(candidate, unscored_candidate, low), _completed(incumbent, unscored_incumbent, high),
                   strategy, best_so_far=best_so_far)
    best = decide(_completed(candidate, unscored_candidate, high), _completed(incumbent, unscored_incumbent, low),
                  strategy, best_so_far=best_so_far)
    scored = decide(candidate, incumbent, strategy, best_so_far=best_so_far)
    if not worst.action == best.action == scored.action:
        return Settlement(None, f"open: {worst.action} if every unscored task goes against the candidate, "
                                f"{best.action} if every one goes its way")
    if scored.accepted:
        return Settlement("accept", f"accepted even if every unscored task goes against the candidate: {worst.reason}")
    return Settlement("reject", f"rejected even if every unscored task goes the candidate's way: {best.reason}")


class PrefixWatch:
    """Follows attempts as they finish, in any order, and asks a stop rule about each longer complete prefix of the
    scoring order, so the stopping point and the table never depend on timing or executor. Thread-safe."""

    def __init__(self, order: Sequence[str], repeats: int, stop: StopRule):
        self.order, self.repeats, self.stop = list(order), repeats, stop
        self.scores: dict[str, list[float]] = {}
        self.returned: dict[str, int] = {}
        self.prefix = 0
        self.stopped = False
        self._lock = threading.Lock()

    def add(self, task_id: str, score: float | None) -> bool:
        """One attempt of `task_id` returned (`score` None: not graded); True when scoring stops here."""
        with self._lock:
            self.returned[task_id] = self.returned.get(task_id, 0) + 1
            if score is not None:
                self.scores.setdefault(task_id, []).append(score)
            while not self.stopped and self.prefix < len(self.order) and self._complete(self.order[self.prefix]):
                self.prefix += 1
                scored = {t: self.scores[t] for t in self.order[:self.prefix] if t in self.scores}
                self.stopped = self.stop(scored, self.order[self.prefix:])
                if self.stopped:
                    return True
            return False

    def kept(self) -> set[str]:
        """The tasks of the prefix scoring stopped at (all tasks while it has not stopped)."""
        return set(self.order[:self.prefix] if self.stopped else self.order)

    def _complete(self, task_id: str) -> bool:
        return self.returned.get(task_id, 0) >= self.repeats


SPRT_WIN_SHARE = 2 / 3
"""The alternative a futility stop guards: the candidate wins 2 of every 3 tasks on which the two sides differ."""


def futile(wins: int, losses: int, beta: float, win_share: float = SPRT_WIN_SHARE) -> bool:
    """Wald's sequential test, futility side: stop once the likelihood ratio of "wins a `win_share` of differing
    tasks" to "a fair coin" is at most `beta` (such a candidate is stopped with probability at most `beta`)."""
    if not 0.0 < beta < 1.0 or not 0.5 < win_share < 1.0:
        raise ValueError(f"futility needs 0 < beta < 1 and 0.5 < win_share < 1, got {beta}, {win_share}")
    log_ratio = wins * math.log(2 * win_share) + losses * math.log(2 * (1 - win_share))
    return log_ratio <= math.log(beta)


def scoring_order(items: Sequence[T], seed: int) -> list[T]:
    """`items` in a random order fixed by `seed`: decisions come early without favouring any task."""
    return random.Random(f"curtailment-order:{seed}").sample(list(items), len(items))


def _completed(scores: Mapping[str, Sequence[float]], unscored: Collection[str], value: float) -> dict[str, list[float]]:
    """`scores` with every unscored task given `value`."""
    return {**{task_id: list(values) for task_id, values in scores.items()}, **{t: [value] for t in unscored}}


class Measured(Protocol):
    """What the curtailment record reads of a gate phase's measure (`solving.HoldoutMeasure`)."""

    unscored: list[str]
    attempts: int


@dataclass
class GateCurtailer:
    """Curtailment of one gate over `task_ids` (in scoring order), `repeats` solves each."""

    strategy: AcceptanceStrategy
    score_range: ScoreRange
    best_so_far: float | None
    task_ids: list[str]
    repeats: int
    seed: int
    sprt_beta: float | None = None
    settlement: Settlement | None = None
    out_of_range: str = ""
    futility: str = ""

    def incumbent_rule(self) -> StopRule:
        """Stop re-measuring the incumbent once even the best candidate imaginable would be rejected."""
        return lambda scored, unscored: self._stop(scored, lambda: settle(
            self.strategy, {}, scored, unscored_candidate=self.task_ids, unscored_incumbent=unscored,
            score_range=self.score_range, best_so_far=self.best_so_far))

    def candidate_rule(self, incumbent: Mapping[str, Sequence[float]]) -> StopRule:
        """Stop scoring the candidate once its rejection is settled, given the incumbent's whole table (or, with
        `sprt_beta`, once it is futile)."""
        def rule(scored: dict[str, list[float]], unscored: list[str]) -> bool:
            return self._stop(scored, lambda: settle(
                self.strategy, scored, incumbent, unscored_candidate=unscored, score_range=self.score_range,
                best_so_far=self.best_so_far)) or self._futile(scored, incumbent)

        return rule

    def rejected(self) -> bool:
        """The last check settled a rejection or found it futile (and no score has left the declared range)."""
        settled = self.settlement is not None and self.settlement.action == "reject"
        return not self.out_of_range and (settled or bool(self.futility))

    def _futile(self, scored: Mapping[str, Sequence[float]], incumbent: Mapping[str, Sequence[float]]) -> bool:
        if self.sprt_beta is None or self.out_of_range or not scored:
            return False
        statistic = decide(scored, incumbent, self.strategy, best_so_far=self.best_so_far).statistic
        wins, losses = statistic["wins"], statistic["losses"]
        if futile(wins, losses, self.sprt_beta):
            self.futility = (f"futile by SPRT after {wins} wins and {losses} losses: a candidate winning "
                             f"{SPRT_WIN_SHARE:.0%} of differing tasks stops here with probability at most "
                             f"{self.sprt_beta:g}")
        return bool(self.futility)

    def _stop(self, scored: Mapping[str, Sequence[float]], check: Callable[[], Settlement]) -> bool:
        """Stop on a settled rejection; never once a score has left the declared range."""
        if self.out_of_range:
            return False
        for task_id, values in scored.items():
            if not all(self.score_range.contains(v) for v in values):
                self.out_of_range = (f"task {task_id} scored {list(values)}, outside the benchmark's score_range "
                                     f"[{self.score_range.low}, {self.score_range.high}]: every task is scored")
                log.warning("gate curtailment is off for this gate: %s", self.out_of_range)
                return False
        self.settlement = check()
        return self.rejected()

    def record(self, phases: Mapping[str, Measured | None]) -> dict[str, Any]:
        """What each phase scored and skipped (tasks and solves), and why scoring stopped."""
        total = len(self.task_ids)
        counts: dict[str, Any] = {"tasks": total, "repeats": self.repeats, "order_seed": self.seed}
        solves = skipped = 0
        for name, measured in phases.items():
            scored_tasks = total - len(measured.unscored) if measured is not None else 0
            attempts = measured.attempts if measured is not None else 0
            counts[name] = {"scored": scored_tasks, "skipped": total - scored_tasks, "solves": attempts}
            solves += attempts
            skipped += total * self.repeats - attempts
        if not (self.rejected() and skipped > 0):
            how, reason = "all scored", self.out_of_range or ALL_SCORED
        elif self.futility:
            how, reason = "sprt", self.futility
        else:
            how, reason = "settled", self.settlement.reason if self.settlement else ALL_SCORED
        return {**counts, "solves": solves, "solves_skipped": skipped, "stopped": how, "reason": reason}

    def decided(self, decision: GateDecision, record: dict[str, Any]) -> GateDecision:
        """The decision on the tasks scored, with the curtailment record; when scoring stopped, a rejection with
        the reason it stopped (settled: the strategy's own verdict; sprt: futile at the stated error rate)."""
        if record["stopped"] == "all scored":
            return replace(decision, curtailment=record)
        if record["stopped"] == "settled" and decision.accepted:
            raise AssertionError(f"a curtailed gate accepted: {decision.reason}")
        return replace(decision, action="reject", reason=record["reason"], curtailment=record)
