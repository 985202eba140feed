"""Where suites keep their cache and find user-supplied data: the only environment reads of
the suites package (prefix ``SPECVERDICT_``).

``SPECVERDICT_CACHE_DIR``
    the cache root (ground truth of executed suites); default ``$XDG_CACHE_HOME/specverdict``,
    else ``~/.cache/specverdict``.
``SPECVERDICT_HUMANEVAL_PLUS`` / ``SPECVERDICT_MBPP_PLUS``
    EvalPlus's HumanEval+ / MBPP+ release file (``.jsonl`` or ``.jsonl.gz``); default
    ``<cache root>/data/HumanEvalPlus.jsonl.gz`` / ``MbppPlus.jsonl.gz``.
"""

from __future__ import annotations

import os
from pathlib import Path

from specverdict.suites.cache import cache_root

DATA_FILES = {"humaneval": "HumanEvalPlus.jsonl.gz", "mbpp": "MbppPlus.jsonl.gz"}
DATA_VARIABLES = {"humaneval": "SPECVERDICT_HUMANEVAL_PLUS", "mbpp": "SPECVERDICT_MBPP_PLUS"}


def evalplus_file(dataset: str) -> Path:
    """The EvalPlus release file of ``dataset`` (``humaneval`` or ``mbpp``)."""
    explicit = os.environ.get(DATA_VARIABLES[dataset])
    return Path(explicit) if explicit else cache_root() / "data" / DATA_FILES[dataset]
