"""The prompts of ``prose@1``: non-code requests written for specverdict (Apache-2.0).

Five kinds, each with a short and a long end: explanations, summaries of a paragraph given in
the prompt, e-mails, stories and step-by-step instructions, read from
``data/prose/prompts.jsonl``. A prompt's id is ``prose/<kind>-<n>`` with n counted within its
kind. Changing, adding or removing a prompt changes the suite's data hash: bump
``Prose.version`` (the lock test says so).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from pydantic import model_validator

from specverdict.suites.dataset import DataDir, Reader, Record

DATA = DataDir.of("specverdict.suites", "data", "prose")
FILE = "prompts.jsonl"

Kind = Literal["explain", "summarize", "email", "story", "instruct"]


class Prompt(Record):
    id: str
    kind: Kind
    prompt: str

    @model_validator(mode="after")
    def _id_names_kind(self) -> Prompt:
        if not re.fullmatch(rf"prose/{self.kind}-\d+", self.id):
            raise ValueError(f"id {self.id!r} is not prose/{self.kind}-<n>")
        return self


def load_prompts(data: DataDir = DATA) -> tuple[Prompt, ...]:
    """Every prompt, in file order; ids are unique and counted within their kind."""
    reader = Reader(data)
    out: list[Prompt] = []
    counts: dict[str, int] = {}
    for line in reader.records(FILE, Prompt):
        n = counts.get(line.record.kind, 0)
        if line.record.id != f"prose/{line.record.kind}-{n}":
            raise line.error("id", f"expected prose/{line.record.kind}-{n} (counted by kind)")
        counts[line.record.kind] = n + 1
        out.append(line.record)
    reader.finish()
    return tuple(out)


@cache
def prompts() -> tuple[Prompt, ...]:
    return load_prompts()
