"""Repository snapshots of a SWE-bench-style stage, by content: their files and their digest.

A stage whose instances run against repository snapshots is identified by the snapshots' bytes
(a changed snapshot is another run), so planning hashes them; the suite that applies patches
reads the same files in the same order.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from specverdict.errors import ConfigError

#: folders of a snapshot that are not the repository's text
SKIPPED_DIRS = frozenset({".git", "__pycache__", ".hg", ".svn", ".tox", ".nox", ".venv"})


def snapshot_files(root: Path) -> Iterator[tuple[str, Path]]:
    """``(posix path relative to root, file)`` for every file of a snapshot, sorted."""
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = Path(folder) / name
            if path.is_file():
                yield path.relative_to(root).as_posix(), path


def snapshots_digest(root: Path) -> str:
    """SHA-256 over every snapshot file's path and content: a changed snapshot is another run."""
    if not root.is_dir():
        raise ConfigError(f"{root}: the snapshots folder does not exist")
    digest = hashlib.sha256()
    for rel, path in snapshot_files(root):
        digest.update(rel.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
