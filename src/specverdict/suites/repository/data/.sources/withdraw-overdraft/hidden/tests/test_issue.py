from bank.account import Account, InsufficientFunds
from bank.transfer import transfer


def test_overdraft_refused():
    acc = Account("ann", 10)
    try:
        acc.withdraw(11)
    except InsufficientFunds:
        assert acc.balance == 10 and acc.history == []
        return
    raise AssertionError("overdraft allowed")


def test_transfer_refused():
    a, b = Account("a", 3), Account("b", 1)
    try:
        transfer(a, b, 5)
    except InsufficientFunds:
        assert (a.balance, b.balance) == (3, 1)
        return
    raise AssertionError("overdraft allowed")
