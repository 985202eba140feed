from settings.merge import deep_merge

DEFAULTS = {"server": {"host": "localhost", "port": 8000}, "debug": False}


def load(overrides):
    return deep_merge(DEFAULTS, overrides)
