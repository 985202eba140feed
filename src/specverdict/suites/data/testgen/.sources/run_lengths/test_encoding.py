from encoding import run_lengths


def test_runs():
    assert run_lengths("aaabcc") == [("a", 3), ("b", 1), ("c", 2)]


def test_alternating_and_empty():
    assert run_lengths("aba") == [("a", 1), ("b", 1), ("a", 1)]
    assert run_lengths("") == []
