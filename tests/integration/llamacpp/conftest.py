"""Real llama.cpp (``xllamacpp``'s in-process server, dev extra) on the reference models as GGUF.

Every test here is marked ``llamacpp`` and runs by default: the dev extra installs llama.cpp,
so a missing install fails the tests (it is the core path in CI), never skips them. The GGUFs
are exported once per session; servers are started as ``llama-server`` would be, by the
launcher, with ``python -m specverdict.engines.xllamacpp_server`` in front of llama-server's
own flags (about 0.2 s each on two cores: tiny models), and are stopped at the end.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from specverdict.engines.launcher import LaunchedServer, free_port

#: the in-process server's command prefix; llama-server's flags follow it
SERVER = [sys.executable, "-m", "specverdict.engines.xllamacpp_server"]
#: one thread per server: the tests may run two servers side by side on two cores
THREADS = ["-t", "1", "--threads-http", "2"]
#: ngram-simple lookup and draft sizes that draft on short prompts (llama.cpp's defaults, 12/48,
#: almost never match)
NGRAM = ["--spec-type", "ngram-simple", "--spec-ngram-simple-size-n", "3"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.llamacpp)


@pytest.fixture(scope="session", autouse=True)
def _llamacpp_installed() -> None:
    try:
        import gguf  # noqa: F401
        import xllamacpp  # type: ignore[import-not-found]  # noqa: F401
    except ImportError as exc:
        pytest.fail(
            f"llama.cpp is not installed ({exc}): pip install -e '.[dev]' (xllamacpp, gguf)",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def gguf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped target and draft exported as f32 GGUF (``export-gguf``)."""
    from specverdict.reference.gguf_export import export_gguf

    out = tmp_path_factory.mktemp("gguf")
    export_gguf(out, "f32")
    return out


class LlamaServers:
    """Lazily started llama.cpp servers, one per distinct flag set, stopped at session end."""

    def __init__(self, models: Path) -> None:
        self.models = models
        self._running: dict[tuple[str, ...], LaunchedServer] = {}

    def command(self, port: int, *flags: str) -> list[str]:
        model = str(self.models / "target.gguf")
        return [
            *SERVER,
            "-m",
            model,
            "--port",
            str(port),
            "--alias",
            "reference-target",
            "--metrics",
            *THREADS,
            *flags,
        ]

    def get(self, *flags: str) -> str:
        if flags not in self._running:
            port = free_port()
            server = LaunchedServer(self.command(port, *flags), f"http://127.0.0.1:{port}")
            self._running[flags] = server.start()
        return self._running[flags].base_url

    def draft(self, k: int = 3) -> str:
        return self.get(
            "--spec-type",
            "draft-simple",
            "-md",
            str(self.models / "draft.gguf"),
            "--spec-draft-n-max",
            str(k),
        )

    def ngram(self, m: int = 8) -> str:
        return self.get(*NGRAM, "--spec-ngram-simple-size-m", str(m))

    def stop(self) -> None:
        for server in self._running.values():
            server.stop()


@pytest.fixture(scope="session")
def llama(gguf_dir: Path) -> Iterator[LlamaServers]:
    servers = LlamaServers(gguf_dir)
    yield servers
    servers.stop()
