from units.temperature import celsius_to_fahrenheit, fahrenheit_to_celsius


def test_f_to_c():
    assert fahrenheit_to_celsius(212) == 100
    assert fahrenheit_to_celsius(32) == 0


def test_round_trip():
    for c in (-40, 0, 37, 100):
        assert abs(fahrenheit_to_celsius(celsius_to_fahrenheit(c)) - c) < 1e-9
