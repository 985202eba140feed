"""The generated suites' shipped evaluation files: where they are, how they are read, and their
digests (a data change without a version bump fails the tests).

The files are written by the generator (``python -m specverdict.lab.synth.build``), which
lives with the trainer: the runtime suites only read them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
FILES = {
    "function": "function-eval.jsonl",
    "agent": "agent-eval.jsonl",
    "repository": "repository-eval.jsonl",
}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def load_eval(stage: str, data: Path = DATA) -> list[dict[str, Any]]:
    path = data / FILES[stage]
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def data_sha256(stage: str, data: Path = DATA) -> str:
    return digest((data / FILES[stage]).read_text())
