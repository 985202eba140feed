from sizes import human_size


def test_bytes():
    assert human_size(512) == "512 B"
    assert human_size(0) == "0 B"


def test_units():
    assert human_size(1024) == "1.0 KB"
    assert human_size(1536) == "1.5 KB"
    assert human_size(1048576) == "1.0 MB"


def test_cap():
    assert human_size(5 * 1024**4) == "5120.0 GB"
