"""``watch`` against the real reference engine: a drift caused on purpose (the server's
``--fault degrade-draft-after=N``) is alarmed within a stated number of windows and not before
it, and a restart without the override directory is caught by the override audit."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import httpx
import numpy as np

from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.policy.model import OverridesTarget
from specverdict.reference.weights import shipped
from specverdict.stats.acceptance import mal_interval
from specverdict.watch.detect import Baseline, DetectorConfig
from specverdict.watch.scrape import Watcher
from tests.conftest import server_cmd

SPEC = json.dumps({"method": "mtp", "num_speculative_tokens": 2})
PROMPTS = [
    "def add(a, b):\n",
    "def is_even(n):\n",
    "class Stack:\n    def __init__(self):\n",
    "def fib(n):\n",
    "import os\n\ndef list_files(path):\n",
    "def reverse(s):\n",
    "def max_of(xs):\n",
    "for i in range(10):\n",
]
#: healthy requests: 8 to pin the expectation, 8 more in two windows before the fault
FAULT_AFTER = 16
WINDOW = 4  # requests per window
#: the stated detection delay: the alarm comes within this many windows of the fault
MAX_DELAY = 3


def complete(url: str, i: int) -> dict[str, int]:
    body = {
        "model": "reference-target",
        "prompt": PROMPTS[i % len(PROMPTS)],
        "max_tokens": 48,
        "temperature": 0.0,
        "ignore_eos": True,
    }
    resp = httpx.post(url + "/v1/completions", json=body, timeout=120)
    resp.raise_for_status()
    sd = resp.json()["metrics"]["speculative_decoding"]
    return {"accepted": sd["num_accepted_draft_tokens"], "steps": sd["num_spec_steps"]}


def test_drift_fault_is_detected_within_stated_windows(capsys: object) -> None:
    port = free_port()
    cmd = server_cmd(
        port,
        "--speculative-config",
        SPEC,
        "--per-request-spec-decode-metrics",
        "summary",
        "--fault",
        f"degrade-draft-after={FAULT_AFTER}",
    )
    server = LaunchedServer(cmd, f"http://127.0.0.1:{port}").start()
    try:
        url = server.base_url
        pinned = [complete(url, i) for i in range(8)]
        est = mal_interval(
            [p["accepted"] for p in pinned],
            [p["steps"] for p in pinned],
            np.random.default_rng(0),
        )
        assert est.interval is not None and est.interval.lower > 1.2
        base = Baseline(mal_lower=est.interval.lower, mal_upper=est.interval.upper, k=2)
        lines: list[str] = []
        watcher = Watcher([url], base, DetectorConfig(), out=lines.append)
        watcher.poll()
        sent, delay = 8, None
        windows_after_fault = 0
        while sent < FAULT_AFTER + WINDOW * (MAX_DELAY + 2):
            for _ in range(WINDOW):
                complete(url, sent)
                sent += 1
            events = [e for _, e in watcher.poll()]
            healthy = sent <= FAULT_AFTER
            alarmed = any(e.kind == "alarm" for e in events)
            if healthy:
                assert not alarmed, lines  # no alarm before the fault
                continue
            windows_after_fault += 1
            if alarmed:
                delay = windows_after_fault
                break
        print(f"drift fault detected after {delay} window(s) of {WINDOW} requests")
        assert delay is not None and delay <= MAX_DELAY, lines
        window = watcher.targets[0].state.last_window
        assert window is not None and window.mal < base.mal_lower
    finally:
        server.stop()


def test_restart_without_override_directory_fails_the_override_audit(tmp_path: Path) -> None:
    overrides = tmp_path / "mounts"
    (overrides / "target").mkdir(parents=True)
    source = shipped("target") / "generation_config.json"
    shutil.copy(source, overrides / "target" / "generation_config.json")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    manifest = tmp_path / "overrides.yaml"
    manifest.write_text(f'files:\n  target/generation_config.json: "{digest}"\n')
    port = free_port()
    flags = ("--speculative-config", SPEC, "--per-request-spec-decode-metrics", "summary")
    base = Baseline(mal_lower=1.5, k=2)
    target = OverridesTarget(manifest=str(manifest), root=str(overrides))
    lines: list[str] = []
    server = LaunchedServer(
        server_cmd(port, *flags, "--override-dir", str(overrides)), f"http://127.0.0.1:{port}"
    ).start()
    url = server.base_url
    watcher = Watcher([url], base, DetectorConfig(), overrides=target, out=lines.append)
    try:
        complete(url, 0)
        watcher.poll()
        assert watcher.targets[0].audit_clean is True, lines
    finally:
        server.stop()
    events = [e for _, e in watcher.poll()]
    assert [e.kind for e in events] == ["down"]
    # re-created without its mount: the directory is gone and the server starts without it
    overrides.rename(tmp_path / "mounts-lost")
    server = LaunchedServer(server_cmd(port, *flags), f"http://127.0.0.1:{port}").start()
    try:
        events = [e for _, e in watcher.poll()]
        kinds = [e.kind for e in events]
        assert kinds[:2] == ["up", "restart"], lines
        assert kinds[-1] == "alarm" and "missing" in events[-1].message, lines
        assert watcher.targets[0].audit_clean is False and watcher.alarmed
        assert watcher.targets[0].state.restarts == 1
    finally:
        server.stop()
