"""Shared fixtures and helpers: the shipped models, real reference servers on free ports, the
``specverdict`` command in a subprocess, the YAML of a small campaign on the reference engine,
and the sandbox."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import pytest
import yaml
from threadpoolctl import threadpool_limits

from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.engine import EngineCore
from specverdict.reference.weights import shipped
from specverdict.sandbox import LocalSandbox, SandboxUnavailableError

#: One BLAS thread per test process, as the reference engine takes in its own (``EngineCore``):
#: the test workers share two cores with the servers they start, and BLAS threads spin-waiting
#: against each other made a test that runs the models directly fifty times slower (23 s alone,
#: 1171 s in the full suite).
BLAS_LIMIT = threadpool_limits(limits=1, user_api="blas")

FIXTURES = Path(__file__).parent / "fixtures"

#: Each test file's measured seconds (``tools/test_costs.py`` writes them from a JUnit report).
FILE_COSTS: dict[str, float] = json.loads((Path(__file__).parent / "file_costs.json").read_text())
#: a file not in the table yet: placed among the longer ones, so that a new long file does not
#: start last
DEFAULT_COST = 30.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the files longest first, each file's tests together and in their own order.

    pytest-xdist (``--dist loadfile``, with ``--no-loadscope-reorder`` so that it keeps this
    order) gives each worker the next file when it is nearly done: longest first leaves the
    short files to fill the workers' ends, where files taken in their collection order (or by
    number of tests, xdist's default) left the suite waiting on one worker finishing a long file
    alone."""
    root = Path(__file__).resolve().parents[1]

    def cost(item: pytest.Item) -> float:
        try:
            name = Path(str(item.fspath)).resolve().relative_to(root).as_posix()
        except ValueError:
            return DEFAULT_COST
        return FILE_COSTS.get(name, DEFAULT_COST)

    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        first_seen.setdefault(str(item.fspath), index)
    items.sort(key=lambda item: (-cost(item), first_seen[str(item.fspath)]))


@contextmanager
def untraced() -> Iterator[None]:
    """Run the block without this thread's trace function (coverage's, under ``--cov``).

    For work a test repeats over code that runs traced elsewhere: a second run to compare with
    the first, a digest of many inputs through a generator that has tests of its own. Traced,
    that work added nothing to the coverage measured and more than doubled the CPU of some
    files (``tests/unit/suites/test_corners.py``: 24.6 CPU-seconds against 10.8). The tracer is
    put back as it was (``sys.settrace`` reinstalls coverage's C tracer); threads started inside
    are traced as usual, and without coverage the block runs as it would anyway."""
    before = sys.gettrace()
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(before)


def make_core(spec: dict[str, object] | None = None) -> EngineCore:
    return EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="reference-target",
            speculative=SpeculativeConfig.model_validate(spec) if spec else None,
        )
    )


@pytest.fixture(scope="session")
def core_none() -> EngineCore:
    return make_core()


#: the command line of ``specverdict`` in this interpreter
SPECVERDICT = [sys.executable, "-m", "specverdict"]


def specverdict_cli(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``specverdict ARGS`` as a user would, in a subprocess; output captured as text;
    ``env`` is added to this process's environment."""
    return subprocess.run(
        [*SPECVERDICT, *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env={**os.environ, **env} if env else None,
    )


#: the shipped reference weights as a campaign's ``model``
REFERENCE_MODEL = {"family": "specverdict-reference", "served_name": "reference-target"}


class _Flow(dict[str, Any]):
    """A mapping written on one line, as a campaign file writes its small sections."""


class _CampaignDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # a dict passed twice is written twice, never as an anchor

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)  # "  - item" under its key, as people write it


_CampaignDumper.add_representer(
    _Flow, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True)
)


def _plain(value: Any) -> Any:
    """``value`` with tuples as lists (YAML sequences) and mappings as dicts."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def campaign_yaml(
    name: str,
    *,
    candidates: Sequence[Mapping[str, Any]] = ({"method": "mtp", "k": 2},),
    stage: str = "function",
    suite: str = "builtin-code@1",
    first: int | None = 4,
    samples: Any = None,
    stages: Mapping[str, Mapping[str, Any]] | None = None,
    max_tokens: int | None = 16,
    temperature: float = 0.0,
    seed: int | None = 0,
    concurrency: int | Sequence[int] | None = (1,),
    warmup: int | None = 1,
    repeats: int | None = None,
    baseline_repeats: int | None = 1,
    base_url: str | None = None,
    device_model: str | None = None,
    device_clock: str | None = None,
    launch_args: Sequence[str] | None = None,
    launch: Mapping[str, Any] | None = None,
    **sections: Any,
) -> str:
    """The text of a small campaign on the reference engine and its shipped weights (fp32).

    By default: a baseline and ``mtp`` k=2, stage ``function`` on the first 4 samples of
    ``builtin-code@1``, greedy sampling (seed 0) of 16 tokens, ``load: {concurrency: [1],
    warmup: 1, baseline_repeats: 1}``. A parameter set to None leaves its key out.

    - the one stage: ``stage``, ``suite`` and its ``samples`` (``{first: first}`` unless
      ``samples`` is given); ``stages`` replaces it with every stage's settings;
    - the engine: attached at ``base_url``, or launched with the arguments ``--device-model
      M --device-clock C LAUNCH_ARGS`` and the other ``launch`` settings (``sessions``,
      ``servers``, ``resources``, ...); no ``launch`` key when all of them are None;
    - ``sections`` sets (or, with None, removes) whole top-level sections: ``baseline``,
      ``gates``, ``slo``, ``quantization``, ``model``, ``engine``, ``sampling``, ``load``, ...
    """
    engine: dict[str, Any] = {"kind": "reference", "base_url": base_url}
    settings = dict(launch or {})
    if device_model is not None or device_clock is not None or launch_args is not None:
        args = ["--device-model", device_model] if device_model is not None else []
        args += ["--device-clock", device_clock] if device_clock is not None else []
        settings = {"args": [*args, *(launch_args or ())], **settings}
    engine["launch"] = settings or None
    if stages is None:
        chosen = samples if samples is not None else {"first": first} if first is not None else None
        stages = {stage: {"suite": suite} | ({"samples": chosen} if chosen is not None else {})}
    sampling = {"temperature": temperature, "max_tokens": max_tokens, "seed": seed}
    load = {
        "concurrency": concurrency,
        "warmup": warmup,
        "repeats": repeats,
        "baseline_repeats": baseline_repeats,
    }
    doc: dict[str, Any] = {
        "name": name,
        "engine": engine,
        "model": REFERENCE_MODEL,
        "quantization": "fp32",
        "baseline": None,
        "candidates": candidates,
        "stages": stages,
        "sampling": sampling,
        "slo": None,
        "load": load,
        "gates": None,
    }
    doc.update(sections)
    return "".join(_section(key, value) for key, value in _plain(doc).items() if value is not None)


def _section(key: str, value: Any) -> str:
    """One top-level section: small mappings on one line, each candidate and stage on its own."""
    if key == "candidates" and isinstance(value, list):
        value = [_Flow(c) if isinstance(c, dict) else c for c in value]
    elif key == "stages" and isinstance(value, dict):
        value = {s: _Flow(c) if isinstance(c, dict) else c for s, c in value.items()}
    elif isinstance(value, dict):
        value = _Flow({k: v for k, v in value.items() if v is not None})
        if not value:
            return ""  # every key of the section left out: no section
    return yaml.dump({key: value}, Dumper=_CampaignDumper, sort_keys=False, width=10**6)


def server_cmd(port: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "specverdict.reference.server.cli", "--port", str(port), *extra]


def sandbox_unavailable(mode: str, exc: Exception) -> str:
    """Why the sandbox did not start, and what to do about it."""
    return (
        f"the sandbox cannot start ({mode} mode): {exc}. It is supported on Linux and the "
        "tests that run code need it: the namespaces mode needs unprivileged user namespaces "
        "(sysctl user.max_user_namespaces > 0; on Ubuntu "
        "kernel.apparmor_restrict_unprivileged_userns=0; in Docker a seccomp profile that allows "
        "unshare), the subreaper mode a Python interpreter the sandbox can start "
        "(docs/sandbox.md)"
    )


def local_sandbox(mode: Literal["auto", "namespaces", "subreaper"] = "auto") -> LocalSandbox:
    """A started ``LocalSandbox``; one that cannot start fails the test, saying why, and never
    skips it: on this project's platform a sandbox that does not start is a broken machine."""
    try:
        return LocalSandbox(mode=mode)
    except SandboxUnavailableError as exc:
        why = sandbox_unavailable(mode, exc)
    pytest.fail(why, pytrace=False)  # outside the handler: the reason alone, once


class Servers:
    """Lazily started servers, one per distinct flag set, stopped at the end of the session."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, ...], LaunchedServer] = {}

    def get(self, *flags: str) -> str:
        if flags not in self._running:
            port = free_port()
            server = LaunchedServer(server_cmd(port, *flags), f"http://127.0.0.1:{port}")
            self._running[flags] = server.start()
        return self._running[flags].base_url

    def spec(self, spec: dict[str, object], metrics: str = "summary") -> str:
        return self.get(
            "--speculative-config",
            json.dumps(spec, sort_keys=True),
            "--per-request-spec-decode-metrics",
            metrics,
        )

    def stop(self) -> None:
        for server in self._running.values():
            server.stop()


@pytest.fixture(scope="session")
def servers() -> Iterator[Servers]:
    s = Servers()
    yield s
    s.stop()
