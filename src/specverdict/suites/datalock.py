"""The data lock: ``data-lock.json`` records each data-backed suite's content hash per version.

A suite's version is part of a run's identity, and its data is what the version stands for: the
same ``name@version`` must always mean the same data. The lock keeps the hash (and the number of
data files) of every ``name@version`` ever recorded; ``problems`` lists the registered suites
whose data no longer matches their version's entry, or that have none.

    python -m specverdict.suites.datalock            # check (exit 1 on a problem)
    python -m specverdict.suites.datalock --write    # record new versions; never rewrites one
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from specverdict.suites.base import Suite

LOCK_NAME = "data-lock.json"
COMMAND = "python -m specverdict.suites.datalock --write"


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    sha256: str
    files: int


class Lock(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    about: str = (
        "sha256 of each data-backed suite's data files, per suite version; "
        "see specverdict.suites.datalock"
    )
    suites: dict[str, Entry]


def read_lock() -> Lock:
    return Lock.model_validate_json(files("specverdict.suites").joinpath(LOCK_NAME).read_text())


def data_backed() -> list[Suite]:
    """Every registered suite with shipped data, by ``name@version``."""
    from specverdict.suites.registry import get_suite, known_suites

    return [s for s in map(get_suite, known_suites()) if s.data_dir is not None]


def entry(suite: Suite) -> Entry:
    assert suite.data_dir is not None and suite.data_hash is not None
    return Entry(sha256=suite.data_hash, files=len(suite.data_dir.paths()))


def problems(lock: Lock, suites: Sequence[Suite]) -> list[str]:
    """One line per suite whose data does not match its version's entry, or that has none."""
    out = []
    for suite in suites:
        ref = _ref(suite)
        now = entry(suite)
        locked = lock.suites.get(ref)
        if locked is None:
            out.append(f"suite {ref}: no data hash in {LOCK_NAME}; record it with `{COMMAND}`")
        elif locked.sha256 != now.sha256:
            out.append(
                f"suite {ref}: its data changed (sha256 {now.sha256[:12]}, {now.files} files; "
                f"{LOCK_NAME} has {locked.sha256[:12]}, {locked.files} files for version "
                f"{suite.version}): bump {type(suite).__name__}.version to "
                f"{suite.version + 1}, register {suite.name}@{suite.version + 1} and run "
                f"`{COMMAND}`"
            )
    return out


def main(argv: Sequence[str] = ()) -> int:
    lock, suites = read_lock(), data_backed()
    found = problems(lock, suites)
    changed = [s for s in suites if s.data_hash != lock.suites.get(_ref(s), entry(s)).sha256]
    if "--write" in argv and not changed:
        merged = {**lock.suites, **{_ref(s): entry(s) for s in suites}}
        text = Lock(suites=dict(sorted(merged.items()))).model_dump_json(indent=2) + "\n"
        Path(__file__).with_name(LOCK_NAME).write_text(text)
        print(f"{LOCK_NAME}: {len(merged)} suite versions")
        return 0
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


def _ref(suite: Suite) -> str:
    return f"{suite.name}@{suite.version}"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
