"""Test plans for the trusted in-sandbox runner (``plan_runner``) and its report, typed.

A plan says what the runner does with the program under test (``CallPlan``, ``RecordPlan``,
``TestsPlan``); ``execution`` turns a plan and the execution's files into an ``Execution`` that
runs ``plan_runner.py`` (read from the installed package) with a fresh nonce and the plan on its
standard input. ``read_report`` reads the runner's records back: a line counts only when it is
a record carrying this execution's nonce (the code under test can print, but cannot know the
nonce); well-formed records without it are kept apart as ``hints``, which only a plan sealed
``"pass"`` uses, to choose how a run failed. A sealed line that is not a valid record makes the
report ``malformed``: the parent then treats the run as broken, never as passed.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from importlib import resources
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SkipValidation,
    TypeAdapter,
    ValidationError,
)

from specverdict.sandbox import ExecResult, Execution, Limits

#: the runner program, read once from the installed package
RUNNER = resources.files("specverdict.suites").joinpath("plan_runner.py").read_text()

Seal = Literal["every", "pass"]


class PlanRunnerError(RuntimeError):
    """The runner refused the plan (a bug on the parent's side, never the program's)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# -- plans ---------------------------------------------------------------------------------------
class CallPlan(_Frozen):
    """Define ``source`` (as module ``module_name``) and call ``entry_point`` on each input."""

    kind: Literal["call"] = "call"
    quiet: bool = True
    seal: Seal = "every"
    source: str
    module_name: str = "solution"
    entry_point: str
    define_limit_s: float = Field(ge=0)
    inputs: tuple[JsonValue, ...]  # tagged values (``specverdict.suites.values``)
    limits: tuple[float, ...]
    stop_on_timeout: bool
    budget_s: float = Field(ge=0)
    max_nodes: int


class RecordPlan(_Frozen):
    """Define ``source`` and run its ``check(candidate)``, recording every call's arguments."""

    kind: Literal["record"] = "record"
    quiet: bool = True
    seal: Seal = "every"
    source: str
    module_name: str = "solution"
    entry_point: str
    define_limit_s: float = Field(ge=0)
    seed: int
    max_nodes: int


class Load(_Frozen):
    """A test source: a module ``import``-ed by name, a ``file`` loaded by path (as a module of
    a name of its own), or a file compiled into a ``namespace`` called ``name``."""

    how: Literal["import", "file", "namespace"]
    target: str
    name: str | None = None


class Bind(_Frozen):
    """Names rebound, in every namespace source, to the objects of ``module``."""

    module: str
    names: tuple[str, ...]


class Named(_Frozen):
    """Tests by name: a function, or ``Class.method`` (``unittest`` cases run through unittest)."""

    names: tuple[str, ...]


class Collected(_Frozen):
    """Every callable whose name starts with ``prefix``, in name or definition order;
    ``functions_only``: plain functions only (a generator or coroutine function errs)."""

    prefix: str
    order: Literal["name", "definition"]
    functions_only: bool


class TestsPlan(_Frozen):
    """Load the sources, then run the selected tests of each; ``summary``: end with
    ``all_passed`` or ``finished``; ``max_reported``: failing tests reported (None: all)."""

    __test__ = False  # not a pytest test class

    kind: Literal["tests"] = "tests"
    quiet: bool = False
    seal: Seal = "every"
    load: tuple[Load, ...]
    bind: Bind | None = None
    select: Named | Collected
    max_reported: int | None = None
    test_limit_s: float | None = None
    summary: bool = True


Plan = Annotated[CallPlan | RecordPlan | TestsPlan, Field(discriminator="kind")]


# -- records -------------------------------------------------------------------------------------
class _Record(_Frozen):
    token: str | None = None


#: a tagged value in a record (``specverdict.suites.values``), as ``json.loads`` read it: JSON
#: already, and ``values.decode`` parses its grammar strictly; validating it again as a
#: ``JsonValue`` calls back into Python for every node, which cost more than the run on
#: outputs of tens of thousands of items
Tagged = SkipValidation[JsonValue]


class Defined(_Record):
    event: Literal["defined"]
    source: str


class SyntaxErrorRecord(_Record):
    event: Literal["syntax_error"]
    source: str
    type: str
    detail: str
    line: int | None = None


class DefinitionError(_Record):
    """A source could not be defined or imported (``type`` ``Timeout``: it took too long)."""

    event: Literal["definition_error"]
    source: str
    type: str
    detail: str


class CallResult(_Record):
    event: Literal["call"]
    i: int
    status: Literal["ok", "exception", "timeout"]
    t: float
    out: Tagged = None
    type: str | None = None
    detail: str | None = None


class ArgsRecord(_Record):
    event: Literal["record"]
    args: Tagged


class TestResult(_Record):
    __test__ = False  # not a pytest test class

    event: Literal["test"]
    source: str
    test: str
    status: Literal["pass", "fail", "error", "skip", "timeout"]
    type: str | None = None
    detail: str = ""


class AllPassed(_Record):
    event: Literal["all_passed"]
    tests: int


class Finished(_Record):
    event: Literal["finished"]
    tests: int
    failed: int


class Mark(_Record):
    """``done`` (a call or record plan ran to its end), ``recorded``, ``budget_spent``."""

    event: Literal["done", "recorded", "budget_spent"]


class Interference(_Record):
    """The code under test called the runner's reporting function."""

    event: Literal["interference"]
    detail: str


class PlanRejected(_Record):
    event: Literal["plan_error"]
    detail: str


Record = Annotated[
    Defined
    | SyntaxErrorRecord
    | DefinitionError
    | CallResult
    | ArgsRecord
    | TestResult
    | AllPassed
    | Finished
    | Mark
    | Interference
    | PlanRejected,
    Field(discriminator="event"),
]
_RECORD: TypeAdapter[Record] = TypeAdapter(Record)


class PlanReport(_Frozen):
    """What the runner reported: ``records`` carry the nonce, in order; ``hints`` are
    well-formed records without it; ``malformed`` says why a sealed line was not a record."""

    records: tuple[Record, ...] = ()
    hints: tuple[Record, ...] = ()
    malformed: str | None = None

    @property
    def interfered(self) -> bool:
        return any(isinstance(r, Interference) for r in self.records)

    @property
    def done(self) -> bool:
        return any(isinstance(r, Mark) and r.event == "done" for r in self.records)


# -- the parent's side ---------------------------------------------------------------------------
def execution(
    plan: CallPlan | RecordPlan | TestsPlan,
    files: Mapping[str, str],
    limits: Limits,
    nonce: str | None = None,
) -> Execution:
    """The execution running ``plan`` over ``files``; ``nonce`` defaults to a fresh one
    (``nonce_of`` reads it back)."""
    nonce = nonce if nonce is not None else secrets.token_hex(16)
    if not nonce or any(c.isspace() for c in nonce):
        raise ValueError("a nonce must be a non-empty word")
    return Execution(
        program=RUNNER,
        files=dict(files),
        stdin=f"{nonce}\n{plan.model_dump_json()}\n",
        limits=limits,
    )


def nonce_of(execution: Execution) -> str:
    """The nonce an execution built by ``execution`` gives the runner."""
    return execution.stdin.partition("\n")[0]


def read_report(result: ExecResult, nonce: str) -> PlanReport:
    """The runner's records in ``result.stdout`` (a truncated stream loses its last line).

    Raises ``PlanRunnerError`` when the runner refused the plan."""
    lines = result.stdout.splitlines()
    if result.truncated and lines:
        lines = lines[:-1]
    records: list[Record] = []
    hints: list[Record] = []
    malformed: str | None = None
    for text in lines:
        if not text.startswith("{"):
            continue
        try:
            raw = json.loads(text)
        except ValueError:
            continue
        if type(raw) is not dict:
            continue
        sealed = raw.get("token") == nonce
        try:
            record = _RECORD.validate_python(raw)
        except ValidationError as exc:
            if sealed and malformed is None:
                malformed = f"a report line is not a record: {_first_error(exc)}"
            continue
        (records if sealed else hints).append(record)
    for record in records:
        if isinstance(record, PlanRejected):
            raise PlanRunnerError(record.detail)
    return PlanReport(records=tuple(records), hints=tuple(hints), malformed=malformed)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"])
    return f"{where}: {error['msg']}"[:200]
