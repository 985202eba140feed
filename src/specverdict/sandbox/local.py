"""``LocalSandbox``: each execution in its own namespaces, as an unprivileged uid, limited.

Per execution: a new temporary directory; a process forked from a *zygote* (an interpreter
started once per sandbox as the sandbox uid with ``-s -S`` and an environment built from
scratch, that has imported the modules programs commonly use and never runs untrusted code);
resource limits and an audit hook set before the untrusted program runs. The process tree is
described in ``_bootstrap``; the isolation modes, chosen once per sandbox by running a probe
program, in docs/sandbox.md:

- ``namespaces``: new user, PID, network, IPC and mount namespaces per execution, and a
  private read-only root holding only the system and interpreter directories, a few devices,
  a private ``/proc`` and the execution's own tmpfs. No network (a loopback that is down, no
  host socket file in sight), no view of other processes or of the host's files, and when
  the execution's init exits the kernel kills every process left in its PID namespace,
  including daemons that started a new session.
- ``subreaper``: no namespaces (the kernel refused them). The init is a child subreaper and
  kills every descendant before it exits; the host's files are as readable as to any process
  of the uid.

In both modes a seccomp filter refuses connecting, binding, listening and sending to an
address (Unix sockets included), memory that no limit counts (memfd, SysV shared memory,
POSIX message queues) and new namespaces, whatever the program does to the audit hook.

Executions run concurrently from threads (``run_many``); they share nothing but the zygote,
which only forks.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from specverdict.sandbox._capture import CappedReader
from specverdict.sandbox._classify import classify, parse_side, parse_status
from specverdict.sandbox.base import ExecResult, Execution, Sandbox

Mode = Literal["namespaces", "subreaper"]

#: File name of the program inside the execution's directory.
PROGRAM_NAME = "__main__.py"
#: Bytes kept from the side channel; more than this is itself a violation.
SIDE_CHANNEL_BYTES = 256 * 1024
#: After SIGTERM to the execution's process group, how long to wait before SIGKILL.
TERM_GRACE_S = 0.5
#: After SIGKILL, how long to keep reading the pipes before giving up on them.
DRAIN_GRACE_S = 2.0
#: Interpreters tried after this one, in order, when none is given (the sandbox uid must be
#: able to run one: this interpreter may live under a directory it cannot enter).
DEFAULT_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3")
NOBODY = 65534
ZYGOTE_START_TIMEOUT_S = 30.0

_BOOTSTRAP = (Path(__file__).with_name("_bootstrap.py")).read_text(encoding="utf-8")


class SandboxUnavailableError(RuntimeError):
    """No isolation mode works here (or not the one asked for), or the sandbox itself broke."""


@dataclass(frozen=True, slots=True)
class Platform:
    """How executions are started on this machine."""

    mode: Mode
    python: str
    uid: int | None  # programs run as this uid (None: the caller's)
    gid: int | None


class _Zygote:
    """The forking server (``_bootstrap.serve``) and the socket to it."""

    def __init__(
        self, python: str, uid: int | None, gid: int | None, hash_seed: int, tag: str
    ) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [python, "-s", "-S", "-c", _BOOTSTRAP, str(theirs.fileno()), tag],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=(theirs.fileno(),),
                cwd="/",
                env=_environment(hash_seed),
                close_fds=True,
                process_group=0,
                user=uid,
                group=gid,
                extra_groups=None if uid is None else [],
            )
        except OSError as exc:
            ours.close()
            raise SandboxUnavailableError(f"cannot start {python}: {exc}") from exc
        finally:
            theirs.close()
        self.sock = ours
        self.lock = threading.Lock()
        ours.settimeout(ZYGOTE_START_TIMEOUT_S)
        try:
            ready = ours.recv(256)
        except OSError:
            ready = b""
        assert self.proc.stderr is not None
        if not ready.startswith(b"ready "):
            self.close()
            err = self.proc.stderr.read().decode("utf-8", "replace").strip()
            self.proc.stderr.close()
            raise SandboxUnavailableError(f"{python} did not start: {err[-300:] or ready!r}")
        self.proc.stderr.close()
        ours.settimeout(None)
        self.version = ready.split()[1].decode()

    def spawn(self, request: dict[str, object], fds: list[int]) -> int:
        """Ask for one execution; the pid of its leader (its process group)."""
        with self.lock:
            socket.send_fds(self.sock, [json.dumps(request).encode()], fds)
            reply = self.sock.recv(4096)
        if reply.startswith(b"pid "):
            return int(reply.split()[1])
        raise SandboxUnavailableError(f"zygote refused: {reply.decode('utf-8', 'replace')}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class LocalSandbox(Sandbox):
    """Runs programs on this machine (see the module docstring and docs/sandbox.md).

    ``mode``: ``auto`` takes ``namespaces`` when it works, else ``subreaper``. ``python``: the
    interpreter for programs (default: this one if the sandbox uid can run it, else a system
    ``python3``). ``uid``/``gid``: who programs run as when the caller is root (otherwise they
    run as the caller). ``hash_seed`` makes ``str`` hashing, hence set order, reproducible.
    Call ``close()`` (or use ``with``) to stop the zygote; it also stops when this process ends.
    """

    def __init__(
        self,
        *,
        mode: Literal["auto", "namespaces", "subreaper"] = "auto",
        python: str | None = None,
        uid: int = NOBODY,
        gid: int = NOBODY,
        hash_seed: int = 0,
        temp_dir: str | None = None,
    ) -> None:
        self.hash_seed = hash_seed
        self.temp_dir = temp_dir
        self._lock = threading.Lock()
        self._zygote: _Zygote | None = None
        self._closed = False
        switch = os.geteuid() == 0
        self._base = _make_base(temp_dir, uid if switch else None, gid if switch else None)
        weakref.finalize(self, _remove_tree, self._base)
        self.platform = self._detect(mode, python, uid, gid)
        self.mode: Mode = self.platform.mode
        p = self.platform
        assert self._zygote is not None
        who = f"uid {p.uid}" if p.uid is not None else f"the caller's uid {os.getuid()}"
        if p.mode == "namespaces":
            how = (
                "namespaces: new user, PID, network, IPC and mount namespaces per execution "
                "(private read-only root: system and interpreter directories, private /proc, "
                "own tmpfs)"
            )
        else:
            how = "subreaper: no namespaces; child-subreaper clean-up; host files readable"
        self.isolation = (
            f"{how}; {who}, no capabilities; rlimits AS/CPU/NPROC/FSIZE/NOFILE/CORE; "
            "seccomp (no connect/bind/listen/sendto, memfd, SysV shm, new namespaces); "
            f"audit hooks; python {p.python} {self._zygote.version}"
        )

    # -- public -----------------------------------------------------------------------------
    @property
    def directory(self) -> str:
        """The sandbox's directory; every process of the sandbox has it on its command line."""
        return self._base

    @property
    def zygote_pid(self) -> int | None:
        """The zygote's pid (None before the first start or after ``close``)."""
        zygote = self._zygote
        return zygote.proc.pid if zygote is not None else None

    def run(self, execution: Execution) -> ExecResult:
        return self._run(execution, self.platform)

    def run_many(self, executions: Sequence[Execution], workers: int = 2) -> list[ExecResult]:
        """Run ``executions`` on ``workers`` threads (each execution is its own process tree)."""
        if workers <= 1 or len(executions) <= 1:
            return [self.run(e) for e in executions]
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sandbox") as pool:
            return list(pool.map(self.run, executions))

    def close(self) -> None:
        """Stop the zygote and remove the sandbox's directory (call after the last run)."""
        self._closed = True
        self._stop_zygote()
        _remove_tree(self._base)

    def _stop_zygote(self) -> None:
        with self._lock:
            if self._zygote is not None:
                self._zygote.close()
                self._zygote = None

    def __enter__(self) -> LocalSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the zygote -------------------------------------------------------------------------
    def _start_zygote(self, platform: Platform) -> _Zygote:
        zygote = _Zygote(platform.python, platform.uid, platform.gid, self.hash_seed, self._base)
        self._zygote = zygote
        weakref.finalize(self, zygote.close)
        return zygote

    def _spawn(self, platform: Platform, request: dict[str, object], fds: list[int]) -> int:
        """Spawn through the zygote, restarting it once if it died."""
        for attempt in (1, 2):
            with self._lock:
                if self._closed:
                    raise RuntimeError("the sandbox is closed")
                zygote = self._zygote
                if zygote is None or not zygote.alive():
                    if zygote is not None:
                        zygote.close()
                    zygote = self._start_zygote(platform)
            try:
                return zygote.spawn(request, fds)
            except OSError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _detect(
        self,
        mode: Literal["auto", "namespaces", "subreaper"],
        python: str | None,
        uid: int,
        gid: int,
    ) -> Platform:
        """The first (mode, interpreter) whose probe execution passes; remembered per process."""
        switch = os.geteuid() == 0
        key = (mode, python, uid, gid, os.geteuid())
        known = _detected.get(key)
        if known is not None:
            self._start_zygote(known)
            return known
        modes: tuple[Mode, ...] = ("namespaces", "subreaper") if mode == "auto" else (mode,)
        failures: list[str] = []
        for exe in [python] if python else _python_candidates():
            try:
                candidate = Platform(
                    modes[0], exe, uid if switch else None, gid if switch else None
                )
                self._start_zygote(candidate)
            except SandboxUnavailableError as exc:
                failures.append(str(exc))
                continue
            for m in modes:
                platform = Platform(m, exe, candidate.uid, candidate.gid)
                try:
                    result = self._run(Execution(_PROBE), platform)
                except SandboxUnavailableError as exc:
                    failures.append(f"{m} with {exe}: {exc}")
                    continue
                fields = result.stdout.split()
                pid_ok = m != "namespaces" or fields[:1] == ["2"]
                if result.outcome == "passed" and fields[1:] == ["ok"] and pid_ok:
                    _detected[key] = platform
                    return platform
                failures.append(f"{m} with {exe}: {result.outcome} {result.detail}")
            self._stop_zygote()
        _remove_tree(self._base)
        raise SandboxUnavailableError("no sandbox mode works here: " + "; ".join(failures))

    # -- one execution ----------------------------------------------------------------------
    def _run(self, execution: Execution, platform: Platform) -> ExecResult:
        files = _files(execution)
        if platform.mode == "namespaces":
            # The mount point of the execution's private root, in its own mount namespace; the
            # same path inside that root is the execution's own tmpfs.
            work = os.path.join(self._base, "work")
        else:
            work = os.path.join(self._base, "runs", f"w-{secrets.token_hex(8)}")
        try:
            return self._execute(execution, platform, work, files)
        finally:
            if platform.mode == "subreaper":
                _remove_tree(work)

    def _execute(
        self, execution: Execution, platform: Platform, work: str, files: dict[str, str]
    ) -> ExecResult:
        limits = execution.limits
        inputs = [
            _memfd("stdin", execution.stdin.encode("utf-8")),
            _memfd("files", json.dumps(files).encode("utf-8")),
        ]
        # Our own pipes: the reader owns the read ends; the write ends go to the zygote.
        pipes = [os.pipe() for _ in range(4)]
        (out_r, out_w), (err_r, err_w), (side_r, side_w), (status_r, status_w) = pipes
        try:
            start = time.monotonic()
            leader = self._spawn(
                platform,
                _request(platform, execution, work),
                [inputs[0], out_w, err_w, side_w, status_w, inputs[1]],
            )
        except BaseException:
            for fd in (out_r, err_r, side_r, status_r):
                os.close(fd)
            raise
        finally:
            for fd in (*inputs, out_w, err_w, side_w, status_w):
                os.close(fd)
        reader = CappedReader(
            {
                "stdout": (out_r, limits.output_bytes),
                "stderr": (err_r, limits.output_bytes),
                "side": (side_r, SIDE_CHANNEL_BYTES),
                "status": (status_r, 4096),
            }
        )
        try:
            timed_out = not reader.pump(start + limits.wall_s)
            if timed_out:
                _kill_group(leader, reader)
        finally:
            reader.close()
        wall = time.monotonic() - start
        status_data = bytes(reader["status"].data)
        setup_failure = _setup_failure(status_data)
        if setup_failure is not None:
            raise SandboxUnavailableError(f"{platform.mode} set-up failed: {setup_failure}")
        stderr = reader["stderr"].data.decode("utf-8", "replace")
        verdict = classify(
            status=parse_status(status_data),
            side=parse_side(bytes(reader["side"].data), reader["side"].overflowed),
            timed_out=timed_out,
            leader_end=_leader_end(status_data),
            stderr=stderr,
            limits=limits,
        )
        return ExecResult(
            outcome=verdict.outcome,
            detail=verdict.detail,
            exit_code=verdict.exit_code,
            stdout=reader["stdout"].data.decode("utf-8", "replace"),
            stderr=stderr,
            truncated=reader["stdout"].overflowed or reader["stderr"].overflowed,
            wall_s=wall,
            violations=verdict.violations,
        )


_PROBE = "import os\nprint(os.getpid(), 'ok')\n"
_detected: dict[tuple[object, ...], Platform] = {}


def _python_candidates() -> list[str]:
    seen: dict[str, str] = {}
    for exe in (sys.executable, *DEFAULT_PYTHONS):
        if exe and os.path.exists(exe):
            seen.setdefault(os.path.realpath(exe), exe)
    return list(seen.values())


def _setup_failure(status: bytes) -> str | None:
    for line in status.decode("utf-8", "replace").splitlines():
        if line.startswith("F "):
            return line[2:]
    return None


def _leader_end(status: bytes) -> str | None:
    for line in status.decode("utf-8", "replace").splitlines():
        if line.startswith("L "):
            return line[2:]
    return None


def _kill_group(leader: int, reader: CappedReader) -> None:
    """SIGTERM the execution's process group, then SIGKILL it, reading the pipes meanwhile.

    In ``namespaces`` mode the leader's death kills the init (``PR_SET_PDEATHSIG``) and the
    init's death kills its PID namespace; in ``subreaper`` mode the init's SIGTERM handler
    kills the program process, and the init then kills every descendant before it exits.
    """
    for sig, grace in ((signal.SIGTERM, TERM_GRACE_S), (signal.SIGKILL, DRAIN_GRACE_S)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(leader, sig)
        if reader.pump(time.monotonic() + grace):
            return


def _request(platform: Platform, execution: Execution, work: str) -> dict[str, object]:
    limits = execution.limits
    mb = 1024 * 1024
    return {
        "mode": platform.mode,
        "work": work,
        "program": os.path.join(work, PROGRAM_NAME),
        "address_space": limits.address_space_mb * mb,
        "cpu": limits.cpu_s,
        "nproc": limits.nproc,
        "file_size": limits.file_size_mb * mb,
        "disk": limits.disk_mb * mb,
        "open_files": limits.open_files,
        "wall": float(limits.wall_s),
        "allow_subprocess": execution.allow_subprocess,
    }


def _environment(hash_seed: int) -> dict[str, str]:
    """The whole environment of the zygote, hence of programs (each execution sets ``HOME``
    and ``TMPDIR`` to its directory): nothing is inherited from the caller."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": "/nonexistent",
        "PYTHONHASHSEED": str(hash_seed),
        "PYTHONUTF8": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _make_base(temp_dir: str | None, uid: int | None, gid: int | None) -> str:
    """The sandbox's directory: ``work`` (mode 700, the sandbox uid's) is the mount point of each
    execution's private root in ``namespaces`` mode and stays empty; ``runs`` (likewise) holds one
    directory per execution in ``subreaper`` mode, removed after it. The base itself is ours
    (mode 711), so programs cannot write next to their directory."""
    base = tempfile.mkdtemp(prefix="specverdict-sandbox-", dir=temp_dir)
    os.chmod(base, 0o711)
    for name in ("work", "runs"):
        path = os.path.join(base, name)
        os.mkdir(path, 0o700)
        if uid is not None:
            os.chown(path, uid, gid if gid is not None else -1)
    return base


def _files(execution: Execution) -> dict[str, str]:
    files = {PROGRAM_NAME: execution.program}
    for name, text in execution.files.items():
        _check_name(name)
        normal = str(PurePosixPath(name))
        if normal == PROGRAM_NAME:
            raise ValueError(f"Execution.files may not contain {PROGRAM_NAME!r}")
        files[normal] = text
    return files


def _memfd(name: str, data: bytes) -> int:
    """An anonymous in-memory file holding ``data``, positioned at its start."""
    fd = os.memfd_create(name)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _check_name(name: str) -> None:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\0" in name:
        raise ValueError(
            f"Execution.files name must be a relative path inside the directory: {name!r}"
        )


def _remove_tree(root: str) -> None:
    """Remove a directory the program may have made hard to remove (modes, read-only dirs)."""

    if not os.path.lexists(root):
        return

    def fix(func: object, path: str, exc: object) -> None:
        with contextlib.suppress(OSError):
            parent = os.path.dirname(path)
            os.chmod(parent, stat.S_IRWXU)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)

    shutil.rmtree(root, onerror=fix)
