from shop.config import TAX_RATE


def with_tax(price):
    return round(price * (1 + TAX_RATE), 2)
