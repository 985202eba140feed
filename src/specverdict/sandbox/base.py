"""The ``Sandbox`` interface: run one untrusted Python program, isolated and limited, and say
what happened to it.

A sandbox decides *process-level* outcomes only (it ran to the end, raised, never parsed, ran out
of time or memory, was killed, or tried something it must not). Whether an answer is *right* is
never taken from the untrusted process's own word: the suite's harness program prints outputs,
and the parent compares them with expected values the child never sees.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

Outcome = Literal[
    "passed", "failed", "error", "syntax_error", "timeout", "oom", "killed", "sandbox_violation"
]


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-execution limits. Memory is the address space (RLIMIT_AS). ``disk_mb`` bounds all
    files the program writes in its directory (a tmpfs of that size in ``namespaces`` mode;
    only ``file_size_mb`` per file holds in the weaker mode)."""

    wall_s: float = 10.0
    cpu_s: int = 10
    address_space_mb: int = 1024
    nproc: int = 16
    file_size_mb: int = 16
    open_files: int = 64
    output_bytes: int = 1 << 20  # per stream; the rest is dropped and ``truncated`` set
    disk_mb: int = 64


@dataclass(frozen=True, slots=True)
class Execution:
    """A program to run as ``__main__`` in a fresh temporary directory, with extra files.

    ``allow_subprocess`` lets the program fork, spawn and exec (refused, as a violation, by
    default); the sandbox's process limits and clean-up still hold, but a program it execs runs
    without the audit hook."""

    program: str
    files: Mapping[str, str] = field(default_factory=dict)
    stdin: str = ""
    limits: Limits = field(default_factory=Limits)
    allow_subprocess: bool = False


@dataclass(frozen=True, slots=True)
class ExecResult:
    """What the process did. ``outcome`` here is one of ``passed`` (exited 0), ``error``
    (an uncaught exception: ``detail`` names its type), ``syntax_error``, ``timeout``, ``oom``,
    ``killed`` (a signal not sent by the sandbox), ``sandbox_violation`` (``detail`` says what);
    a suite maps ``passed`` to ``failed`` when the outputs are wrong."""

    outcome: Outcome
    detail: str | None
    exit_code: int | None
    stdout: str
    stderr: str
    truncated: bool
    wall_s: float
    violations: tuple[str, ...] = ()


class Sandbox(ABC):
    #: what this sandbox isolates, as recorded in the run manifest (e.g. "user+net namespace,
    #: unprivileged uid, rlimits, audit hooks")
    isolation: str

    @abstractmethod
    def run(self, execution: Execution) -> ExecResult:
        """Run one program; never raises for anything the program does."""

    def run_many(self, executions: Sequence[Execution], workers: int = 2) -> list[ExecResult]:
        """Run several programs, results in input order (default: one after another)."""
        return [self.run(e) for e in executions]
