from report.format import line


def test_line():
    assert line('done', 1, 4) == 'done: 25.0%'
