"""The configuration reference page, rendered from `EvolveConfig` so it cannot drift (each key's meaning is written
once, here): `python -m agent_evolve.config_reference > docs/configuration.md`."""

from __future__ import annotations

import dataclasses

from agent_evolve.config import EvolveConfig

MEANINGS: dict[str, str] = {
    "batch_size": "train tasks solved per cycle",
    "max_cycles": "cycles when `run()` gets no count (the total for the workspace, so a rerun resumes)",
    "holdout_ratio": "share of the train pool set aside for the gate, in [0, 1); 0 = no gate",
    "evolve_prompts": "the engine may change `prompts/` (also limited by the manifest's `evolvable_layers`)",
    "evolve_skills": "the engine may change `skills/`",
    "evolve_memory": "the engine may change `memory/`",
    "evolve_tools": "the engine may change `tools/` (tools always run confined; see docs/security.md)",
    "trajectory_only": "hide scores and feedback from the engine",
    "evolver_model": "the engine's (and judges') model",
    "evolver_max_tokens": "the engine's output limit",
    "egl_threshold": "converged when the best accepted score of the last `egl_window` cycles beats the best before "
                     "them (the baseline included) by less than this (docs/configuration-notes.md)",
    "egl_window": "cycles the convergence rule looks back over; above the number of cycles, it never stops a run",
    "extra": "free-form settings: engines see it in `context.config.extra`; `extra: {agent: {...}}` gives the "
             "reference agent defaults for its `agent.config` keys",
    "agent_model": "the agent's model (`local/...`, `openai/...`, `anthropic/...`, `bedrock/...`, `ollama/...`, "
                   "`vllm/...`)",
    "agent_max_tokens": "the agent's output limit; when set it beats the manifest's `agent.config.max_tokens` "
                        "(none: the manifest's, else 1024)",
    "agent_temperature": "the agent's temperature; when set it beats the manifest (none: the manifest's, else 0)",
    "agent_base_url": "the agent's OpenAI-compatible server; else `llm_base_url`",
    "agent_timeout_s": "seconds per agent call (none: `llm_timeout_s`)",
    "evolver_base_url": "the engine's server; `llm_base_url` never applies to the engine",
    "evolver_timeout_s": "seconds per engine call (none: `llm_timeout_s`)",
    "llm_base_url": "the agent's base URL when `agent_base_url` is not set (`--base-url`)",
    "llm_timeout_s": "default per-call timeout of both roles (none: 120 s for remote providers, 1800 s for the "
                     "embedded model)",
    "llm_max_retries": "retries (backoff with jitter) on 429, 5xx and timeouts; 401/403 stop the run",
    "llm_cache": "cache every reply on disk, so a resumed run pays for no reply twice and an edit is scored on the "
                 "replies its incumbent got; false: ask every time",
    "llm_cache_dir": "where replies are cached (none: `<workspace>/evolution/replies`; an experiment shares "
                     "`<out>/replies`)",
    "prices": "override the price table: `{model: {input: $/Mtok, output: $/Mtok}}`",
    "seed": "holdout carving and batch order",
    "task_pool_limit": "how many train tasks the loop asks the benchmark for, once",
    "holdout_limit": "at most this many holdout tasks (none: no cap)",
    "val_ratio": "share of the rest of the train pool kept as the learners' validation split (scored through "
                 "`trial`, never batched)",
    "val_limit": "at most this many validation tasks",
    "gate_strategy": "acceptance rule: `strict`, `min_improvement`, `paired`, `best_so_far`, `keep`",
    "gate_min_improvement": "the candidate must beat the accepted score by more than this",
    "gate_accept_ties": "keep a candidate that exactly ties",
    "gate_repeats": "score each holdout task this many times",
    "gate_alpha": "significance level of the `paired` strategy",
    "gate_curtail": "stop scoring a gate or a trial once no outcome of the remaining tasks can change its decision "
                    "(exact: the same decision as scoring all; docs/curtailment.md)",
    "gate_sprt_beta": "none: off; else a futility test (SPRT) that also rejects early: a candidate winning 2 of 3 "
                      "differing tasks is stopped with probability at most this (not exact)",
    "gate_remeasure_incumbent": "re-measure the accepted version in each gate (none: only when the agent or "
                                "grader is not deterministic)",
    "patience": "stop after this many cycles without an accepted improvement (none: off)",
    "max_infra_failure_ratio": "a batch or gate with a larger share of infrastructure failures is a failed "
                               "cycle, not scored",
    "preflight": "check every model role and the benchmark before the baseline (`--no-preflight`)",
    "engine_params": "constructor keywords of an engine built by name (`--engine-param k=v`); an unknown one is "
                     "an error naming the accepted ones",
    "engine_resume": "hand an engine that `supports_resume` its previous session handle (Hermit's "
                     "`evolver.resume`); an error for an engine that does not",
    "grader": "the grader of `jsonl:PATH`: `exact` (its default), `regex`, `numeric` or "
              "`python:module:function` (`--grader`)",
    "answer_kind": "what every answer of a `jsonl:PATH` file is: `number`, `text`, `choice`, `code`, `free` or "
                   "`actions` (none: a line's own `answer_kind`, else inferred; docs/answer-kinds.md)",
    "grader_options": "options of the `jsonl` exact grader: `ignore_case`, `strip_punctuation` (each true or "
                      "false; `--ignore-case`, `--strip-punctuation`)",
    "concurrency": ("tasks solved at once, and model calls in flight across the process; unset: 16 (the embedded "
                    "engine's slots) with a local agent model and the threads executor, else 4"),
    "executor": "how tasks are solved: `threads`, `processes` or `ray`",
    "ray_address": "the Ray cluster of `executor: ray` (none: a local one)",
    "allow_early_stop": "honour an engine's `stop` status",
    "max_total_tokens": "token budget of one run; when spent the run ends with `out_of_budget` at the last "
                        "accepted version (none: unlimited)",
    "max_cost_usd": "dollar budget of one run, as `max_total_tokens` (a model of unknown price is refused at "
                    "start unless `prices` covers it)",
}

_HEADER = """\
# Configuration reference

Generated from `EvolveConfig` by `python -m agent_evolve.config_reference > docs/configuration.md`; a test fails
when this page and the code differ. Set keys in Python (`ae.EvolveConfig(batch_size=4)`), in a YAML file of the
same keys (`--config FILE`), or with the command-line options that name them. An unknown key is refused with
the nearest known one; settings of your own go under `extra`. Which value wins, when several
places set one, is at the end of this page.

| key | type | default | meaning |
|---|---|---|---|
"""

_PRECEDENCE = """
## Which value wins

| setting | 1st (wins) | 2nd | 3rd | 4th |
|---|---|---|---|---|
| any `EvolveConfig` key | command-line option | YAML file (`--config`) or `EvolveConfig(...)` | built-in default | |
| agent `max_tokens`, `temperature` | `--agent-max-tokens` / `--agent-temperature` (`agent_max_tokens` / `agent_temperature`) | the manifest's `agent.config` | `extra.agent` | built-in default (1024, 0) |
| other `agent.config` keys | the manifest's `agent.config` | `extra.agent` | built-in default | |
| agent base URL | `agent_base_url` | `llm_base_url` / `--base-url` | the provider's default | |
| engine base URL | `evolver_base_url` / `--evolver-base-url` | the provider's default | | |
| role timeout | `agent_timeout_s` / `evolver_timeout_s` | `llm_timeout_s` | | |
| engine parameters | `--engine-param` | `engine_params` in YAML | the engine's `defaults` | |
"""


def _type_name(field: dataclasses.Field[object]) -> str:
    return str(field.type).replace("typing.", "").replace(" | None", " or none")


def _default(field: dataclasses.Field[object]) -> str:
    value = field.default if field.default is not dataclasses.MISSING else field.default_factory()  # type: ignore[misc]
    return "none" if value is None else f"`{value!r}`" if not isinstance(value, bool) else str(value).lower()


def render() -> str:
    """The whole page: one row per `EvolveConfig` field, in the dataclass's order, then the precedence table."""
    rows = []
    for field in dataclasses.fields(EvolveConfig):
        meaning = MEANINGS.get(field.name)
        if meaning is None:
            raise KeyError(f"EvolveConfig.{field.name} has no meaning in agent_evolve.config_reference.MEANINGS")
        rows.append(f"| `{field.name}` | {_type_name(field)} | {_default(field)} | {meaning} |\n")
    return _HEADER + "".join(rows) + _PRECEDENCE


if __name__ == "__main__":
    print(render(), end="")
