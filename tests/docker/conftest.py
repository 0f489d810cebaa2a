"""Fixtures of the Docker tests: a daemon that answers (else every test here is skipped, saying why) and images
built locally once per machine (see docker_images.py); no image is ever pulled."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from docker_images import BUSYBOX_TAG, DEBIAN_TAG, CannotBuild, build_busybox, build_debian, locked

from agent_evolve.environments.docker_task_client import DockerUnavailable, connect_docker


@pytest.fixture(scope="session")
def docker_client() -> Iterator[Any]:
    """A client of a running daemon; waits for a CI preparation in progress (its lock) before looking."""
    with locked():
        try:
            client = connect_docker("the Docker tests")
        except DockerUnavailable as exc:
            pytest.skip(f"no Docker daemon can run here: {exc} "
                        "(`python tests/docker/docker_images.py prepare` installs and starts one as root on Debian)")
    yield client
    client.close()


def _built(client: Any, build: Any, tag: str) -> str:
    with locked():
        try:
            return str(build(client))
        except CannotBuild as exc:
            pytest.fail(f"Docker runs here but the test image {tag} cannot be built: {exc}")


@pytest.fixture(scope="session")
def busybox_image(docker_client: Any) -> str:
    """A static busybox image (sh, coreutils-like applets, nc); built in about a second."""
    return _built(docker_client, build_busybox, BUSYBOX_TAG)


@pytest.fixture(scope="session")
def python_image(docker_client: Any) -> str:
    """Debian minbase with python3 and git (debootstrap, minutes the first time, then cached by tag)."""
    return _built(docker_client, build_debian, DEBIAN_TAG)


@pytest.fixture
def containers(docker_client: Any) -> Iterator[Any]:
    """The ids of this package's containers, a callable; asserts none is left once the test ends."""
    def ids() -> set[str]:
        return {c.id for c in docker_client.containers.list(all=True, filters={"label": "agent-evolve"})}

    before = ids()
    yield ids
    assert ids() <= before, "a task container outlived its environment"
