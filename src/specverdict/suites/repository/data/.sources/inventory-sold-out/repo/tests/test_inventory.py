from shop.inventory import Inventory
from shop.report import stock_report


def test_add_and_remove():
    inv = Inventory()
    inv.add("pear", 3)
    inv.remove("pear")
    assert inv.quantity("pear") == 2 and inv.items() == ["pear"]


def test_remove_too_many():
    inv = Inventory()
    inv.add("fig")
    try:
        inv.remove("fig", 2)
    except KeyError:
        return
    raise AssertionError("no error")


def test_report():
    inv = Inventory()
    inv.add("b", 2)
    inv.add("a")
    assert stock_report(inv) == "a: 1\nb: 2"
