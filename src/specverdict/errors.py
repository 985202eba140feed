"""specverdict's exceptions.

    SpecverdictError            a problem the user can fix: printed as one line, exit code 2
    ├── ConfigError             a campaign file or flag is invalid (names file, key, expected)
    └── EngineStartError        an engine did not come up (names the command and its last output)

Anything else that escapes is a bug and keeps its traceback.
"""


class SpecverdictError(Exception):
    """Base of user-fixable errors."""


class ConfigError(SpecverdictError):
    pass


class EngineStartError(SpecverdictError):
    pass
