from bank.account import Account
from bank.transfer import transfer


def test_deposit_and_withdraw():
    acc = Account("ann", 10)
    acc.deposit(5)
    acc.withdraw(12)
    assert acc.balance == 3
    assert acc.history == [("deposit", 5), ("withdraw", 12)]


def test_transfer():
    a, b = Account("a", 10), Account("b")
    transfer(a, b, 4)
    assert (a.balance, b.balance) == (6, 4)
