"""`agent-evolve doctor`: rows for every provider, local model and Docker; names of variables, never values."""

from __future__ import annotations

import sys

from click.testing import CliRunner
from wire_servers import Reply

from agent_evolve.cli.doctor import doctor, run_checks


def _row(rows, component, check):
    return next(r for r in rows if r.component == component and r.check == check)


def test_missing_credentials_are_reported_with_their_fix_and_probes_skipped():
    rows = run_checks({}, probe=True, verify=False, timeout_s=0.5)
    openai_key = _row(rows, "openai", "credentials")
    assert openai_key.status == "missing" and "OPENAI_API_KEY" in openai_key.fix
    assert _row(rows, "openai", "reachable").status == "skip"
    assert _row(rows, "anthropic", "reachable").status == "skip"
    assert {r.component for r in rows} >= {"openai", "anthropic", "bedrock", "local", "local/qwen2.5-coder-1.5b",
                                           "docker"}
    docker = _row(rows, "docker", "daemon reachable")
    assert docker.status == "ok" or docker.fix


def test_docker_is_checked_through_the_sdk_naming_the_fix(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    stopped = _row(run_checks({}, probe=False, verify=False, timeout_s=0.5), "docker", "daemon reachable")
    assert stopped.status == "missing" and "unix:///nonexistent" in stopped.detail and "start Docker" in stopped.fix
    monkeypatch.setitem(sys.modules, "docker", None)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *args: None)
    no_sdk = _row(run_checks({}, probe=False, verify=False, timeout_s=0.5), "docker", "daemon reachable")
    assert no_sdk.status == "missing" and no_sdk.fix == "pip install 'agent-evolve[docker]'"


def test_credentials_show_names_only_and_a_base_url_is_probed(serve):
    server = serve(lambda request: Reply(401, {"error": "no key"}))
    secret = "sk-doctor-secret-value-123456"
    env = {"OPENAI_API_KEY": secret, "OPENAI_BASE_URL": server.url + "/v1", "ANTHROPIC_API_KEY": secret}
    rows = run_checks(env, probe=True, verify=False, timeout_s=2.0)
    assert all(secret not in f"{r.detail} {r.fix}" for r in rows)
    assert _row(rows, "openai", "credentials").detail == "OPENAI_API_KEY is set"
    reach = _row(rows, "openai", "reachable")
    assert reach.status == "ok" and "HTTP 401" in reach.detail
    assert server.requests[0].path == "/v1/models"
    assert "authorization" not in server.requests[0].headers  # the probe sends no key


def test_an_unreachable_base_url_is_reported():
    rows = run_checks({"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, probe=True,
                      verify=False, timeout_s=0.5)
    reach = _row(rows, "openai", "reachable")
    assert reach.status == "missing" and reach.fix


def test_the_command_prints_a_table():
    result = CliRunner().invoke(doctor, ["--no-probe", "--no-verify"])
    assert result.exit_code == 0, result.output
    assert "agent-evolve doctor" in result.output and "docker" in result.output


def test_a_base_url_without_v1_or_a_key_gets_the_right_advice(serve):
    server = serve(lambda request: Reply(200, {"data": []}) if request.path.startswith("/v1/") else Reply(404, {}))
    rows = run_checks({"OPENAI_BASE_URL": server.url}, probe=True, verify=False, timeout_s=2.0)
    assert _row(rows, "openai", "credentials").status == "ok", "a compatible server at a base URL may need no key"
    reach = _row(rows, "openai", "reachable")
    assert reach.status == "missing" and "/v1" in reach.detail
    good = run_checks({"OPENAI_BASE_URL": server.url + "/v1"}, probe=True, verify=False, timeout_s=2.0)
    assert _row(good, "openai", "reachable").status == "ok"


def test_the_local_servers_are_probed_where_their_clients_go(monkeypatch):
    probed: list[str] = []
    monkeypatch.setattr("agent_evolve.cli.doctor.probe_http", lambda url, timeout_s: probed.append(url) or (False, ""))
    run_checks({"VLLM_BASE_URL": "http://elsewhere:1/v1"}, probe=True, verify=False, timeout_s=0.1)
    assert "http://localhost:8000/v1/models" in probed and not any("elsewhere" in url for url in probed)


def test_anthropic_is_probed_at_its_base_url_variable(serve):
    server = serve(lambda request: Reply(401, {}))
    rows = run_checks({"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": server.url}, probe=True, verify=False)
    assert _row(rows, "anthropic", "reachable").status == "ok" and server.requests[0].path == "/v1/models"
