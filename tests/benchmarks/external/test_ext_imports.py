"""The five built-in external names import without heavy dependencies and construct without arguments."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from agent_evolve.benchmarks.base import BenchmarkAdapter

CLASS_PATHS = {
    "swe-verified": "agent_evolve.benchmarks.swe_verified.SweVerifiedBenchmark",
    "mcp-atlas": "agent_evolve.benchmarks.mcp_atlas.McpAtlasBenchmark",
    "terminal2": "agent_evolve.benchmarks.terminal2.Terminal2Benchmark",
    "skill-bench": "agent_evolve.benchmarks.skill_bench.SkillBenchBenchmark",
    "arc-agi-3": "agent_evolve.benchmarks.arc_agi3.ArcAgi3Benchmark",
}
HEAVY = ("datasets", "pyarrow", "swebench", "docker", "requests", "httpx", "pandas", "numpy")


def _load(path: str) -> type[BenchmarkAdapter]:
    module, _, name = path.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    assert isinstance(cls, type) and issubclass(cls, BenchmarkAdapter)
    return cls


def test_importing_pulls_in_no_heavy_package() -> None:
    code = (
        "import importlib, json, sys\n"
        f"for path in {list(CLASS_PATHS.values())!r}:\n"
        "    module, _, name = path.rpartition('.')\n"
        "    getattr(importlib.import_module(module), name)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize("name", sorted(CLASS_PATHS))
def test_each_name_is_an_adapter_that_builds_without_arguments(name: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AGENT_EVOLVE_MCP_ATLAS_SERVERS", "AGENT_EVOLVE_ARC_DATA", "ARC_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    cls = _load(CLASS_PATHS[name])
    adapter = cls()
    assert isinstance(adapter, BenchmarkAdapter) and cls.name == name
