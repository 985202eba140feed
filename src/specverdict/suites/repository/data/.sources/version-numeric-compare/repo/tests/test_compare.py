from versions.compare import compare


def test_simple():
    assert compare("1.2", "1.3") == -1
    assert compare("2.0", "2.0") == 0
    assert compare("3.1", "2.9") == 1
