"""Image builds through the SDK (`build_image`): a local folder's Dockerfile built, a failed step reported with its
log, a build past its limit cancelled, and Docker's absence named."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_evolve.environments.docker_task_client import DockerUnavailable, build_image

TAG = "agent-evolve-test/build:1"


@pytest.fixture
def context(docker_client: Any, busybox_image: str, tmp_path: Path) -> Iterator[Path]:
    """A build folder on the busybox image; the tag it may build is removed afterwards."""
    (tmp_path / "greeting.txt").write_text("hello from the context\n")
    yield tmp_path
    for image in docker_client.images.list(name=TAG):
        docker_client.images.remove(image.id, force=True)


def _dockerfile(context: Path, busybox_image: str, *steps: str) -> None:
    (context / "Dockerfile").write_text("\n".join([f"FROM {busybox_image}", *steps]) + "\n")


def test_a_folder_is_built_as_the_tag(docker_client: Any, busybox_image: str, context: Path) -> None:
    _dockerfile(context, busybox_image, "COPY greeting.txt /greeting.txt", "RUN echo built-step")
    built = build_image(context, TAG, "the build test", timeout_s=120)
    assert built.exit_code == 0 and not built.timed_out, built.output
    assert "built-step" in built.output and f"Successfully tagged {TAG}" in built.output
    shown = docker_client.containers.run(TAG, ["cat", "/greeting.txt"], remove=True, network_mode="none")
    assert shown == b"hello from the context\n"


def test_a_failed_step_is_exit_1_with_its_log(docker_client: Any, busybox_image: str, context: Path) -> None:
    _dockerfile(context, busybox_image, "RUN echo about-to-fail && exit 3")
    built = build_image(context, TAG, "the build test", timeout_s=120)
    assert built.exit_code == 1 and not built.timed_out
    assert "about-to-fail" in built.output and "returned a non-zero code: 3" in built.output
    assert docker_client.images.list(name=TAG) == []


def test_a_bad_dockerfile_is_exit_1_naming_it(busybox_image: str, context: Path) -> None:
    _dockerfile(context, busybox_image, "NOT-AN-INSTRUCTION x")
    built = build_image(context, TAG, "the build test", timeout_s=120)
    assert built.exit_code == 1 and "not-an-instruction" in built.output.lower()


def test_a_build_past_its_limit_is_cancelled(docker_client: Any, busybox_image: str, context: Path) -> None:
    marker = f"slow-step-{uuid.uuid4().hex[:8]}"  # a step no earlier build has cached
    _dockerfile(context, busybox_image, f"RUN echo {marker} && sleep 60")
    started = time.monotonic()
    built = build_image(context, TAG, "the build test", timeout_s=3)
    assert built.timed_out and built.exit_code is None and marker in built.output
    assert time.monotonic() - started < 15

    def building() -> list[Any]:
        return [c for c in docker_client.containers.list(all=True) if marker in str(c.attrs["Config"]["Cmd"])]

    deadline = time.monotonic() + 20
    while building() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert building() == [], "the build's step kept running after its limit"
    assert docker_client.images.list(name=TAG) == []


def test_no_daemon_names_docker_and_the_purpose(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(DockerUnavailable, match=r"needed for the build test.*unix:///nonexistent.*start it"):
        build_image(tmp_path, TAG, "the build test", timeout_s=10)
