from retrykit.backoff import delays
from retrykit.retry import retry


def test_first_delay():
    assert delays(1) == [0.5]


def test_success_first_time():
    assert retry(lambda: 7) == 7


def test_gives_up():
    calls = []

    def boom():
        calls.append(1)
        raise OSError("down")

    try:
        retry(boom, attempts=3, sleep=lambda s: None)
    except OSError:
        assert len(calls) == 3
        return
    raise AssertionError("no error")
