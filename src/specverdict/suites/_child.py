"""The harness program run inside the sandbox (standard library only, run as ``__main__``).

It reads ``job.json`` and ``solution.py`` from its working directory, defines the solution in a
namespace of its own (``__name__ == "solution"``, so a ``__main__`` block does not run), and
then, in ``call`` mode, calls the entry point once per input under a per-input time limit; in
``record`` mode it runs a dataset's ``check`` function with a recording stand-in for the
candidate, to learn the inputs that ``check`` builds at run time.

Protocol: one JSON object per line on the original standard output (file descriptor 1 is
duplicated first; the solution's own prints and anything written to fd 1 afterwards go to
/dev/null). The parent believes none of it blindly: outputs are re-parsed strictly and compared
with expected values this process never sees.
"""

import builtins
import json
import os
import signal
import sys
import time
from typing import Any

OUT_FD = os.dup(1)


def _silence() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    sink = open(os.devnull, "w")  # noqa: SIM115 - kept open for the life of the process
    sys.stdout = sys.stderr = sink
    sys.stdin = open(os.devnull)  # noqa: SIM115


def emit(obj: object) -> None:
    data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    while data:
        data = data[os.write(OUT_FD, data) :]


class Deadline(BaseException):
    """Raised by the alarm; a BaseException so that ``except Exception`` cannot swallow it."""


def _alarm(signum: int, frame: object) -> None:
    raise Deadline()


class OutputTooLargeError(Exception):
    pass


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
        return [t.__name__, [encode(v, budget, depth + 1) for v in value]]
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
        return [decode(v) for v in payload]
    if tag == "tuple":
        return tuple(decode(v) for v in payload)
    if tag == "set":
        return {decode(v) for v in payload}
    if tag == "frozenset":
        return frozenset(decode(v) for v in payload)
    if tag == "dict":
        return {decode(k): decode(v) for k, v in payload}
    raise ValueError(tag)


def _message(exc: BaseException) -> str:
    try:
        return str(exc)[:300]
    except BaseException:
        return ""


def define(source: str, limit: float) -> dict[str, Any] | None:
    """Compile and run the solution; None after reporting why it could not be defined."""
    try:
        code = compile(source, "solution.py", "exec")
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        emit(
            {
                "event": "syntax_error",
                "type": type(exc).__name__,
                "detail": _message(exc),
                "line": line,
            }
        )
        return None
    namespace: dict[str, Any] = {"__name__": "solution", "__builtins__": builtins}
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        try:
            exec(code, namespace)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except Deadline:
        emit(
            {
                "event": "definition_error",
                "type": "Timeout",
                "detail": "defining the solution took too long",
            }
        )
        return None
    except BaseException as exc:
        emit({"event": "definition_error", "type": type(exc).__name__, "detail": _message(exc)})
        return None
    return namespace


def call_inputs(namespace: dict[str, Any], job: dict[str, Any]) -> None:
    entry = job["entry_point"]
    fn = namespace.get(entry)
    if not callable(fn):
        emit(
            {
                "event": "definition_error",
                "type": "MissingEntryPoint",
                "detail": f"no function {entry!r} defined",
            }
        )
        return
    emit({"event": "defined"})
    max_nodes = job["max_nodes"]
    began = time.perf_counter()
    for i, (raw, limit) in enumerate(zip(job["inputs"], job["limits"], strict=True)):
        args = decode(raw)
        result: dict[str, Any] = {"i": i}
        start = time.perf_counter()
        try:
            signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                out = fn(*args)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            elapsed = time.perf_counter() - start
            if elapsed > limit:
                result.update(status="timeout", t=elapsed)
            else:
                result.update(status="ok", t=elapsed, out=safe_encode(out, max_nodes))
        except Deadline:
            result.update(status="timeout", t=time.perf_counter() - start)
        except BaseException as exc:
            result.update(status="exception", type=type(exc).__name__, detail=_message(exc))
            result["t"] = time.perf_counter() - start
        emit(result)
        if result["status"] == "timeout" and job["stop_on_timeout"]:
            return
        if time.perf_counter() - began > job["budget_s"]:
            emit({"event": "budget_spent"})
            return


def record_inputs(namespace: dict[str, Any], job: dict[str, Any]) -> None:
    """Run ``check(candidate)`` with a stand-in that records each call's arguments."""
    import random

    entry = namespace[job["entry_point"]]
    max_nodes = job["max_nodes"]

    def candidate(*args: object) -> object:
        emit({"record": safe_encode(list(args), max_nodes)})
        return entry(*args)

    random.seed(job["record_seed"])
    namespace["check"](candidate)
    emit({"event": "recorded"})


def main() -> None:
    with open("job.json") as f:
        job = json.load(f)
    with open("solution.py") as f:
        source = f.read()
    _silence()
    signal.signal(signal.SIGALRM, _alarm)
    namespace = define(source, job["define_limit"])
    if namespace is not None:
        if job["mode"] == "record":
            record_inputs(namespace, job)
        else:
            call_inputs(namespace, job)
    emit({"event": "done"})
    os._exit(0)


if __name__ == "__main__":
    main()
