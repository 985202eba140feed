"""The ``reference`` extra: the modules the reference engine's server needs beyond the core
install, and which of them this interpreter lacks.

Importable without them (standard library only), so that the harness can say what is missing
before it launches the server.
"""

from __future__ import annotations

import importlib.util

#: the extra that holds the server stack, and how to install it
EXTRA = "reference"
INSTALL = "pip install 'specverdict[reference]'"
#: top-level modules of the extra's distributions (each distribution is named as its module)
MODULES = ("fastapi", "uvicorn", "tokenizers", "safetensors", "threadpoolctl")


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing() -> tuple[str, ...]:
    """The extra's modules this interpreter cannot import, in :data:`MODULES` order."""
    return tuple(m for m in MODULES if not _importable(m))


def lacking() -> str | None:
    """``needs the 'reference' extra, ... install it with: ...`` when a module is missing (the
    rest of a one-line error, after its subject), else None."""
    gone = missing()
    if not gone:
        return None
    return (
        f"needs the {EXTRA!r} extra, which is not installed (missing: {', '.join(gone)}); "
        f"install it with: {INSTALL}"
    )
