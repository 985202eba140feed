def stock_report(inventory):
    return "\n".join(f"{item}: {inventory.quantity(item)}" for item in inventory.items())
