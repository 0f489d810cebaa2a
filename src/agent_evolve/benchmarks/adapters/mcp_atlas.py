"""MCP-Atlas: multi-step tool-use tasks over real MCP servers, graded by coverage of expected claims."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.support.claim_judge import judge_claims
from agent_evolve.benchmarks.support.common import IndexedBenchmark, Lazy, resolve_path
from agent_evolve.benchmarks.support.data import DataSource, load_records
from agent_evolve.benchmarks.support.answers import numbers_in
from agent_evolve.config import EvolveConfig
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.io.safe_json import parse_json
from agent_evolve.llm.base import LLMClient
from agent_evolve.llm.factory import make_client, role_settings
from agent_evolve.mcp import parse_servers, tool_name
from agent_evolve.mcp.client import INSTALL_HINT
from agent_evolve.text import STOP_WORDS
from agent_evolve.types import Feedback, Task, Trajectory

ENV_VAR = "AGENT_EVOLVE_MCP_ATLAS_DATA"
SERVERS_ENV_VAR = "AGENT_EVOLVE_MCP_ATLAS_SERVERS"
HF_NAME = "ScaleAI/MCP-Atlas"
PASS_THRESHOLD = 0.75
OUTCOME_SCORES = {"fulfilled": 1.0, "partially_fulfilled": 0.5, "not_fulfilled": 0.0}

LEXICAL = "lexical"
"""`judge=` value that chooses the deterministic claim check instead of a model."""

_WORD = re.compile(r"[a-z][a-z0-9'-]+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")


def parse_claims(blob: Any) -> list[str]:
    """GTFA_CLAIMS as a list: a JSON or Python-literal list (of strings or {"claim": ...}), or listed lines."""
    if blob is None:
        return []
    items: Any = blob
    if isinstance(blob, str):
        text = blob.strip()
        if not text:
            return []
        try:
            items = json.loads(text)
        except ValueError:
            try:
                items = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                items = [_LIST_ITEM.sub("", line) for line in text.splitlines()]
    if not isinstance(items, list):
        items = [items]
    claims = [str(item["claim"] if isinstance(item, dict) else item).strip() for item in items]
    return [claim for claim in claims if len(claim) > 3]


def parse_tools(blob: Any) -> list[str]:
    """ENABLED_TOOLS as a list of 'server_tool' names (JSON-encoded in the dataset)."""
    if isinstance(blob, str):
        blob = json.loads(blob) if blob.strip() else []
    return [str(tool) for tool in blob or []]


def server_of(tool: str) -> str:
    """The MCP server a tool belongs to: the part before the first underscore."""
    return tool.split("_", 1)[0]


def _stems(text: str) -> set[str]:
    """Content-word stems: lower case, no stop words, plural s dropped, cut to 6 letters."""
    stems = set()
    for word in _WORD.findall(text.lower()):
        if len(word) < 3 or word in STOP_WORDS:
            continue
        if word.endswith("s") and len(word) > 3:
            word = word[:-1]
        stems.add(word[:6])
    return stems


def _number_found(value: float, decimals: int, candidates: list[tuple[float, int]]) -> bool:
    """A claimed number matches when equal up to the coarser rounding, or within 1% for decimals."""
    return any(abs(value - other) <= 0.5 * 10 ** -min(decimals, other_decimals) + 1e-9
               or (decimals > 0 and abs(value - other) <= 0.01 * abs(value)) for other, other_decimals in candidates)


def claim_outcome(claim: str, output: str, prompt: str = "") -> str:
    """Deterministic stand-in for the LLM judge: key numbers and key words of the claim found in the output."""
    out_numbers = numbers_in(output)
    numbers = numbers_in(claim)
    words = _stems(claim)
    key_words = (words - _stems(prompt)) or words
    out_words = _stems(output)
    word_share = len(key_words & out_words) / len(key_words) if key_words else 1.0
    if numbers:
        number_share = sum(_number_found(v, d, out_numbers) for v, d in numbers) / len(numbers)
        coverage = 0.7 * number_share + 0.3 * word_share
    else:
        coverage = word_share
    if coverage >= 0.8:
        return "fulfilled"
    return "partially_fulfilled" if coverage >= 0.4 else "not_fulfilled"


def score_claims(claims: list[str], output: str, prompt: str = "",
                 threshold: float = PASS_THRESHOLD) -> Feedback:
    """Mean claim score (fulfilled 1, partial 0.5, missing 0); a pass at `threshold`, as MCP-Atlas reports."""
    if not claims:
        raise ValueError("mcp-atlas: a task has no expected claims to grade against")
    per_claim = [{"claim": c, "outcome": claim_outcome(c, output, prompt)} for c in claims]
    score = round(sum(OUTCOME_SCORES[p["outcome"]] for p in per_claim) / len(claims), 3)
    full = sum(p["outcome"] == "fulfilled" for p in per_claim)
    partial = sum(p["outcome"] == "partially_fulfilled" for p in per_claim)
    missing = [p["claim"] for p in per_claim if p["outcome"] == "not_fulfilled"]
    detail = (f"claim coverage {score:.2f}: {full} fulfilled, {partial} partial, {len(missing)} missing "
              f"of {len(claims)}")
    if missing:
        detail += "; missing: " + " | ".join(missing)
    return Feedback(score >= threshold, score, detail, raw={"per_claim": per_claim, "coverage_score": score})


def load_server_config(config: str | dict[str, Any]) -> dict[str, dict[str, Any]]:
    """MCP server definitions (name -> entry) from a dict or a JSON file, with or without the `mcpServers` wrapper."""
    data = parse_json(Path(config).read_text(encoding="utf-8"), config, ConfigError) if isinstance(config, str) else config
    servers = data.get("mcpServers", data) if isinstance(data, dict) else data
    if not isinstance(servers, dict):
        raise ConfigError(f"{config if isinstance(config, str) else 'mcp_config'}: MCP server config must map server "
                          "names to {command, args, env}")
    return servers


def server_problems(servers: list[str], config: dict[str, dict[str, Any]]) -> list[str]:
    """What keeps the servers a task needs from starting: not configured, not stdio, or the command not found."""
    problems = []
    for name in servers:
        entry = config.get(name)
        if entry is None:
            problems.append(f"MCP server {name!r} is not configured (add it under mcpServers)")
            continue
        try:
            [server] = parse_servers({name: entry}, "mcp_config")
            server.executable()
        except (ConfigError, MissingDependencyError) as exc:
            problems.append(str(exc))
    return problems


class McpAtlasBenchmark(IndexedBenchmark[dict[str, Any]]):
    """MCP-Atlas tasks (TASK, ENABLED_TOOLS, PROMPT, GTFA_CLAIMS), with their stdio servers given a server config;
    an LLM judge (`judge=`, else the agent model of `config`) grades each claim, else (or "lexical") `score_claims`."""

    name = "mcp-atlas"

    def __init__(self, data_path: str | None = None, seed: int = 0, test_fraction: float = 0.3, *,
                 judge: LLMClient | str | None = None, config: EvolveConfig | None = None,
                 mcp_config: str | dict[str, Any] | None = None, pass_threshold: float = PASS_THRESHOLD,
                 hf_name: str = HF_NAME, hf_split: str = "train") -> None:
        super().__init__(seed, test_fraction)
        self._judge_choice = judge
        self._config = config
        self._judge = Lazy(self._build_judge)
        self.pass_threshold = pass_threshold
        config = mcp_config if mcp_config is not None else resolve_path(None, SERVERS_ENV_VAR)
        self.servers = load_server_config(config) if config is not None else None
        self.source = DataSource(
            benchmark=self.name, env_var=ENV_VAR, data_path=data_path, hf_name=hf_name, hf_split=hf_split,
            hint="Records need the columns TASK, ENABLED_TOOLS, PROMPT and GTFA_CLAIMS "
                 "(the sample CSV of github.com/scaleapi/mcp-atlas works as is).")

    def _load(self) -> dict[str, dict[str, Any]]:
        """Index the records by TASK, parsing tools and claims once."""
        index: dict[str, dict[str, Any]] = {}
        for record in load_records(self.source):
            fields = {key.upper(): value for key, value in record.items()}
            missing = [k for k in ("TASK", "PROMPT", "GTFA_CLAIMS") if not fields.get(k)]
            if missing:
                raise ConfigError(f"{self.name}: a record lacks {missing}: {str(record)[:200]}")
            try:
                tools, claims = parse_tools(fields.get("ENABLED_TOOLS")), parse_claims(fields["GTFA_CLAIMS"])
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{self.name}: task {fields['TASK']!r}: ENABLED_TOOLS or GTFA_CLAIMS: {exc}") from None
            index[str(fields["TASK"])] = {"prompt": str(fields["PROMPT"]).strip(), "tools": tools, "claims": claims}
        return index

    def to_task(self, task_id: str, record: dict[str, Any]) -> Task:
        """The prompt, with the enabled tools and their servers in metadata; the claims stay private."""
        servers = sorted({server_of(tool) for tool in record["tools"]})
        metadata: dict[str, Any] = {"enabled_tools": record["tools"], "servers": servers}
        if self.servers is not None:
            metadata["mcp_servers"] = {name: self.servers[name] for name in servers if name in self.servers}
            metadata["mcp_enabled_tools"] = [tool_name(server_of(tool), tool.split("_", 1)[-1])
                                             for tool in record["tools"]]
        return Task(id=task_id, input=record["prompt"], metadata=metadata)

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        """Tasks of one split; with a server config, every server they need must be runnable."""
        tasks = super().get_tasks(split, limit)
        if self.servers is not None:
            self.check_servers(tasks)
        return tasks

    def check_servers(self, tasks: list[Task]) -> None:
        """Raise MissingDependencyError naming every configured server or command the tasks lack (needs a server
        config)."""
        problems = sorted({p for task in tasks for p in server_problems(task.metadata["servers"], self.servers)})
        if problems:
            raise MissingDependencyError(f"{self.name}: the requested tasks need MCP servers that cannot "
                                         "start: " + "; ".join(problems) + ".")

    def check_ready(self) -> None:
        """The data loads and, with a server config, the `mcp` SDK is installed and every server can start."""
        if self.servers is not None and importlib.util.find_spec("mcp") is None:
            raise MissingDependencyError(f"{self.name} starts MCP servers for the agent: {INSTALL_HINT}")
        self.get_tasks("train", None)

    @property
    def judge(self) -> LLMClient | None:
        """The judge model (built once on first use), or None for the lexical fallback."""
        return self._judge.value()

    def _build_judge(self) -> LLMClient | None:
        """The client `judge=` names, else one for the config's agent model, else None (and for `lexical`)."""
        if self._judge_choice == LEXICAL:
            return None
        if isinstance(self._judge_choice, str):
            return make_client(self._judge_choice, role="judge")
        if self._judge_choice is not None:
            return self._judge_choice
        if self._config is None:
            return None
        agent = role_settings(self._config, "agent")
        return make_client(agent.model, role="judge", base_url=agent.base_url, timeout_s=agent.timeout_s,
                           max_retries=self._config.llm_max_retries, cache_dir=self._config.llm_cache_dir,
                           prices=self._config.prices)

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Claim coverage by the judge (JudgeError when its verdicts cannot be read), else the lexical check."""
        record = self._index.get(task.id, self.name)
        judge = self.judge
        if judge is None:
            feedback = score_claims(record["claims"], trajectory.output, record["prompt"], self.pass_threshold)
            feedback.raw["grader"] = LEXICAL
            return feedback
        verdicts = judge_claims(judge, record["prompt"], trajectory.output, record["claims"])
        covered = sum(ok for _, ok in verdicts)
        score = round(covered / len(verdicts), 3)
        missing = [claim for claim, ok in verdicts if not ok]
        detail = f"claim coverage {score:.2f}: {covered} of {len(verdicts)} covered (judge {judge.model})"
        if missing:
            detail += "; not covered: " + " | ".join(missing)
        per_claim = [{"claim": claim, "outcome": "fulfilled" if ok else "not_fulfilled"} for claim, ok in verdicts]
        return Feedback(score >= self.pass_threshold, score, detail,
                        raw={"per_claim": per_claim, "coverage_score": score, "grader": f"judge:{judge.model}"})
