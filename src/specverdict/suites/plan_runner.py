"""The trusted program that runs a test plan inside the sandbox (standard library only).

The parent ships this file's text as the execution's program (``testplan.execution``); the
sandbox runs it as ``__main__`` in the execution's directory, next to the program under test.
The package may import it (its unit tests do); nothing runs then.

Standard input holds two lines: a fresh random nonce, then the plan as JSON (``testplan`` in
the parent describes it). Both are read straight from descriptor 0, which is then pointed at
``/dev/null`` before any code under test runs: the nonce lives on only in this process's local
variables and closures, never in a file, descriptor, argument or the environment.

Report: one JSON object per line on a private duplicate of descriptor 1, every object
``{"event": ..., "token": <nonce>, ...}``. The code under test shares descriptor 1 (unless the
plan is ``quiet``) and can print anything, but not the nonce, so the parent ignores every line
without it. With ``"seal": "pass"`` only the record that claims the whole plan passed
(``all_passed``) carries the nonce; the others carry none and can only choose how a run failed.

Plans (``kind``):

- ``call``: define ``source`` in a namespace of its own (``__name__`` is ``module_name``, so a
  ``__main__`` block does not run) under a time limit, then call ``entry_point`` once per input
  (tagged values, see ``specverdict.suites.values``) under a per-input time limit; outputs go
  back tagged.
- ``record``: define ``source`` (trusted: a reference and a dataset's ``check``) and run
  ``check(candidate)`` with a stand-in that records each call's arguments.
- ``tests``: load test sources (``import`` a module by name, load a ``file`` by path, or compile
  a ``namespace`` from a file), optionally rebind names in the namespaces to a module's objects,
  then run the named tests or every collected one, each reported as ``pass``, ``fail`` (an
  ``AssertionError``), ``error``, ``skip`` or ``timeout``.

A malformed plan is reported as ``plan_error`` (sealed) and on standard error; the process then
exits with status 2. The module-level ``emit`` is not the report's writer: code under test that
calls it (to forge results) only gets the report marked ``interference``, a protocol break.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.util
import json
import os
import re
import signal
import sys
import time
import types
import unittest
from collections.abc import Callable, Mapping
from typing import Any

#: Exit status after a malformed plan.
PLAN_ERROR_EXIT = 2
#: Characters kept of an exception's message.
DETAIL_CHARS = 300
# CO_GENERATOR, CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR: not plain tests
NOT_PLAIN = 0x20 | 0x80 | 0x100 | 0x200
#: the line of a traceback that names the exception
ERROR_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b")

Record = dict[str, Any]
Writer = Callable[[Record], None]


class PlanError(ValueError):
    """The plan does not follow its schema."""


class Deadline(BaseException):
    """Raised by the alarm; a BaseException so that ``except Exception`` cannot swallow it."""


class OutputTooLargeError(Exception):
    pass


# -- the plan ----------------------------------------------------------------------------------
def _field(plan: Mapping[str, Any], name: str, kinds: tuple[type, ...], where: str) -> Any:
    if name not in plan:
        raise PlanError(f"{where}: missing {name!r}")
    value = plan[name]
    if type(value) not in kinds:
        wanted = " or ".join(k.__name__ for k in kinds)
        raise PlanError(f"{where}: {name!r} must be {wanted}, not {type(value).__name__}")
    return value


def _number(plan: Mapping[str, Any], name: str, where: str, optional: bool = False) -> Any:
    if optional and plan.get(name) is None:
        return None
    value = _field(plan, name, (int, float), where)
    if value < 0:
        raise PlanError(f"{where}: {name!r} must not be negative")
    return float(value)


def _strings(plan: Mapping[str, Any], name: str, where: str) -> list[str]:
    values = _field(plan, name, (list,), where)
    if not all(type(v) is str for v in values):
        raise PlanError(f"{where}: {name!r} must be a list of strings")
    return list(values)


def check_plan(plan: object) -> dict[str, Any]:
    """The plan, when it follows the schema; ``PlanError`` saying what is wrong otherwise."""
    if type(plan) is not dict:
        raise PlanError("the plan must be a JSON object")
    kind = _field(plan, "kind", (str,), "plan")
    _field(plan, "quiet", (bool,), "plan")
    if _field(plan, "seal", (str,), "plan") not in ("every", "pass"):
        raise PlanError("plan: 'seal' must be 'every' or 'pass'")
    if kind in ("call", "record"):
        _field(plan, "source", (str,), kind)
        _field(plan, "entry_point", (str,), kind)
        _field(plan, "module_name", (str,), kind)
        _number(plan, "define_limit_s", kind)
        _field(plan, "max_nodes", (int,), kind)
    if kind == "call":
        inputs = _field(plan, "inputs", (list,), kind)
        limits = _field(plan, "limits", (list,), kind)
        if len(inputs) != len(limits):
            raise PlanError("call: 'inputs' and 'limits' differ in length")
        if not all(type(v) in (int, float) for v in limits):
            raise PlanError("call: 'limits' must be numbers")
        _field(plan, "stop_on_timeout", (bool,), kind)
        _number(plan, "budget_s", kind)
    elif kind == "record":
        _field(plan, "seed", (int,), kind)
    elif kind == "tests":
        _check_tests(plan)
    else:
        raise PlanError(f"plan: unknown kind {kind!r}")
    return plan


def _check_tests(plan: Mapping[str, Any]) -> None:
    loads = _field(plan, "load", (list,), "tests")
    for n, load in enumerate(loads):
        where = f"tests: load[{n}]"
        if type(load) is not dict:
            raise PlanError(f"{where} must be an object")
        if _field(load, "how", (str,), where) not in ("import", "file", "namespace"):
            raise PlanError(f"{where}: 'how' must be 'import', 'file' or 'namespace'")
        _field(load, "target", (str,), where)
        if load["how"] == "namespace":
            _field(load, "name", (str,), where)
    bind = plan.get("bind")
    if bind is not None:
        if type(bind) is not dict:
            raise PlanError("tests: 'bind' must be an object or null")
        _field(bind, "module", (str,), "tests: bind")
        _strings(bind, "names", "tests: bind")
    select = _field(plan, "select", (dict,), "tests")
    if "names" in select:
        _strings(select, "names", "tests: select")
    else:
        _field(select, "prefix", (str,), "tests: select")
        if _field(select, "order", (str,), "tests: select") not in ("name", "definition"):
            raise PlanError("tests: select: 'order' must be 'name' or 'definition'")
        _field(select, "functions_only", (bool,), "tests: select")
    if plan.get("max_reported") is not None:
        _field(plan, "max_reported", (int,), "tests")
    _number(plan, "test_limit_s", "tests", optional=True)
    _field(plan, "summary", (bool,), "tests")


# -- the report --------------------------------------------------------------------------------
def writer(fd: int, nonce: str, seal: str) -> Writer:
    """A function writing one record per line on ``fd``, sealed as ``seal`` says."""
    write = os.write

    def emit_record(record: Record) -> None:
        sealed = seal == "every" or record.get("event") in ("all_passed", "plan_error")
        line = {"event": record["event"], "token": nonce if sealed else None}
        line.update((k, v) for k, v in record.items() if k != "event")
        data = ("\n" + json.dumps(line) + "\n").encode("utf-8", "replace")
        while data:
            data = data[write(fd, data) :]

    return emit_record


def emit(record: object) -> None:
    """Replaced by ``main`` with a trap before code under test runs (see the docstring)."""
    raise RuntimeError("the plan runner is not running")


def _trap(write: Writer) -> Callable[[object], None]:
    def emit(record: object) -> None:
        write({"event": "interference", "detail": "the code under test called the runner"})

    return emit


def _silence() -> None:
    """Descriptors 0-2 and the standard streams to /dev/null (kept open for the process)."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sink = open(os.devnull, "w")  # noqa: SIM115
    sys.stdout = sys.stderr = sink
    sys.stdin = open(os.devnull)  # noqa: SIM115


def _read_stdin() -> bytes:
    chunks = []
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return b"".join(chunks)


def message(exc: BaseException) -> str:
    try:
        return str(exc)[:DETAIL_CHARS]
    except BaseException:
        return ""


def type_name(exc: BaseException) -> str:
    try:
        return str(type(exc).__name__)[:100]
    except BaseException:
        return "?"


def _alarm(signum: int, frame: object) -> None:
    raise Deadline()


def _bound(fn: Callable[..., Any], args: Any) -> Callable[[], Any]:
    return lambda: fn(*args)


def _limited(fn: Callable[[], Any], limit: float | None) -> Any:
    """``fn()`` under a wall-clock alarm of ``limit`` seconds (None: no alarm)."""
    if limit is None:
        return fn()
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


# -- tagged values (the grammar of ``specverdict.suites.values``) ------------------------------
def encode(value: Any, budget: list[int], depth: int = 0) -> Any:
    """Tag a value, looking only at exact built-in types (a subclass is ``unserializable``)."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 64:
        raise OutputTooLargeError()
    t = type(value)
    if value is None:
        return ["none"]
    if t is bool:
        return ["bool", value]
    if t is int:
        return ["int", int.__format__(value, "#x") if value >= 0 else "-" + format(-value, "#x")]
    if t is float:
        return ["float", float.hex(value)]
    if t is str:
        return ["str", value]
    if t is complex:
        return ["complex", [float.hex(value.real), float.hex(value.imag)]]
    if t is list or t is tuple:
        return [t.__name__, _encode_items(value, budget, depth + 1)]
    if t is set or t is frozenset:
        items = [encode(v, budget, depth + 1) for v in value]
        items.sort(key=json.dumps)
        return [t.__name__, items]
    if t is dict:
        return [
            "dict",
            [
                [encode(k, budget, depth + 1), encode(v, budget, depth + 1)]
                for k, v in value.items()
            ],
        ]
    return ["unserializable", t.__name__]


def _encode_items(items: Any, budget: list[int], depth: int) -> list[Any]:
    """``encode`` of each item, whole numbers and strings tagged here directly (long outputs
    are mostly those), each counted against ``budget`` as ``encode`` counts it."""
    out = []
    for v in items:
        t = type(v)
        if t is int or t is str:
            budget[0] -= 1
            if budget[0] < 0 or depth > 64:
                raise OutputTooLargeError()
            if t is str:
                out.append(["str", v])
            else:
                out.append(["int", int.__format__(v, "#x") if v >= 0 else "-" + format(-v, "#x")])
        else:
            out.append(encode(v, budget, depth))
    return out


def safe_encode(value: object, max_nodes: int) -> object:
    try:
        return encode(value, [max_nodes])
    except OutputTooLargeError:
        return ["unserializable", "too large"]
    except RecursionError:
        return ["unserializable", "too deep"]


def decode(obj: list[Any]) -> Any:
    tag = obj[0]
    if tag == "none":
        return None
    payload = obj[1]
    if tag in ("bool", "str"):
        return payload
    if tag == "int":
        return int(payload, 16)
    if tag == "float":
        return float.fromhex(payload)
    if tag == "complex":
        return complex(float.fromhex(payload[0]), float.fromhex(payload[1]))
    if tag == "list":
        return _decode_items(payload)
    if tag == "tuple":
        return tuple(_decode_items(payload))
    if tag == "set":
        return {decode(v) for v in payload}
    if tag == "frozenset":
        return frozenset(decode(v) for v in payload)
    if tag == "dict":
        return {decode(k): decode(v) for k, v in payload}
    raise ValueError(tag)


def _decode_items(payload: list[Any]) -> list[Any]:
    """``decode`` of each item, whole numbers and strings read here directly."""
    out = []
    for v in payload:
        tag = v[0]
        if tag == "int":
            out.append(int(v[1], 16))
        elif tag == "str":
            out.append(v[1])
        else:
            out.append(decode(v))
    return out


# -- loading code under test -------------------------------------------------------------------
def define(path: str, name: str, limit: float | None, write: Writer) -> dict[str, Any] | None:
    """Compile and run ``path`` in a namespace of its own; None after reporting why it could
    not be defined."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        write(
            {
                "event": "syntax_error",
                "source": path,
                "type": type_name(exc),
                "detail": message(exc),
                "line": line if type(line) is int else None,
            }
        )
        return None
    namespace: dict[str, Any] = {"__name__": name, "__builtins__": builtins}
    try:
        _limited(lambda: exec(code, namespace), limit)
    except Deadline:
        write(
            {
                "event": "definition_error",
                "source": path,
                "type": "Timeout",
                "detail": "defining the code took too long",
            }
        )
        return None
    except BaseException as exc:
        write(
            {
                "event": "definition_error",
                "source": path,
                "type": type_name(exc),
                "detail": message(exc),
            }
        )
        return None
    return namespace


def _load(load: Mapping[str, str], write: Writer) -> tuple[Any, BaseException | None]:
    """(module or namespace, None) or (None, why it failed, after reporting it)."""
    how, target = load["how"], load["target"]
    if how == "namespace":
        namespace = define(target, load["name"], None, write)
        return namespace, None if namespace is not None else ImportError(target)
    try:
        if how == "import":
            return importlib.import_module(target), None
        name = "_t_" + target.replace("/", "_").removesuffix(".py")
        spec = importlib.util.spec_from_file_location(name, target)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {target}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module, None
    except BaseException as exc:
        write(
            {
                "event": "definition_error",
                "source": target,
                "type": type_name(exc),
                "detail": message(exc),
            }
        )
        return None, exc


# -- the plans ---------------------------------------------------------------------------------
def run_calls(plan: Mapping[str, Any], write: Writer) -> None:
    namespace = define(plan["source"], plan["module_name"], plan["define_limit_s"], write)
    if namespace is None:
        return
    entry = plan["entry_point"]
    fn = namespace.get(entry)
    if not callable(fn):
        write(
            {
                "event": "definition_error",
                "source": plan["source"],
                "type": "MissingEntryPoint",
                "detail": f"no function {entry!r} defined",
            }
        )
        return
    write({"event": "defined", "source": plan["source"]})
    max_nodes = plan["max_nodes"]
    began = time.perf_counter()
    for i, (raw, limit) in enumerate(zip(plan["inputs"], plan["limits"], strict=True)):
        args = decode(raw)
        result: Record = {"event": "call", "i": i}
        start = time.perf_counter()
        try:
            out = _limited(_bound(fn, args), limit)
            elapsed = time.perf_counter() - start
            if elapsed > limit:
                result.update(status="timeout", t=elapsed)
            else:
                result.update(status="ok", t=elapsed, out=safe_encode(out, max_nodes))
        except Deadline:
            result.update(status="timeout", t=time.perf_counter() - start)
        except BaseException as exc:
            result.update(status="exception", type=type_name(exc), detail=message(exc))
            result["t"] = time.perf_counter() - start
        write(result)
        if result["status"] == "timeout" and plan["stop_on_timeout"]:
            return
        if time.perf_counter() - began > plan["budget_s"]:
            write({"event": "budget_spent"})
            return


def run_record(plan: Mapping[str, Any], write: Writer) -> None:
    """Run ``check(candidate)`` with a stand-in that records each call's arguments."""
    import random

    namespace = define(plan["source"], plan["module_name"], plan["define_limit_s"], write)
    if namespace is None:
        return
    entry = namespace[plan["entry_point"]]
    max_nodes = plan["max_nodes"]

    def candidate(*args: object) -> object:
        write({"event": "record", "args": safe_encode(list(args), max_nodes)})
        return entry(*args)

    random.seed(plan["seed"])
    namespace["check"](candidate)
    write({"event": "recorded"})


def _failure(exc: BaseException) -> tuple[str, str, str]:
    status = "fail" if isinstance(exc, AssertionError) else "error"
    return status, type_name(exc), message(exc)


def run_named(owner: Any, name: str) -> tuple[str, str | None, str] | None:
    """Call test ``name`` of a module (a function, or ``Class.method``); a unittest case runs
    through unittest and its failures come back as a (status, type, detail) triple; None when
    it passed."""
    if isinstance(owner, dict):
        owner = types.SimpleNamespace(**owner)
    cls_name, _, method = name.rpartition(".")
    if not cls_name:
        getattr(owner, name)()
        return None
    cls = getattr(owner, cls_name)
    if isinstance(cls, type) and issubclass(cls, unittest.TestCase):
        result = unittest.TestResult()
        cls(method).run(result)
        for status, found in (("fail", result.failures), ("error", result.errors)):
            if found:
                lines = found[0][1].strip().splitlines() or ["?"]
                named = [line for line in lines if ERROR_LINE.match(line)]
                kind, _, detail = (named or lines)[-1].partition(": ")
                return status, kind, detail[:DETAIL_CHARS]
        if result.skipped or result.testsRun != 1:
            return "skip", None, "skipped"
        return None
    instance = cls()
    for hook in ("setUp", "setup_method"):
        if hasattr(instance, hook):
            getattr(instance, hook)()
    getattr(instance, method)()
    return None


def collect(owner: Any, select: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The (name, test) pairs of a module or namespace the selection takes."""
    items = dict(owner) if isinstance(owner, dict) else dict(vars(owner))
    names = sorted(items) if select["order"] == "name" else list(items)
    found = []
    for name in names:
        fn = items[name]
        if not name.startswith(select["prefix"]):
            continue
        if select["functions_only"] and type(fn) is not types.FunctionType:
            continue
        if callable(fn):
            found.append((name, fn))
    return found


def _run_one(
    fn: Callable[[], Any], plain: bool, limit: float | None
) -> tuple[str, str | None, str] | None:
    """Call one collected test; with ``plain``, a generator or coroutine function is refused."""
    if plain and fn.__code__.co_flags & NOT_PLAIN:
        return "error", "TypeError", "not a plain test function"
    _limited(fn, limit)
    return None


def run_tests(plan: Mapping[str, Any], write: Writer) -> None:
    bind = plan.get("bind")
    # The module whose names are rebound is imported first (a failure there is the runner's).
    source = importlib.import_module(bind["module"]) if bind is not None else None
    loaded: list[tuple[str, Any, BaseException | None]] = []
    for load in plan["load"]:
        owner, why = _load(load, write)
        loaded.append((load["target"], owner, why))
    if bind is not None:
        for _, owner, _ in loaded:
            if isinstance(owner, dict):
                for name in bind["names"]:
                    owner[name] = getattr(source, name)
    select, limit = plan["select"], plan.get("test_limit_s")
    cap = plan.get("max_reported")
    tests = failed = 0
    for target, owner, why in loaded:
        if "names" in select:
            chosen: list[tuple[str, Any]] = [(name, None) for name in select["names"]]
        elif owner is None:
            continue
        else:
            chosen = collect(owner, select)
        for name, fn in chosen:
            tests += 1
            outcome: tuple[str, str | None, str] | None
            try:
                if why is not None:
                    outcome = _failure(why)
                elif fn is None:
                    outcome = _limited(_bound(run_named, (owner, name)), limit)
                else:
                    outcome = _run_one(fn, select.get("functions_only") is True, limit)
            except Deadline:
                outcome = "timeout", "Timeout", f"over the test time limit of {limit:g} s"
            except BaseException as exc:
                outcome = _failure(exc)
            with contextlib.suppress(BaseException):
                sys.stdout.flush()
            status, kind, detail = outcome or ("pass", None, "")
            if status != "pass":
                failed += 1
                if cap is not None and failed > cap:
                    continue
            write(
                {
                    "event": "test",
                    "source": target,
                    "test": name,
                    "status": status,
                    "type": kind,
                    "detail": detail,
                }
            )
    if plan["summary"]:
        if tests and not failed and all(why is None for _, _, why in loaded):
            write({"event": "all_passed", "tests": tests})
        else:
            write({"event": "finished", "tests": tests, "failed": failed})


RUNNERS: dict[str, Callable[[Mapping[str, Any], Writer], None]] = {
    "call": run_calls,
    "record": run_record,
    "tests": run_tests,
}


def main() -> None:
    """Read the nonce and the plan, run the plan, report; never returns."""
    leave = os._exit
    nonce_line, _, plan_text = _read_stdin().partition(b"\n")
    nonce = nonce_line.decode("utf-8", "replace").strip()
    out = os.dup(1)
    try:
        plan = check_plan(json.loads(plan_text))
    except ValueError as exc:
        why = f"malformed plan: {exc}"
        writer(out, nonce, "every")({"event": "plan_error", "detail": why[:DETAIL_CHARS]})
        with contextlib.suppress(BaseException):
            print(f"plan_runner: {why}", file=sys.stderr, flush=True)
        leave(PLAN_ERROR_EXIT)
    write = writer(out, nonce, plan["seal"])
    del nonce, nonce_line
    globals()["emit"] = _trap(write)
    if plan["quiet"]:
        _silence()
    signal.signal(signal.SIGALRM, _alarm)
    RUNNERS[plan["kind"]](plan, write)
    if plan["kind"] != "tests":
        write({"event": "done"})
    with contextlib.suppress(BaseException):
        sys.stdout.flush()
    leave(0)


if __name__ == "__main__":
    main()
