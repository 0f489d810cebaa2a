"""A run's replies in one SQLite file: read in place, written by many threads, older JSON folders still read and
packed into the one file, and a resumed run finds its packed replies without asking the model."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_evolve.cli.main import cli
from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import Completion, Message, ToolCall
from agent_evolve.llm.cache import ResponseCache, cache_key, pack_folder
from agent_evolve.llm.metered import MeteredClient
from agent_evolve.llm.cache import STORE_NAME, ReplyStore
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.testing import ScriptedLLM
from agent_evolve.types import Usage

QUESTION = [Message("user", "What is 6 x 7?")]
PARAMS = {"max_tokens": 64, "temperature": 0.0, "stop": None}


def _reply(text: str = "42") -> Completion:
    return Completion(text=text, tool_calls=[ToolCall("c1", "calc", {"x": 1})], finish_reason="stop",
                      model="scripted/fake", usage=Usage(1, 30, 7, 0.002))


def _json_folder(folder: Path, replies: dict[str, Completion]) -> None:
    """The older layout, as the JSON cache wrote it: <key[:2]>/<key>.json."""
    for key, completion in replies.items():
        path = folder / key[:2] / f"{key}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"text": completion.text, "tool_calls": [{"id": "c1", "name": "calc", "arguments": {"x": 1}}],
                           "finish_reason": completion.finish_reason, "model": completion.model,
                           "usage": completion.usage.to_dict()})
        path.write_text(text, encoding="utf-8")


def test_a_reply_is_kept_in_one_file_with_its_usage(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "replies")
    assert cache.get("ab" * 32) is None and not (tmp_path / "replies").exists(), "reading creates nothing"
    cache.put("ab" * 32, _reply())
    assert ResponseCache(tmp_path / "replies").get("ab" * 32) == _reply()
    cache.store.close()
    assert sorted(p.name for p in (tmp_path / "replies").iterdir()) == [STORE_NAME]


def test_an_unreadable_store_is_a_miss(tmp_path: Path) -> None:
    (tmp_path / STORE_NAME).write_text("not a database", encoding="utf-8")
    assert ResponseCache(tmp_path).get("ab" * 32) is None


def test_many_threads_write_one_store(tmp_path: Path) -> None:
    caches = [ResponseCache(tmp_path), ResponseCache(tmp_path)]  # two clients of one run share the folder

    def write(n: int) -> None:
        for i in range(25):
            caches[n % 2].put(f"{n:02d}{i:062d}", _reply(f"{n}-{i}"))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(list(ReplyStore(tmp_path / STORE_NAME).items())) == 200
    assert caches[1].get(f"{7:02d}{24:062d}").text == "7-24"


def test_an_old_json_folder_is_read_and_packed(tmp_path: Path) -> None:
    keys = {cache_key("scripted/fake", [Message("user", f"q{i}")], None, PARAMS): _reply(f"a{i}") for i in range(3)}
    _json_folder(tmp_path, keys)
    first = next(iter(keys))
    assert ResponseCache(tmp_path).get(first) == keys[first], "an old folder still resumes"
    packed = pack_folder(tmp_path, remove=True)
    assert (packed.files, packed.added, packed.removed) == (3, 3, 3)
    assert [p.name for p in tmp_path.iterdir()] == [STORE_NAME]
    assert all(ResponseCache(tmp_path).get(key) == reply for key, reply in keys.items())


def test_packing_refuses_a_bad_file_naming_it(tmp_path: Path) -> None:
    key = "cd" * 32
    _json_folder(tmp_path, {key: _reply()})
    (tmp_path / "cd" / f"{key}.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(AgentEvolveError, match=f"cd/{key}.json: not a cached reply"):
        pack_folder(tmp_path)
    assert not (tmp_path / STORE_NAME).exists(), "nothing is written before every file is checked"
    (tmp_path / "cd" / f"{key}.json").rename(tmp_path / "cd" / "notes.json")
    result = CliRunner().invoke(cli, ["solver-cache", "pack", str(tmp_path)])
    assert result.exit_code == 1 and "notes.json: not a cached reply" in result.output


def test_the_pack_command_and_list_read_the_store(tmp_path: Path) -> None:
    folder = tmp_path / "evolution" / "replies"
    _json_folder(folder, {"ef" * 32: _reply(), "12" * 32: _reply("x")})
    out = CliRunner().invoke(cli, ["solver-cache", "pack", "--remove-json", str(folder)], catch_exceptions=False)
    assert "2 JSON replies, 2 new in replies.sqlite, 2 files removed" in out.output
    listed = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["solver-cache", "list", "-w", str(tmp_path)]).output
    assert [c.strip() for c in next(li for li in listed.splitlines() if "scripted/fake" in li).split("│")[2:4]] \
        == ["2", "74"]


def test_a_resumed_run_finds_its_packed_replies_without_a_call(tmp_path: Path) -> None:
    key = cache_key("scripted/fake", QUESTION, None, PARAMS)
    _json_folder(tmp_path, {key: _reply()})
    pack_folder(tmp_path, remove=True)
    model, ledger = ScriptedLLM([]), UsageLedger()
    client = MeteredClient(model, cache=ResponseCache(tmp_path), ledger=ledger)
    assert client.complete(QUESTION, max_tokens=64).text == "42"
    assert model.calls == [], "a cached key is a hit: no call made"
    assert ledger.total() == Usage(1, 30, 7, 0.002), "the reply counts the usage of the call that made it"


def test_a_store_file_replaced_under_an_open_connection_is_opened_again(tmp_path: Path) -> None:
    store = ReplyStore(tmp_path / STORE_NAME)
    store.put("a", "first")
    saved = tmp_path / "saved.sqlite"
    saved.write_bytes(store.path.read_bytes())
    store.put("b", "second")
    saved.replace(store.path)  # a git checkout or stash puts another copy of the file at the path
    store.put("c", "third")
    assert dict(store.items()) == {"a": "first", "c": "third"}, "the file now at the path is read and written"
    assert dict(ReplyStore(store.path).items()) == {"a": "first", "c": "third"}
