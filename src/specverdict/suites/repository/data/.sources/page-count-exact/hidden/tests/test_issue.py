from pager import page, page_count


def test_exact_multiple():
    assert page_count(10, 5) == 2
    assert page_count(0, 5) == 0


def test_page_past_the_end():
    try:
        page(list(range(10)), 3, 5)
    except IndexError:
        return
    raise AssertionError("page 3 of 2 returned")
