"""Start an engine server as a subprocess, wait for its health endpoint, stop it cleanly.

Readiness is polled on the health path (never a fixed sleep); a process that exits during
start-up is reported with the tail of its output.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO

import httpx

from specverdict.errors import EngineStartError

_ERROR_LINE = re.compile(r"(Error:|Exception|Traceback|\b[A-Z][A-Za-z]*Error\b)")


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def process_identity(pid: int) -> str | None:
    """Who process ``pid`` is, beyond its number: the boot it runs in and its start time (in
    clock ticks since boot, ``/proc/PID/stat`` field 22), so that a pid recorded by an earlier
    runner is never taken for another process that reused the number. None when the process is
    gone or the host has no ``/proc``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: count after its end
    fields = stat[stat.rfind(")") + 2 :].split()
    return f"{boot}:{fields[19]}" if len(fields) > 19 else None


def reap(pid: int, identity: str, grace_s: float = 10.0) -> bool:
    """Stop the process group of an engine an earlier runner launched and left behind (killed
    before it could stop it), when ``pid`` is still that process (``process_identity``); True
    when one was stopped. SIGTERM, then SIGKILL after ``grace_s``, as ``LaunchedServer.stop``."""
    if process_identity(pid) != identity:
        return False
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while _group_alive(pid):
        if time.monotonic() > deadline:
            _signal_group(pid, signal.SIGKILL)
            deadline = time.monotonic() + grace_s
        time.sleep(0.05)  # pacing between checks of the group
    return True


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class LaunchedServer:
    """A running server process; use as a context manager or call ``stop()``."""

    command: Sequence[str]
    base_url: str
    health_path: str = "/health"
    startup_timeout_s: float = 120.0
    env: Mapping[str, str] | None = None
    clock: Callable[[], float] = time.monotonic
    log_path: Path | None = None
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)
    _log: IO[bytes] | None = field(default=None, init=False)
    _log_name: str = field(default="", init=False)

    def start(self) -> LaunchedServer:
        """Start the process and wait for health. The engine's stdout and stderr go to
        ``log_path`` (kept) or to a temporary file (deleted at ``stop``)."""
        # The log lives as long as the server, so no context manager here.
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(self.log_path, "ab")  # noqa: SIM115
            self._log_name = str(self.log_path)
        else:
            tmp = tempfile.NamedTemporaryFile(prefix="specverdict-engine-", suffix=".log")  # noqa: SIM115
            self._log, self._log_name = tmp, tmp.name
        env = {**os.environ, **(self.env or {})}
        self.process = subprocess.Popen(
            list(self.command),
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        deadline = self.clock() + self.startup_timeout_s
        with httpx.Client(timeout=2.0) as client:
            while True:
                code = self.process.poll()
                if code is not None:
                    message = (
                        f"engine exited with code {code} during start-up: "
                        f"{self.first_error()}{self.output_tail()}"
                    )
                    self.stop()  # reaps what is left and closes the log
                    raise EngineStartError(message)
                try:
                    if client.get(self.base_url + self.health_path).status_code == 200:
                        return self
                except httpx.TransportError:
                    pass
                if self.clock() > deadline:
                    message = (
                        f"engine not healthy at {self.base_url}{self.health_path} after "
                        f"{self.startup_timeout_s:.0f} s: {self.first_error()}{self.output_tail()}"
                    )
                    self.stop()
                    raise EngineStartError(message)
                # A short wait between polls is pacing, not synchronisation: readiness is the
                # health answer above.
                time.sleep(0.05)

    def first_error(self) -> str:
        """The log's first line that names an error (``Error:``, ``Exception``, a Python
        exception type), as ``"first error: ...; "``; a root cause often sits far above the
        tail."""
        if self._log is None:
            return ""
        self._log.flush()
        with open(self._log_name, "rb") as fh:
            text = fh.read().decode(errors="replace").splitlines()
        for line in text:
            if _ERROR_LINE.search(line):
                return f"first error: {line.strip()[:300]}; "
        return ""

    def output_tail(self, lines: int = 5) -> str:
        if self._log is None:
            return ""
        self._log.flush()
        with open(self._log_name, "rb") as fh:
            text = fh.read().decode(errors="replace").strip().splitlines()
        return " | ".join(text[-lines:]) or "(no output)"

    def running(self) -> bool:
        """Whether the server process is up (started and not exited)."""
        return self.process is not None and self.process.poll() is None

    def stop(self, grace_s: float = 10.0) -> None:
        """SIGTERM the engine's process group, SIGKILL what is left after ``grace_s``, and wait
        until the whole group is gone (engines' worker processes outlive their leader)."""
        proc = self.process
        if proc is not None:
            if proc.poll() is None:
                _signal_group(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=grace_s)
                except subprocess.TimeoutExpired:
                    _signal_group(proc.pid, signal.SIGKILL)
                    proc.wait()
            deadline = time.monotonic() + grace_s
            while _group_alive(proc.pid):
                if time.monotonic() > deadline:
                    _signal_group(proc.pid, signal.SIGKILL)
                    deadline = time.monotonic() + grace_s
                # pacing between checks of the group; the exit itself is what is awaited
                time.sleep(0.05)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LaunchedServer:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
