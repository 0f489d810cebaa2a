"""Runs inside fresh namespaces (or none) as `python -I -S -B launcher.py SPEC_JSON STATUS_FD`, standard library
only: joins the cgroups, builds the confined root, runs the command as its init.

When the command ends it ends every other process, applies the command's writes (overlays on a quota tmpfs) and
writes `exit N` (or `error ...`) to STATUS_FD, which the command never holds.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import shutil
import signal
import stat
import sys
from typing import Any

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME = 1 << 18, 1 << 21
MNT_DETACH = 2
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
CAPABILITY_VERSION_3 = 0x20080522
# statvfs flag -> mount flag: a read-only remount must keep the flags the kernel locked on the original mount
KEPT_FLAGS = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC,
              os.ST_NOATIME: MS_NOATIME, os.ST_NODIRATIME: MS_NODIRATIME, os.ST_RELATIME: MS_RELATIME}
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")
"""Parts of /proc through which uid 0 could change the host even without capabilities."""
DEV_LINKS = {"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1",
             "stderr": "/proc/self/fd/2"}
OVERLAY_UNSAFE = (",", ":", "\\")
"""Characters that overlayfs's option string cannot carry in a layer's path."""
OPAQUE = ("user.overlay.opaque", "trusted.overlay.opaque")

libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    """A step of building the confined root failed."""


def check(result: int, what: str) -> None:
    """Raise SetupError naming `what` and errno when a libc call failed."""
    if result != 0:
        raise SetupError(f"{what}: {os.strerror(ctypes.get_errno())}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    """mount(2)."""
    encode = (lambda s: s.encode() if s is not None else None)
    check(libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)),
          f"mount {source or fstype} on {target}")


def remount_readonly(target: str) -> None:
    """Make the mount at `target` and every mount below it read-only, keeping their locked flags."""
    with open("/proc/self/mountinfo", encoding="utf-8") as handle:
        points = [line.split()[4].encode().decode("unicode_escape") for line in handle]
    for point in (p for p in points if p == target or p.startswith(target.rstrip("/") + "/")):
        kept = sum(flag for st, flag in KEPT_FLAGS.items() if os.statvfs(point).f_flag & st)
        mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)


def make_target(dest: str, like: str | None) -> None:
    """Create the mount point `dest`: a file when the source is a file, else a directory."""
    if like is not None and not os.path.isdir(like):
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if not os.path.exists(dest):
            open(dest, "w").close()  # noqa: SIM115 - an empty file to bind onto
    else:
        os.makedirs(dest, exist_ok=True)


def topmost_missing(path: str) -> str | None:
    """The highest ancestor of `path` (or `path`) that does not exist yet, or None."""
    missing = None
    while not os.path.lexists(path):
        missing, path = path, os.path.dirname(path)
    return missing


def build_root(root: str, mounts: list[dict[str, Any]], layers: str | None,
               write_bytes: int) -> list[tuple[str, str, str]]:
    """A tmpfs root: a fresh /proc, a minimal /dev, a private /tmp, then exactly `mounts` (in depth order); with
    `layers`, writable folders are overlays on one quota tmpfs. Returns the overlays for `merge_back`."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    if layers is not None:
        mount("tmpfs", layers, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=0700,size={write_bytes}")
    overlays: list[tuple[str, str, str]] = []
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    make_target(root + "/proc", None)
    mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in PROC_READ_ONLY:
        path = f"{root}/proc/{name}"
        if os.path.exists(path):
            mount(path, path, None, MS_BIND | MS_REC)
            remount_readonly(path)
    build_dev(root + "/dev")
    make_target(root + "/tmp", None)
    mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m")
    sealed = [root]  # empty folders made read-only once every mount point below them exists
    for entry in sorted(mounts, key=lambda m: m["target"].rstrip("/").count("/")):
        kind, target, source = entry["kind"], entry["target"], entry.get("source")
        dest = root + target
        top = topmost_missing(dest)
        if top not in (None, dest) and os.path.dirname(top) != root:  # new folders inside e.g. the private /tmp
            os.mkdir(top)
            mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=4k")
            sealed.append(top)
        if kind in ("tmpfs", "scratch"):
            make_target(dest, None)
            size = f"{entry['size_mb']}m" if kind == "scratch" else "4k"
            mount("tmpfs", dest, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=0755,size={size}")
            if kind == "tmpfs":
                sealed.append(dest)
        elif os.path.islink(source):
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            os.symlink(os.readlink(source), dest)
        elif kind == "rw" and layers is not None and os.path.isdir(source):
            make_target(dest, source)
            overlays.append((dest, source, mount_overlay(dest, source, f"{layers}/{len(overlays)}")))
        elif os.path.exists(source):
            make_target(dest, source)
            mount(source, dest, None, MS_BIND | MS_REC)
            if kind == "ro":
                remount_readonly(dest)
    for dest in reversed(sealed):
        mount(None, dest, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(root)
    os.chroot(".")
    return overlays


def in_initial_user_namespace() -> bool:
    """Whether this process's uids are the host's (overlayfs then keeps its marks in trusted.* xattrs)."""
    with open("/proc/self/uid_map", encoding="ascii") as handle:
        return handle.read().split() == ["0", "0", "4294967295"]


def mount_overlay(dest: str, source: str, layer: str) -> str:
    """`source` at `dest` as an overlay whose writes go to `layer`/upper on the quota tmpfs (no redirects or metacopy,
    so the upper layer holds whole files `merge_back` can apply); that upper path."""
    if any(char in source for char in OVERLAY_UNSAFE):
        raise SetupError(f"{source}: a writable folder's path may not contain ',', ':' or '\\'")
    upper, work = f"{layer}/upper", f"{layer}/work"
    os.makedirs(upper)
    os.makedirs(work)
    xattrs = "" if in_initial_user_namespace() else ",userxattr"
    mount("overlay", dest, "overlay", MS_NOSUID | MS_NODEV,
          f"lowerdir={source},upperdir={upper},workdir={work},redirect_dir=nofollow,metacopy=off{xattrs}")
    return upper


def remove_path(path: str) -> None:
    """Remove whatever is at `path` (a folder with its contents; a symlink itself, never its target)."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def is_opaque(path: str) -> bool:
    """Whether overlayfs marked the upper folder `path` as hiding everything below it in the lower layer."""
    for name in OPAQUE:
        try:
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False


def merge_back(upper: str, lower: str) -> None:
    """Apply an overlay's upper layer to the real folder (whiteouts, folders, files, symlinks; no FIFOs, sockets or
    devices), replacing paths rather than writing through, so a symlink cannot lead a write outside."""
    for name in os.listdir(upper):
        source, target = os.path.join(upper, name), os.path.join(lower, name)
        info = os.lstat(source)
        if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:
            remove_path(target)
        elif stat.S_ISDIR(info.st_mode):
            if is_opaque(source) or os.path.islink(target) or not os.path.isdir(target):
                remove_path(target)
                os.mkdir(target)
            merge_back(source, target)
            os.chmod(target, stat.S_IMODE(info.st_mode))
        elif stat.S_ISREG(info.st_mode):
            remove_path(target)
            shutil.copy2(source, target, follow_symlinks=False)
        elif stat.S_ISLNK(info.st_mode):
            remove_path(target)
            os.symlink(os.readlink(source), target)


def end_namespace(*_: object) -> None:
    """SIGTERM from the parent (deadline, output cap): end every process, so the writes are applied as usual."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)


def end_and_merge(overlays: list[tuple[str, str, str]], host_root: int) -> None:
    """Once the command has ended: end every other process, leave the root, apply each overlay to its folder."""
    while os.getpid() == 1:  # every process of the namespace is ours to reap; none may write during the merge
        try:
            os.kill(-1, signal.SIGKILL)
            os.waitpid(-1, 0)
        except (ProcessLookupError, ChildProcessError):
            break
    os.fchdir(host_root)
    os.chroot(".")
    for dest, source, upper in overlays:
        check(libc.umount2(dest.encode(), MNT_DETACH), f"unmount {dest}")
        merge_back(upper, source)


def build_dev(dev: str) -> None:
    """/dev with only the harmless character devices, /dev/shm and the fd links."""
    make_target(dev, None)
    mount("tmpfs", dev, "tmpfs", MS_NOSUID, "mode=0755,size=64k")
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            make_target(f"{dev}/{name}", f"/dev/{name}")
            mount(f"/dev/{name}", f"{dev}/{name}", None, MS_BIND)
    for name, target in DEV_LINKS.items():
        os.symlink(target, f"{dev}/{name}")
    make_target(f"{dev}/shm", None)
    mount("tmpfs", f"{dev}/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=16m")
    mount(None, dev, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID)


def set_limits(limits: dict[str, int]) -> None:
    """CPU time, address space, processes, file size; no core files. Soft = hard, so they cannot be raised."""
    for key, which in (("cpu_s", resource.RLIMIT_CPU), ("memory_bytes", resource.RLIMIT_AS),
                       ("processes", resource.RLIMIT_NPROC), ("file_size_bytes", resource.RLIMIT_FSIZE),
                       ("core", resource.RLIMIT_CORE)):
        value = limits.get(key, 0)
        _, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, value))


def drop_privileges() -> None:
    """No capabilities (bounding, ambient, effective, permitted, inheritable) and no way to gain any."""
    with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as handle:
        last = int(handle.read())
    for cap in range(last + 1):
        check(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"dropping capability {cap}")
    check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clearing ambient capabilities")
    header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    check(libc.capset(header, data), "dropping capabilities")
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "setting no_new_privs")


def report(status_fd: int, message: str) -> None:
    """One status line for the parent."""
    os.write(status_fd, message.encode("utf-8", errors="replace")[:4000])


def start_command(spec: dict[str, Any], status_fd: int) -> int:
    """Fork the command: limits, no privileges, only its own descriptors, exec. Returns its pid."""
    pid = os.fork()
    if pid:
        return pid
    try:
        set_limits(spec["limits"])
        if spec["root"] is not None:
            drop_privileges()
        for fd in spec["keep_fds"]:
            os.set_inheritable(fd, True)
        os.execvpe(spec["argv"][0], spec["argv"], spec["env"])
    except (OSError, ValueError, SetupError) as exc:
        report(status_fd, f"error {type(exc).__name__}: {exc}")
    os._exit(127)


def join_cgroups(paths: list[str]) -> None:
    """Move this process (and so every process it starts) into the command's cgroups."""
    for path in paths:
        with open(os.path.join(path, "cgroup.procs"), "w", encoding="ascii") as procs:
            procs.write("0")


def main() -> None:
    """Join the cgroups, build the root, start the command, reap until it ends, apply its writes, report."""
    spec, status_fd = json.loads(sys.argv[1]), int(sys.argv[2])
    os.set_inheritable(status_fd, False)
    overlays: list[tuple[str, str, str]] = []
    try:
        join_cgroups(spec["cgroups"])
        host_root = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
        if spec["root"] is not None:
            overlays = build_root(spec["root"], spec["mounts"], spec["layers"], spec["limits"]["write_bytes"])
        os.chdir(spec["cwd"])
    except (OSError, ValueError, SetupError) as exc:
        report(status_fd, f"error {type(exc).__name__}: {exc}")
        os._exit(127)
    command = start_command(spec, status_fd)
    for fd in spec["keep_fds"]:
        os.close(fd)
    if os.getpid() == 1:
        signal.signal(signal.SIGTERM, end_namespace)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == command:
            break
    try:
        if overlays:
            end_and_merge(overlays, host_root)
    except (OSError, SetupError) as exc:
        report(status_fd, f"error applying the command's writes: {type(exc).__name__}: {exc}")
        os._exit(0)
    report(status_fd, f"exit {os.waitstatus_to_exitcode(status)}")
    os._exit(0)


if __name__ == "__main__":
    main()
