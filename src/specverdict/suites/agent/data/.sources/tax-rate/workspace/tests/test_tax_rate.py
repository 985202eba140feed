from shop.prices import with_tax


def test_tax():
    assert with_tax(10.0) == 12.0
