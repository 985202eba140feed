"""Sandboxed execution of untrusted code (interface in ``base``, implementation in ``local``)."""

from specverdict.sandbox.base import ExecResult, Execution, Limits, Outcome, Sandbox
from specverdict.sandbox.local import LocalSandbox, SandboxUnavailableError

__all__ = [
    "ExecResult",
    "Execution",
    "Limits",
    "LocalSandbox",
    "Outcome",
    "Sandbox",
    "SandboxUnavailableError",
]
