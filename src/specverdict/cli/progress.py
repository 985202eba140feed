"""Run progress for the terminal: a rich bar per run on a TTY, plain log lines otherwise."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichBar

from specverdict.cli.runs import registry_dir
from specverdict.records import SampleRecord
from specverdict.run.runner import Runner
from specverdict.run.segment import Progress
from specverdict.store import Store


class _Counts:
    def __init__(self) -> None:
        self.done = self.errors = self.tokens = 0
        self.total = 0
        self.t0 = time.monotonic()

    def add(self, record: SampleRecord) -> None:
        self.done += 1
        self.errors += record.status != "ok"
        self.tokens += record.completion_tokens or 0

    @property
    def tokens_per_s(self) -> float:
        elapsed = time.monotonic() - self.t0
        return self.tokens / elapsed if elapsed > 0 else 0.0


class BarProgress:
    """A live bar: samples done/total, output tokens/s since the run started, errors."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._bar: RichBar | None = None
        self._task: TaskID | None = None
        self._counts = _Counts()

    def start(self, run_id: str, label: str, total: int) -> None:
        self._counts = _Counts()
        self._counts.total = total
        self._bar = RichBar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} tok/s, {task.fields[errors]} errors"),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )
        self._bar.start()
        short = label.split(" | ", maxsplit=1)[0]
        self._task = self._bar.add_task(f"{run_id} {short}", total=total, rate="0", errors=0)

    def advance(self, record: SampleRecord) -> None:
        self._counts.add(record)
        if self._bar is not None and self._task is not None:
            self._bar.update(
                self._task,
                advance=1,
                rate=f"{self._counts.tokens_per_s:.0f}",
                errors=self._counts.errors,
            )

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.stop()
        self._bar = None


class LineProgress:
    """Plain lines at each quarter of a run, for logs and CI."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._counts = _Counts()
        self._run_id = ""
        self._next = 0.25

    def start(self, run_id: str, label: str, total: int) -> None:
        self._counts = _Counts()
        self._counts.total = total
        self._run_id = run_id
        self._next = 0.25

    def advance(self, record: SampleRecord) -> None:
        c = self._counts
        c.add(record)
        if c.total and c.done / c.total >= self._next:
            self.console.print(
                f"{self._run_id}: {c.done}/{c.total} samples, {c.tokens_per_s:.0f} tok/s, "
                f"{c.errors} errors",
                highlight=False,
            )
            while self._next <= c.done / c.total:
                self._next += 0.25

    def finish(self) -> None:
        return None


def progress_for(console: Console) -> Progress:
    return BarProgress(console) if console.is_terminal else LineProgress(console)


def console_runner(store: Store, db: Path | str, console: Console, **options: Any) -> Runner:
    """The runner a command drives: log lines and progress on ``console``, run folders beside
    the registry ``db``; ``options`` go to ``Runner`` (reconfigure, retry_failed, ...)."""
    return Runner(
        store,
        log=lambda m: console.print(m, highlight=False, soft_wrap=True),
        runs_dir=registry_dir(db) / "runs",
        progress=progress_for(console),
        **options,
    )
