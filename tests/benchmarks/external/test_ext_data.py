"""Loading records from local files and through the `datasets` library, and the errors when neither works."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from agent_evolve.benchmarks.support.data import DataSource, load_records
from agent_evolve.errors import ConfigError, MissingDependencyError


def _source(path: str | None, hf: str | None = "org/data") -> DataSource:
    return DataSource(benchmark="demo", env_var="AE_DEMO_DATA", data_path=path, hf_name=hf, hf_split="test")


def test_reads_jsonl_json_and_csv(tmp_path: Path, fixtures: Path) -> None:
    assert len(load_records(_source(str(fixtures / "swe_verified" / "instances.jsonl")))) == 2
    (tmp_path / "a.json").write_text(json.dumps([{"id": 1}, {"id": 2}]))
    assert load_records(_source(str(tmp_path / "a.json"))) == [{"id": 1}, {"id": 2}]
    rows = load_records(_source(str(fixtures / "mcp_atlas" / "sample_tasks.csv")))
    assert rows[0]["TASK"] == "5c6d7e8f9a0b1c2d3e4f5a6b"


def test_reads_every_file_of_a_folder(tmp_path: Path) -> None:
    (tmp_path / "b.jsonl").write_text('{"id": 2}\n')
    (tmp_path / "a.jsonl").write_text('{"id": 1}\n\n')
    (tmp_path / "notes.txt").write_text("ignored")
    assert load_records(_source(str(tmp_path))) == [{"id": 1}, {"id": 2}]


@pytest.mark.parametrize("name, content, problem", [("list.json", b"[1, 2]", "record 1 is int"),
                                                     ("rows.jsonl", b'{"a": 1}\n"text"\n', "record 2 is str"),
                                                     ("bytes.jsonl", b'{"a": "\xff"}\n', "not UTF-8"),
                                                     ("one.json", b'"text"', "expected a JSON list")])
def test_a_file_of_bad_records_is_a_config_error_naming_it(tmp_path: Path, name: str, content: bytes,
                                                          problem: str) -> None:
    """Records that are not mappings, or bytes that are not UTF-8, were a traceback in the benchmark that read them."""
    (tmp_path / name).write_bytes(content)
    with pytest.raises(ConfigError, match=f"{name}: {problem}"):
        load_records(_source(str(tmp_path / name)))


def test_env_var_gives_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "d.jsonl").write_text('{"id": 7}\n')
    monkeypatch.setenv("AE_DEMO_DATA", str(tmp_path / "d.jsonl"))
    assert load_records(_source(None)) == [{"id": 7}]


def test_missing_path_names_the_option_and_env_var(tmp_path: Path) -> None:
    with pytest.raises(MissingDependencyError, match=r"does not exist.*data_path=.*AE_DEMO_DATA"):
        load_records(_source(str(tmp_path / "nope.jsonl")))


def test_no_path_and_no_datasets_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AE_DEMO_DATA", raising=False)
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(MissingDependencyError) as err:
        load_records(_source(None))
    assert "AE_DEMO_DATA" in str(err.value) and "pip install datasets" in str(err.value)
    assert "org/data" in str(err.value)


def test_no_path_and_no_hub_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AE_DEMO_DATA", raising=False)
    with pytest.raises(MissingDependencyError, match=r"AE_DEMO_DATA"):
        load_records(_source(None, hf=None))


def test_loads_through_datasets(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: dict[str, str] = {}

    def load_dataset(name: str, split: str) -> list[dict[str, int]]:
        asked.update(name=name, split=split)
        return [{"id": 1}]

    monkeypatch.delenv("AE_DEMO_DATA", raising=False)
    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    assert load_records(_source(None)) == [{"id": 1}]
    assert asked == {"name": "org/data", "split": "test"}


def test_offline_hub_failure_explains_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    def load_dataset(name: str, split: str) -> None:
        raise ConnectionError("offline mode is enabled")

    monkeypatch.delenv("AE_DEMO_DATA", raising=False)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    with pytest.raises(MissingDependencyError, match=r"HF_DATASETS_OFFLINE.*cache"):
        load_records(_source(None))


def test_parquet_without_pyarrow_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "d.parquet").write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(MissingDependencyError, match=r"pip install pyarrow"):
        load_records(_source(str(tmp_path / "d.parquet")))
