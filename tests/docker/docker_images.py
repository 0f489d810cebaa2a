"""The images the Docker tests run, built here from local files (no image can be pulled) and cached by tag.

- BUSYBOX_TAG: a static busybox and its applets; built in a second from `busybox-static`.
- DEBIAN_TAG: Debian bookworm minbase with python3 and git, from `debootstrap` (a few minutes, once).

`python tests/docker/docker_images.py prepare` (what CI runs, in the background) installs docker.io, busybox-static and
debootstrap where apt-get can, starts dockerd when none answers, and builds both images. It holds LOCK while it
works; the tests' fixtures take the same lock first, so they wait for a preparation in progress.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BUSYBOX_TAG = "agent-evolve-test/busybox:1"
DEBIAN_TAG = "agent-evolve-test/debian-python-git:1"
LOCK = Path(tempfile.gettempdir()) / "agent-evolve-docker-images.lock"
DOCKERD_LOG = Path(tempfile.gettempdir()) / "agent-evolve-dockerd.log"
PACKAGES = ("docker.io", "busybox-static", "debootstrap")
PATH_ENV = "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"


class CannotBuild(Exception):
    """An image cannot be built on this machine; the message says what is missing."""


@contextlib.contextmanager
def locked() -> Iterator[None]:
    """Hold the preparation lock (blocking until a preparation in progress ends)."""
    with LOCK.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def has_image(client: Any, tag: str) -> bool:
    """Whether `tag` is present in the daemon."""
    try:
        client.images.get(tag)
    except Exception:  # docker.errors.ImageNotFound, imported lazily with the SDK
        return False
    return True


def import_root(client: Any, root: Path, tag: str) -> None:
    """`tar -C root -c . | docker import - tag`, with PATH set for `sh -c`."""
    with tempfile.TemporaryFile() as tar_file:
        with tarfile.open(fileobj=tar_file, mode="w") as tar:
            for child in sorted(root.iterdir()):
                tar.add(str(child), arcname=child.name)
        tar_file.seek(0)
        repository, name = tag.rsplit(":", 1)
        client.api.import_image(src=tar_file, repository=repository, tag=name, changes=[f"ENV {PATH_ENV}"])


def static_busybox() -> Path:
    """The static busybox binary of busybox-static, or CannotBuild."""
    found = shutil.which("busybox")
    if found is None:
        raise CannotBuild("no busybox binary: apt-get install busybox-static")
    linked = subprocess.run(["ldd", found], capture_output=True, text=True)
    if linked.returncode == 0 and "=>" in linked.stdout:
        raise CannotBuild(f"{found} is dynamically linked: apt-get install busybox-static")
    return Path(found)


def build_busybox(client: Any) -> str:
    """BUSYBOX_TAG, built once: /bin/busybox, a link per applet, /etc/passwd for root."""
    if has_image(client, BUSYBOX_TAG):
        return BUSYBOX_TAG
    binary = static_busybox()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for sub in ("bin", "etc", "tmp", "root"):
            (root / sub).mkdir()
        shutil.copy2(binary, root / "bin" / "busybox")
        applets = subprocess.run([str(binary), "--list"], capture_output=True, text=True, check=True).stdout
        for applet in applets.split():
            if applet != "busybox":
                (root / "bin" / applet).symlink_to("busybox")
        (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
        import_root(client, root, BUSYBOX_TAG)
    return BUSYBOX_TAG


def build_debian(client: Any) -> str:
    """DEBIAN_TAG, built once with debootstrap from Debian's packages (needs root and the Debian mirror)."""
    if has_image(client, DEBIAN_TAG):
        return DEBIAN_TAG
    if shutil.which("debootstrap") is None:
        raise CannotBuild("no debootstrap: apt-get install debootstrap")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "root"
        done = subprocess.run(["debootstrap", "--variant=minbase", "--include=python3,git", "bookworm", str(root)],
                              capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            raise CannotBuild(f"debootstrap failed: {(done.stderr or done.stdout).strip()[-500:]}")
        import_root(client, root, DEBIAN_TAG)
    return DEBIAN_TAG


def _client(timeout: float = 60) -> Any:
    """A client whose daemon answered, or None."""
    try:
        import docker

        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception:  # no SDK, no socket, a dead daemon
        return None
    return client


def _apt_install() -> None:
    """Install what is missing of PACKAGES with apt-get (an update first only if the plain install fails)."""
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        return
    wanted = [p for p, tool in zip(PACKAGES, ("dockerd", "busybox", "debootstrap"), strict=True)
              if shutil.which(tool) is None]
    if not wanted:
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", "-q", *wanted]
    if subprocess.run(install, capture_output=True, env=env).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, env=env)
        subprocess.run(install, capture_output=True, env=env)


def _start_dockerd() -> Any:
    """Start dockerd in the background (no bridge: the tests run with --network none) and wait for it."""
    if shutil.which("dockerd") is None or os.geteuid() != 0:
        return None
    with DOCKERD_LOG.open("ab") as log:
        subprocess.Popen(["dockerd", "--iptables=false", "--ip6tables=false", "--bridge=none"], stdout=log,
                         stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        client = _client(timeout=10)
        if client is not None:
            return client
        time.sleep(1)
    return None


def prepare() -> int:
    """Install and start Docker where possible, then build both images; say what could not be done."""
    with locked():
        client = _client()
        if client is None:
            _apt_install()
            client = _start_dockerd()
        if client is None:
            print("docker prepare: no Docker daemon could be started; the Docker tests will be skipped",
                  file=sys.stderr)
            return 0
        for build in (build_busybox, build_debian):
            try:
                print(f"docker prepare: {build(client)} ready", file=sys.stderr)
            except CannotBuild as exc:
                print(f"docker prepare: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    if sys.argv[1:] != ["prepare"]:
        sys.exit("usage: python tests/docker/docker_images.py prepare")
    sys.exit(prepare())
