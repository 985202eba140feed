"""From what was observed of one execution to an ``Outcome`` (pure functions, no I/O).

Trust: the *status* record comes from the sandbox's init process, which never runs untrusted
code; the *side channel* is shared with the untrusted program, so what it says can only add
violations or name an error's type, never turn a failure into ``passed``.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

from specverdict.sandbox.base import Limits, Outcome

#: Violations kept per execution (the rest are counted in the last entry).
MAX_VIOLATIONS = 20
#: A SIGKILL that is neither ours nor the CPU limit's is put down to memory when the process's
#: peak resident size reached this fraction of the address-space limit.
OOM_RSS_FRACTION = 0.5
_MEMORY_ERRORS = frozenset({"MemoryError"})
_TRACEBACK_LAST = re.compile(r"^([A-Za-z_][\w.]*)(?::|$)")


@dataclass(frozen=True, slots=True)
class Status:
    """The init's report on the program process."""

    exit_code: int | None
    signal: int | None
    cpu_s: float | None
    rss_kb: int | None
    tampered: bool
    alarm: bool


@dataclass(frozen=True, slots=True)
class SideRecords:
    """What the side channel said (untrusted: junk lines are ignored)."""

    violations: tuple[str, ...]
    exception: str | None
    syntax_error: str | None


def parse_status(data: bytes) -> Status | None:
    """The status line ``X exit N|signal N|lost [cpu S rss_kb K] tampered T alarm A``."""
    for raw in data.splitlines():
        parts = raw.decode("ascii", "replace").split()
        if not parts or parts[0] != "X":
            continue
        fields = dict(zip(parts[1::2], parts[2::2], strict=False))
        try:
            return Status(
                exit_code=int(fields["exit"]) if "exit" in fields else None,
                signal=int(fields["signal"]) if "signal" in fields else None,
                cpu_s=float(fields["cpu"]) if "cpu" in fields else None,
                rss_kb=int(fields["rss_kb"]) if "rss_kb" in fields else None,
                tampered=fields.get("tampered") == "1",
                alarm=fields.get("alarm") == "1",
            )
        except ValueError:
            return None
    return None


def parse_side(data: bytes, overflowed: bool) -> SideRecords:
    """Violations (in order, deduplicated), the last exception type and syntax error message."""
    violations: list[str] = []
    dropped = 0
    exception: str | None = None
    syntax: str | None = None
    for raw in data.split(b"\n"):
        if len(raw) < 3 or raw[1:2] != b" ":
            continue
        kind, text = raw[:1], raw[2:].decode("utf-8", "replace").strip()
        if not text:
            continue
        if kind == b"V":
            if text in violations:
                continue
            if len(violations) < MAX_VIOLATIONS:
                violations.append(text)
            else:
                dropped += 1
        elif kind == b"E":
            exception = text.split()[0][:200]
        elif kind == b"S":
            syntax = text
    if dropped:
        violations.append(f"... and {dropped} more")
    if overflowed:
        violations.append("side channel flooded")
    return SideRecords(tuple(violations), exception, syntax)


def exception_from_stderr(stderr: str) -> str | None:
    """The exception type on a traceback's last line, when stderr ends with a traceback."""
    lines = [line for line in stderr.rstrip().splitlines() if line.strip()]
    if not lines or "Traceback (most recent call last):" not in stderr:
        return None
    match = _TRACEBACK_LAST.match(lines[-1])
    return match.group(1) if match else None


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    detail: str | None
    exit_code: int | None
    violations: tuple[str, ...]


def classify(
    *,
    status: Status | None,
    side: SideRecords,
    timed_out: bool,
    leader_end: str | None,
    stderr: str,
    limits: Limits,
) -> Verdict:
    """The outcome, in this order of precedence: violation, wall timeout, the program's end.

    ``leader_end`` is how the init ended as its parent saw it (``"signal 9"``, ``"exit 1"``);
    it matters only when the init sent no status.
    """
    violations = side.violations
    if status is not None and status.tampered:
        violations = (*violations, "side channel closed or replaced")
    exit_code = status.exit_code if status is not None else None
    if violations:
        return Verdict("sandbox_violation", violations[0], exit_code, violations)
    if timed_out:
        return Verdict("timeout", f"wall clock limit {limits.wall_s:g} s", exit_code, ())
    if status is None:
        how = leader_end or "unknown"
        parts = how.split()
        if len(parts) == 2 and parts[0] == "signal" and parts[1].isdigit():
            how = f"killed by {signal_name(int(parts[1]))}"
        return Verdict("killed", f"sandbox init ended without a status ({how})", None, ())
    if status.alarm:
        return Verdict("timeout", f"wall clock limit {limits.wall_s:g} s (init)", exit_code, ())
    if status.signal is not None:
        return _by_signal(status, limits)
    if exit_code is None:
        return Verdict("killed", "sandbox init lost the program process", None, ())
    if exit_code == 0:
        return Verdict("passed", None, 0, ())
    if side.syntax_error is not None:
        return Verdict("syntax_error", side.syntax_error, exit_code, ())
    exception = side.exception or exception_from_stderr(stderr)
    if exception in _MEMORY_ERRORS:
        return Verdict("oom", exception, exit_code, ())
    if exception is not None:
        return Verdict("error", exception, exit_code, ())
    return Verdict("error", f"exit status {exit_code}", exit_code, ())


def _by_signal(status: Status, limits: Limits) -> Verdict:
    signum = status.signal
    assert signum is not None
    cpu_spent = status.cpu_s is not None and status.cpu_s >= limits.cpu_s - 0.05
    if signum == signal.SIGXCPU or (signum == signal.SIGKILL and cpu_spent):
        return Verdict("timeout", f"CPU time limit {limits.cpu_s} s", None, ())
    if signum == signal.SIGKILL and status.rss_kb is not None:
        limit_kb = limits.address_space_mb * 1024
        if status.rss_kb >= OOM_RSS_FRACTION * limit_kb:
            return Verdict("oom", f"killed at {status.rss_kb // 1024} MiB resident", None, ())
    return Verdict("killed", signal_name(signum), None, ())
