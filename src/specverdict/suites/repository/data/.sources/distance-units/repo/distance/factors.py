"""Length units."""

#: metres per unit
METRES = {"m": 1.0, "km": 1000.0, "mi": 1690.344, "ft": 0.3048}
