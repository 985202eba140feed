from pager import page, page_count


def test_partial_last_page():
    assert page_count(11, 5) == 3


def test_second_page():
    assert page(list(range(7)), 2, 5) == [5, 6]
