from shop.inventory import Inventory
from shop.report import stock_report


def test_sold_out_disappears():
    inv = Inventory()
    inv.add("apple", 2)
    inv.add("kiwi")
    inv.remove("apple", 2)
    assert inv.items() == ["kiwi"]
    assert stock_report(inv) == "kiwi: 1"
