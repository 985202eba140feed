def transfer(source, target, amount):
    """Move ``amount`` from ``source`` to ``target``."""
    source.withdraw(amount)
    target.deposit(amount)
