from distance.factors import METRES


def convert(value, source, target):
    """``value`` in unit ``source`` expressed in unit ``target``."""
    for unit in (source, target):
        if unit not in METRES:
            raise ValueError(f"unknown unit {unit!r}")
    return value * METRES[target] / METRES[source]
