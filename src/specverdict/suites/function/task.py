"""Function tasks and their ground truth: the data a function-level suite scores against."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from specverdict.suites.function.checkast import CompareMode
from specverdict.suites.values import decode, encode

Args = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class FunctionTask:
    """One task: write ``entry_point`` as ``prompt`` asks.

    ``reference`` is a complete trusted program defining the entry point (prompt and canonical
    solution). Base inputs are given (``base_inputs``) or, when None, recorded by running
    ``record_source``'s ``check(candidate)``. Extra inputs are given (EvalPlus's
    ``plus_input``) or, when None, amplified. ``oracle`` names a check in ``oracles.py`` that
    replaces comparison with the reference's output (tasks with several right answers);
    ``contract`` filters amplified inputs (tasks whose preconditions cannot be inferred).
    """

    task_id: str
    prompt: str
    entry_point: str
    reference: str
    compare: CompareMode = "equal"
    oracle: str | None = None
    atol: float = 0.0
    base_inputs: tuple[Args, ...] | None = None
    record_source: str | None = None
    plus_inputs: tuple[Args, ...] | None = None
    contract: Callable[[Args], bool] | None = field(default=None, compare=False)

    def digest(self) -> str:
        """A hash of everything the ground truth depends on (not the contract's code: a
        contract change must bump the suite's version)."""
        parts = {
            "task_id": self.task_id,
            "entry_point": self.entry_point,
            "reference": self.reference,
            "base": None
            if self.base_inputs is None
            else [encode(list(a)) for a in self.base_inputs],
            "record": self.record_source,
            "plus": None
            if self.plus_inputs is None
            else [encode(list(a)) for a in self.plus_inputs],
            "oracle": self.oracle,
            "atol": self.atol,
        }
        blob = json.dumps(parts, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Case:
    """One input with the reference's output on it and the reference's time (seconds)."""

    args: Args
    expected: Any
    ref_s: float


@dataclass(frozen=True, slots=True)
class GroundTruth:
    """A task's test cases. ``dropped``: extra inputs left out because the reference raised,
    ran long, or gave an output that fails the task's oracle."""

    task_id: str
    base: tuple[Case, ...]
    plus: tuple[Case, ...]
    dropped: int = 0

    def to_json(self) -> dict[str, Any]:
        def cases(cs: tuple[Case, ...]) -> list[Any]:
            return [[encode(list(c.args)), encode(c.expected), c.ref_s] for c in cs]

        return {
            "task_id": self.task_id,
            "base": cases(self.base),
            "plus": cases(self.plus),
            "dropped": self.dropped,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> GroundTruth:
        def cases(rows: list[Any]) -> tuple[Case, ...]:
            return tuple(Case(tuple(decode(a)), decode(e), float(t)) for a, e, t in rows)

        return cls(obj["task_id"], cases(obj["base"]), cases(obj["plus"]), int(obj["dropped"]))
