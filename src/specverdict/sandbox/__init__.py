"""Sandboxed execution of untrusted code (interface in ``base``)."""

from specverdict.sandbox.base import ExecResult, Execution, Limits, Outcome, Sandbox

__all__ = ["ExecResult", "Execution", "Limits", "Outcome", "Sandbox"]
