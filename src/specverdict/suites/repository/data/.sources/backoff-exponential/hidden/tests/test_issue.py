from retrykit.backoff import delays
from retrykit.retry import retry


def test_doubling():
    assert delays(4, base=1) == [1, 2, 4, 8]
    assert delays(6, base=10, cap=30) == [10, 20, 30, 30, 30, 30]


def test_retry_sleeps():
    waits, state = [], {"n": 0}

    def flaky():
        state["n"] += 1
        if state["n"] < 4:
            raise OSError("again")
        return "ok"

    assert retry(flaky, attempts=4, sleep=waits.append) == "ok"
    assert waits == [0.5, 1.0, 2.0]
