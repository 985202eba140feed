from letters import count_vowels


def test_all():
    assert count_vowels('Umbrella OU') == 5
