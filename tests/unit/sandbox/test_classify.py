"""Classification from observations, record parsing and the capped reader (no processes)."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from specverdict.sandbox._capture import CappedReader
from specverdict.sandbox._classify import (
    MAX_VIOLATIONS,
    SideRecords,
    Status,
    classify,
    exception_from_stderr,
    parse_side,
    parse_status,
)
from specverdict.sandbox.base import Limits

LIMITS = Limits(cpu_s=2, address_space_mb=100)
NO_SIDE = SideRecords((), None, None)


def status(
    exit_code: int | None = None,
    sig: int | None = None,
    cpu: float = 0.1,
    rss_kb: int = 10_000,
    tampered: bool = False,
    alarm: bool = False,
) -> Status:
    return Status(exit_code, sig, cpu, rss_kb, tampered, alarm)


def verdict(st: Status | None, side: SideRecords = NO_SIDE, timed_out: bool = False, **kw: str):
    return classify(
        status=st,
        side=side,
        timed_out=timed_out,
        leader_end=kw.get("leader_end"),
        stderr=kw.get("stderr", ""),
        limits=LIMITS,
    )


def test_parse_status_line() -> None:
    got = parse_status(b"\nL exit 0\nX signal 9 cpu 2.0100 rss_kb 512 tampered 1 alarm 0\n")
    assert got == Status(None, 9, 2.01, 512, True, False)
    assert parse_status(b"X exit 3 tampered 0 alarm 1\n") == Status(
        3, None, None, None, False, True
    )
    assert parse_status(b"L signal 9\n") is None
    assert parse_status(b"X exit three\n") is None


def test_parse_side_ignores_junk_and_keeps_the_last_exception() -> None:
    data = b"junkV nope\n\nE MemoryError\nV writing /x\n\nV writing /x\nXX\n\nE ValueError\nS bad\n"
    side = parse_side(data, overflowed=False)
    assert side == SideRecords(("writing /x",), "ValueError", "bad")


def test_parse_side_caps_violations_and_flags_overflow() -> None:
    data = b"".join(f"\nV thing {i}\n".encode() for i in range(MAX_VIOLATIONS + 5))
    side = parse_side(data, overflowed=True)
    assert len(side.violations) == MAX_VIOLATIONS + 2
    assert side.violations[-2:] == ("... and 5 more", "side channel flooded")


def test_violation_wins_over_everything() -> None:
    side = SideRecords(("os.fork",), None, None)
    v = verdict(status(exit_code=0), side, timed_out=True)
    assert (v.outcome, v.detail, v.violations) == ("sandbox_violation", "os.fork", ("os.fork",))


def test_tampered_status_is_a_violation() -> None:
    v = verdict(status(exit_code=0, tampered=True))
    assert (v.outcome, v.violations) == ("sandbox_violation", ("side channel closed or replaced",))


@pytest.mark.parametrize(
    ("st", "side", "stderr", "expected"),
    [
        (status(exit_code=0), NO_SIDE, "", ("passed", None)),
        (
            status(exit_code=1),
            SideRecords((), None, "SyntaxError: x"),
            "",
            ("syntax_error", "SyntaxError: x"),
        ),
        (status(exit_code=1), SideRecords((), "MemoryError", None), "", ("oom", "MemoryError")),
        (status(exit_code=1), SideRecords((), "KeyError", None), "", ("error", "KeyError")),
        (
            status(exit_code=1),
            NO_SIDE,
            "Traceback (most recent call last):\n  x\nIndexError: i\n",
            ("error", "IndexError"),
        ),
        (
            status(exit_code=1),
            NO_SIDE,
            "Traceback (most recent call last):\nMemoryError\n",
            ("oom", "MemoryError"),
        ),
        (status(exit_code=4), NO_SIDE, "IndexError: not a traceback\n", ("error", "exit status 4")),
        (status(sig=signal.SIGXCPU), NO_SIDE, "", ("timeout", "CPU time limit 2 s")),
        (status(sig=signal.SIGKILL, cpu=2.0), NO_SIDE, "", ("timeout", "CPU time limit 2 s")),
        (
            status(sig=signal.SIGKILL, rss_kb=90 * 1024),
            NO_SIDE,
            "",
            ("oom", "killed at 90 MiB resident"),
        ),
        (status(sig=signal.SIGKILL), NO_SIDE, "", ("killed", "SIGKILL")),
        (status(sig=signal.SIGSEGV), NO_SIDE, "", ("killed", "SIGSEGV")),
        (
            status(exit_code=None, alarm=True),
            NO_SIDE,
            "",
            ("timeout", "wall clock limit 10 s (init)"),
        ),
    ],
)
def test_outcomes(
    st: Status, side: SideRecords, stderr: str, expected: tuple[str, str | None]
) -> None:
    v = verdict(st, side, stderr=stderr)
    assert (v.outcome, v.detail) == expected


def test_wall_timeout_and_missing_status() -> None:
    assert verdict(None, timed_out=True).outcome == "timeout"
    v = verdict(None, leader_end="signal 9")
    assert (v.outcome, v.detail) == (
        "killed",
        "sandbox init ended without a status (killed by SIGKILL)",
    )


def test_exception_from_stderr_needs_a_traceback() -> None:
    assert (
        exception_from_stderr("Traceback (most recent call last):\n  f\nos.error: x\n")
        == "os.error"
    )
    assert exception_from_stderr("ValueError: x\n") is None
    assert exception_from_stderr("") is None


def test_capped_reader_keeps_the_cap_and_closes_the_pipe() -> None:
    r, w = os.pipe()
    reader = CappedReader({"out": (r, 10)})

    def write() -> None:
        try:
            for _ in range(1000):
                os.write(w, b"0123456789" * 100)
        except BrokenPipeError:
            pass
        finally:
            os.close(w)

    writer = threading.Thread(target=write)
    writer.start()
    assert reader.pump(time.monotonic() + 5.0)
    writer.join(5.0)
    assert not writer.is_alive()  # the writer saw the closed pipe instead of blocking
    assert bytes(reader["out"].data) == b"0123456789"
    assert reader["out"].overflowed
    reader.close()


def test_capped_reader_deadline_and_exact_cap() -> None:
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    reader = CappedReader({"a": (r1, 4), "b": (r2, 4)})
    os.write(w1, b"abcd")
    os.close(w1)
    assert not reader.pump(time.monotonic() + 0.2)  # "b" is still open
    assert bytes(reader["a"].data) == b"abcd" and not reader["a"].overflowed
    os.close(w2)
    assert reader.pump(time.monotonic() + 1.0)
    reader.close()
