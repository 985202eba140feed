"""One ``LocalSandbox`` per isolation mode for the whole session, and a leak check."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from specverdict.sandbox import Limits, LocalSandbox, SandboxUnavailableError
from tests.conftest import sandbox_unavailable

#: Small limits keep the hostile programs fast on two shared cores.
SMALL = Limits(wall_s=2.0, cpu_s=1, address_space_mb=256, nproc=8, output_bytes=64 * 1024)


def processes_with(marker: str, exclude: tuple[int | None, ...] = ()) -> list[tuple[int, str]]:
    """(pid, command line) of every process on this machine whose command line has ``marker``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in exclude or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append((int(name), cmdline[:120]))
    return found


def wait_until_gone(
    marker: str, exclude: tuple[int | None, ...] = (), timeout: float = 3.0
) -> list:
    """Poll until no process carries ``marker``; what is left after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        left = processes_with(marker, exclude)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


_sandboxes: dict[str, LocalSandbox | str] = {}


def get_sandbox(mode: str) -> LocalSandbox:
    """The session's sandbox of ``mode``; both modes work on Linux, so a mode that cannot start
    fails each test that asks for it (tried once, its reason kept), never skips it."""
    if mode not in _sandboxes:
        try:
            _sandboxes[mode] = LocalSandbox(mode=mode)  # type: ignore[arg-type]
        except SandboxUnavailableError as exc:
            _sandboxes[mode] = sandbox_unavailable(mode, exc)
    got = _sandboxes[mode]
    if isinstance(got, str):
        pytest.fail(got, pytrace=False)
    return got


@pytest.fixture(scope="session", autouse=True)
def _close_sandboxes() -> Iterator[None]:
    yield
    for sb in _sandboxes.values():
        if isinstance(sb, LocalSandbox):
            sb.close()


def _checked(sb: LocalSandbox) -> Iterator[LocalSandbox]:
    yield sb
    left = wait_until_gone(sb.directory, exclude=(sb.zygote_pid,))
    assert not left, f"stray processes after the test: {left}"
    assert sb.zygote_pid is not None and os.path.exists(f"/proc/{sb.zygote_pid}")


@pytest.fixture(params=["namespaces", "subreaper"])
def sandbox(request: pytest.FixtureRequest) -> Iterator[LocalSandbox]:
    """A sandbox of each mode; after the test, no process of it but the zygote may remain."""
    yield from _checked(get_sandbox(request.param))


@pytest.fixture
def namespaces_sandbox() -> Iterator[LocalSandbox]:
    """The namespaces-mode sandbox, for what only the kernel's isolation guarantees."""
    yield from _checked(get_sandbox("namespaces"))
