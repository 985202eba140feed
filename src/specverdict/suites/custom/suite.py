"""``FileSuite``: a stage's own dataset as a ``Suite``, scored by the stage's scorer."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import JsonValue

from specverdict.campaign.model import (
    CommandScorer,
    PythonScorer,
    ReferenceScorer,
    TestsScorer,
)
from specverdict.campaign.spec import DatasetRef
from specverdict.errors import ConfigError
from specverdict.records import Score
from specverdict.sandbox import Sandbox
from specverdict.suites.base import Sample, Suite
from specverdict.suites.custom import scorers
from specverdict.suites.custom.replay import OwnReplay
from specverdict.suites.custom.rows import FORMATS, Format, Replay, Row, load_rows
from specverdict.suites.functional import default_sandbox


def check_digest(path: Path, sha256: str) -> None:
    """A ``ConfigError`` unless ``path`` still has the content the run was planned with."""
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the dataset: {exc.strerror}") from None
    if digest != sha256:
        raise ConfigError(
            f"{path}: the file changed since these runs were planned (sha256 {digest[:12]}, "
            f"planned {sha256[:12]}): changed data is another run; plan it again"
        )


class RowSample(Sample):
    """A dataset row as a request: its tools and its own ``max_tokens`` go into the body."""

    tools: tuple[dict[str, JsonValue], ...] = ()
    max_tokens: int | None = None
    category: str | None = None

    def request_fields(self) -> dict[str, Any]:
        fields = super().request_fields()
        if self.tools:
            fields["tools"] = [dict(t) for t in self.tools]
        if self.max_tokens is not None:
            fields["max_tokens"] = self.max_tokens
        return fields


class FileSuite(Suite):
    """The rows of ``ref``'s file, checked against the content hash the run was planned with."""

    version = 1
    source = "your own dataset"
    licence = "yours"

    def __init__(self, ref: DatasetRef, stage: str, sandbox: Sandbox | None = None) -> None:
        path = Path(ref.path)
        self.ref = ref
        self.name = f"dataset:{path.name}"
        self.stage = stage
        self.source = f"your own dataset {path}"
        check_digest(path, ref.sha256)
        scorer = ref.scorer
        needs: Literal["reference", "tests"] | None = None
        if isinstance(scorer, ReferenceScorer):
            needs = "reference"
        elif isinstance(scorer, TestsScorer):
            needs = "tests"
        if ref.format not in FORMATS:
            raise ConfigError(f"{path}: unknown dataset format {ref.format!r}")
        fmt = cast(Format, ref.format)
        self.rows = dict(load_rows(path, fmt, needs, cast("Replay | None", ref.replay)))
        lines = {sid: n for n, sid in enumerate(self.rows, 1)}
        for sid, row in self.rows.items():
            try:
                if isinstance(scorer, ReferenceScorer):
                    scorers.check_reference(scorer, row)
                if isinstance(scorer, TestsScorer) and row.tests is not None:
                    scorers.tests_module(row.tests)
            except SyntaxError as exc:
                raise ConfigError(
                    f"{path}: row {sid} (row {lines[sid]}): field tests: not Python: {exc.msg}"
                ) from None
            except ValueError as exc:
                raise ConfigError(f"{path}: row {sid} (row {lines[sid]}): {exc}") from None
        self._fn: Callable[..., Any] | None = None
        if isinstance(scorer, PythonScorer):
            self._fn = scorers.load_function(scorer, path.parent)
        if isinstance(scorer, CommandScorer):
            missing = [f for f in scorer.files if not Path(f).is_file()]
            if missing:
                raise ConfigError(f"scorer command: file {missing[0]} does not exist")
        self._sandbox = sandbox

    @property
    def data_hash(self) -> str | None:
        return self.ref.sha256

    def scores(self) -> bool:
        return self.ref.scorer != "none"

    def episodic(self) -> OwnReplay | None:
        """With ``replay: own`` a row is a conversation, asked turn by turn (``replay``)."""
        return OwnReplay(self) if self.ref.replay == "own" else None

    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = default_sandbox()
        return self._sandbox

    def samples(self) -> list[Sample]:
        out: list[Sample] = []
        for sid, row in self.rows.items():
            out.append(
                RowSample(
                    id=sid,
                    endpoint="completions" if row.prompt is not None else "chat",
                    prompt=row.prompt,
                    messages=self._first_request(row),
                    tools=row.tools or (),
                    max_tokens=row.max_tokens,
                    stop=row.stop,
                    category=row.category,
                    task_id=sid,
                    labels=_labels(row),
                )
            )
        return out

    def _first_request(self, row: Row) -> tuple[dict[str, Any], ...] | None:
        """The row's messages; replayed with own answers, those of its first request (what a
        warm-up sends): the conversation is the row's, asked turn by turn (``OwnReplay``)."""
        if row.messages is None:
            return None
        messages = [m.model_dump(exclude_none=True) for m in row.messages]
        if self.ref.replay == "own":
            first = next(i for i, m in enumerate(messages) if m["role"] == "user")
            messages = [m for m in messages[: first + 1] if m["role"] != "assistant"]
        return tuple(messages)

    def conversation(self, sample: Sample) -> list[dict[str, Any]]:
        """The whole conversation of a sample's row, as written."""
        return [m.model_dump(exclude_none=True) for m in self.rows[sample.id].messages or ()]

    def score(
        self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]
    ) -> Score | None:
        row = self.rows[sample.id]
        scorer = self.ref.scorer
        if isinstance(scorer, ReferenceScorer):
            return scorers.score_reference(scorer, row, text)
        if isinstance(scorer, TestsScorer):
            return scorers.score_tests(scorer, row, text, self.sandbox())
        if isinstance(scorer, PythonScorer):
            assert self._fn is not None
            return scorers.score_python(self._fn, row, (text, tool_calls))
        if isinstance(scorer, CommandScorer):
            return scorers.score_command(scorer, row, (text, tool_calls), self.sandbox())
        return None  # "none": no quality signal, and the verdict says so


def _labels(row: Row) -> dict[str, str]:
    """The row's category and scalar metadata, as the labels slices group by."""
    out = {
        f"metadata.{k}": str(v) for k, v in row.metadata.items() if not isinstance(v, dict | list)
    }
    if row.category is not None:
        out["category"] = row.category
    return out
