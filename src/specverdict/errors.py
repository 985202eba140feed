"""specverdict's exceptions: each is printed as one line and ends the command with its
``exit_code``.

    SpecverdictError                a problem the user can fix (exit code 2)
    ├── ConfigError                 a campaign file or flag is invalid (names file, key, expected)
    │   └── PreflightError          an attached server contradicts its declared configuration
    ├── ExtraMissingError           an optional part needs an extra that is not installed (names
    │                               the extra and the install command)
    ├── EngineError                 the engine failed the run (exit code 5)
    │   ├── EngineStartError        an engine did not come up (names the command, its output)
    │   ├── EngineUnreachableError  an attached engine did not answer before a run
    │   ├── RunInterruptedError     an engine died or stopped answering mid-run; samples saved
    │   └── RunFailedError          more of a run's requests failed than the campaign allows
    │                               (names the count, the first error and the URL); samples saved
    ├── StoreError                  the run registry could not be written (exit code 5)
    └── UserInterruptError          the user pressed Ctrl-C (exit code 130); samples saved

Anything else that escapes is a bug and keeps its traceback.
"""


class SpecverdictError(Exception):
    """Base of user-fixable errors."""

    exit_code = 2


class ConfigError(SpecverdictError):
    pass


class PreflightError(ConfigError):
    """An attached server contradicts the configuration it would be measured as."""


class ExtraMissingError(SpecverdictError):
    pass


class EngineError(SpecverdictError):
    exit_code = 5


class EngineStartError(EngineError):
    pass


class EngineUnreachableError(EngineError):
    pass


class RunInterruptedError(EngineError):
    pass


class RunFailedError(EngineError):
    pass


class StoreError(SpecverdictError):
    exit_code = 5


class UserInterruptError(SpecverdictError):
    exit_code = 130
