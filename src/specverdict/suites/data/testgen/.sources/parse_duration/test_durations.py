from durations import parse_duration


def test_valid():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("45s") == 45
    assert parse_duration("2h5s") == 7205
    assert parse_duration("90m") == 5400


def test_invalid():
    for text in ("", "5x", "1h30x", "30m1h"):
        try:
            parse_duration(text)
        except ValueError:
            continue
        raise AssertionError(text)
