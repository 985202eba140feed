"""Stop the engines of an executor process that is killed (a lost node's actor, a killed driver).

An engine runs in its own session, so that stopping it takes its whole process group; a process
killed with SIGKILL cannot stop it. The reaper is a small process of its own session that
watches its parent: it notes the process groups of the parent's children as they come, and
when the parent is gone it sends them SIGTERM, then SIGKILL. Linux only (``/proc``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

POLL_S = 0.5
GRACE_S = 5.0


def children(pid: int) -> set[int]:
    """The process groups of ``pid``'s children (each engine leads its own)."""
    groups = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                groups.add(os.getpgid(int(stat.parent.name)))
    return groups


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def watch(parent: int) -> None:
    seen: set[int] = set()
    own = os.getpgid(0)
    while alive(parent) and os.getppid() == parent:
        seen |= children(parent) - {own, os.getpgid(parent)}
        time.sleep(POLL_S)  # pacing of a liveness check
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for group in seen:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, sig)
        deadline = time.monotonic() + GRACE_S
        while sig == signal.SIGTERM and time.monotonic() < deadline:
            if not any(_group_alive(g) for g in seen):
                return
            time.sleep(0.1)  # pacing while the engines stop


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def start_reaper() -> subprocess.Popen[bytes] | None:
    """A reaper for this process (None where there is no ``/proc``)."""
    if not Path("/proc/self/stat").exists():
        return None
    return subprocess.Popen(
        [sys.executable, "-m", "specverdict.run.executors.reaper", str(os.getpid())],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


if __name__ == "__main__":
    watch(int(sys.argv[1]))
