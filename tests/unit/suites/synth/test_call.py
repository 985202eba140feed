"""``lab.synth.functions.call``: a mutated function's call ends on a count of line events (the
same on every host) or on this thread's CPU time where its lines grow costly, with no signal."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

import pytest

from specverdict.lab.synth.functions import CallTimeoutError, call


def _function(source: str, name: str = "f") -> Any:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    return namespace[name]


#: a loop of ``n`` passes: ``2 * n + 2`` line events (the test once more than the passes, the
#: return)
COUNTED = """
def f(n):
    while n > 0:
        n -= 1
    return n
"""


def test_a_call_ends_on_its_count_of_line_events_and_not_before() -> None:
    f = _function(COUNTED)
    lines = 2 * 500 + 2
    assert call(f, (500,), budget_s=60.0, lines=lines) == 0
    with pytest.raises(CallTimeoutError):
        call(f, (501,), budget_s=60.0, lines=lines)


def test_a_loop_that_never_ends_is_stopped_even_where_it_catches_every_exception() -> None:
    f = _function(
        """
def f(value):
    while True:
        try:
            value = 3 + value + 1
        except Exception:
            pass
"""
    )
    began = time.thread_time()
    with pytest.raises(CallTimeoutError):
        call(f, (6,), budget_s=60.0)
    assert time.thread_time() - began < 10.0


def test_lines_that_grow_costly_are_stopped_by_cpu_time_within_a_line() -> None:
    f = _function(
        """
def f(text):
    for _ in range(100):
        text = text + text
    return len(text)
"""
    )
    with pytest.raises(CallTimeoutError):
        call(f, ("ab",), budget_s=0.05)  # 2 ** 101 characters if nothing stopped it


def test_a_call_from_another_thread_is_stopped_and_the_tracer_is_put_back() -> None:
    """A signal's handler runs on the main thread only: a budget kept by a signal could not
    stop a call made on another thread, nor one whose timer signal reached another thread."""
    f = _function(COUNTED)
    outcome: list[str] = []

    def run() -> None:
        try:
            call(f, (10**9,))
            outcome.append("returned")
        except CallTimeoutError:
            outcome.append("stopped")

    worker = threading.Thread(target=run)
    before = sys.gettrace()
    worker.start()
    worker.join(timeout=60)
    assert outcome == ["stopped"]
    with pytest.raises(CallTimeoutError):
        call(f, (10**9,))
    assert sys.gettrace() is before


def test_time_waited_is_not_spent() -> None:
    """CPU time, not wall time: on a loaded host a wall-clock budget fired inside ordinary
    calls (a call descheduled for its budget is no longer for it)."""
    f = _function("import time\n\ndef f(wait):\n    time.sleep(wait)\n    return wait\n")
    assert call(f, (0.2,), budget_s=0.05) == 0.2
