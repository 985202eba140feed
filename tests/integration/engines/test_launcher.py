"""The launcher: start-up failures name their first error and leak nothing; stop waits for the
whole process group."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.errors import EngineStartError


def test_a_crash_at_start_up_names_its_first_error_and_closes_the_log(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "print('loading weights', flush=True)\n"
        "print('ValueError: head size 24 is not supported', flush=True)\n"
        "for i in range(20): print('noise', i, flush=True)\n"
        "sys.exit(3)\n"
    )
    port = free_port()
    server = LaunchedServer(
        [sys.executable, "-c", script],
        f"http://127.0.0.1:{port}",
        startup_timeout_s=30,
        log_path=tmp_path / "engine.log",
    )
    with pytest.raises(EngineStartError) as err:
        server.start()
    message = str(err.value)
    assert message.startswith("engine exited with code 3 during start-up: first error: ")
    assert "head size 24 is not supported" in message and "noise 19" in message
    assert server._log is None  # closed: no file handle outlives the failed start
    assert "loading weights" in (tmp_path / "engine.log").read_text()


def test_stop_waits_until_the_whole_group_is_gone(tmp_path: Path) -> None:
    port = free_port()
    # a worker that ignores SIGTERM and outlives the leader, as engines' workers do
    script = (
        "import os, signal, subprocess, sys, http.server\n"
        "subprocess.Popen([sys.executable, '-c', 'import signal, time; "
        "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'])\n"
        f"http.server.test(http.server.SimpleHTTPRequestHandler, port={port}, bind='127.0.0.1')\n"
    )
    server = LaunchedServer(
        [sys.executable, "-c", script], f"http://127.0.0.1:{port}", health_path="/"
    )
    server.start()
    assert server.process is not None
    pgid = server.process.pid
    server.stop(grace_s=0.5)
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)
