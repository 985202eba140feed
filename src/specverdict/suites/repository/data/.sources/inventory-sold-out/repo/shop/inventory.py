"""Stock keeping."""


class Inventory:
    def __init__(self):
        self._stock = {}

    def add(self, item, quantity=1):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self._stock[item] = self._stock.get(item, 0) + quantity

    def remove(self, item, quantity=1):
        have = self._stock.get(item, 0)
        if quantity > have:
            raise KeyError(f"not enough {item!r} in stock")
        self._stock[item] = have - quantity

    def items(self):
        """Items in stock, sorted by name."""
        return sorted(self._stock)

    def quantity(self, item):
        return self._stock.get(item, 0)
