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
    """One input with the reference's output on it and the reference's time (seconds).
    ``tagged`` is ``encode(list(args))`` where it is at hand (read from the cache, or made to
    run the reference): a candidate's plan takes it as is instead of encoding the input again,
    which on generator 7's inputs of tens of thousands of items cost more than the run."""

    args: Args
    expected: Any
    ref_s: float
    tagged: Any = field(default=None, compare=False, repr=False)

    def tagged_args(self) -> Any:
        """The tagged form of the input (``encode(list(args))``)."""
        return self.tagged if self.tagged is not None else encode(list(self.args))


@dataclass(frozen=True, slots=True)
class GroundTruth:
    """A task's test cases. ``dropped``: extra inputs left out because the reference raised,
    ran long, or gave an output that fails the task's oracle. ``expected_chars``: the length of
    every expected output's tagged JSON, summed (``output_chars`` counts it when not given)."""

    task_id: str
    base: tuple[Case, ...]
    plus: tuple[Case, ...]
    dropped: int = 0
    expected_chars: int | None = field(default=None, compare=False, repr=False)

    def output_chars(self) -> int:
        """The length of the expected outputs' tagged JSON, summed over the cases."""
        if self.expected_chars is not None:
            return self.expected_chars
        return sum(len(json.dumps(encode(c.expected))) for c in (*self.base, *self.plus))

    def to_json(self) -> dict[str, Any]:
        def cases(cs: tuple[Case, ...]) -> list[Any]:
            return [[c.tagged_args(), encode(c.expected), c.ref_s] for c in cs]

        return {
            "task_id": self.task_id,
            "base": cases(self.base),
            "plus": cases(self.plus),
            "dropped": self.dropped,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> GroundTruth:
        def cases(rows: list[Any]) -> tuple[Case, ...]:
            return tuple(Case(tuple(decode(a)), decode(e), float(t), a) for a, e, t in rows)

        rows = [*obj["base"], *obj["plus"]]
        chars = sum(len(json.dumps(e)) for _, e, _ in rows)
        base, plus = cases(obj["base"]), cases(obj["plus"])
        return cls(obj["task_id"], base, plus, int(obj["dropped"]), chars)
