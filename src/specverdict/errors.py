"""specverdict's exceptions: each is printed as one line and ends the command with its
``exit_code``.

    SpecverdictError                a problem the user can fix (exit code 2)
    ├── ConfigError                 a campaign file or flag is invalid (names file, key, expected)
    │   ├── PreflightError          an attached server contradicts its declared configuration
    │   ├── RegistryFormatError     --db is not a readable specverdict registry (a YAML file,
    │   │                           /dev/null, a damaged SQLite file), or one of its records does
    │   │                           not parse (names the path, the run and the field)
    │   └── RegistryReadOnlyError   a writing command on a registry that is not writable (reading
    │                               commands open it read-only and work)
    ├── ExtraMissingError           an optional part needs an extra that is not installed (names
    │                               the extra and the install command)
    ├── EngineError                 the engine failed the run (exit code 5)
    │   ├── EngineStartError        an engine did not come up (names the command, its output)
    │   ├── EngineUnreachableError  an attached engine did not answer before a run
    │   ├── RunInterruptedError     an engine died or stopped answering mid-run; samples saved
    │   └── RunFailedError          more of a run's requests failed than the campaign allows
    │                               (names the count, the first error and the URL); samples saved
    ├── StoreError                  the run registry could not be written (exit code 5)
    │   ├── RegistryWriteError      the registry refused a write mid-run (disk full, read-only);
    │   │   │                       what was committed before stays
    │   │   └── RegistryLostError   the registry file was deleted or replaced while open: names
    │   │                           the recovery copy that keeps the samples written
    │   └── FencedError             a write by an executor whose run was handed to another (its
    │                               node taken for lost): refused, one writer per run
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


class RegistryFormatError(ConfigError):
    """``--db`` is not a specverdict registry this version can read, or a record in it does not
    parse."""


class RegistryReadOnlyError(ConfigError):
    """A command that writes was given a registry on read-only media (or a read-only file)."""


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


class RegistryWriteError(StoreError):
    """The registry refused a write during a run (disk full, read-only)."""


class RegistryLostError(RegistryWriteError):
    """The registry file was deleted or replaced by another while this process wrote to it."""


class FencedError(StoreError):
    """A write by an executor whose claim on the run was handed to another (its node was taken
    for lost): refused, so that two executors never write one run."""


class UserInterruptError(SpecverdictError):
    exit_code = 130
