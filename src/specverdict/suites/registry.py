"""Suites by ``name@version``; a miss lists the known suites and the closest name."""

from __future__ import annotations

import difflib
from collections.abc import Callable

from specverdict.suites.agent import AgentTasks, Bfcl
from specverdict.suites.base import Suite
from specverdict.suites.builtin import BuiltinCode
from specverdict.suites.evalplus import HumanEvalPlus, HumanEvalPlusChat, MbppPlus
from specverdict.suites.humaneval import HumanEval, HumanEvalChat
from specverdict.suites.prose import Prose
from specverdict.suites.repository import Repository
from specverdict.suites.repository.mutants import RepositoryMutants
from specverdict.suites.synth.suites import SynthAgent, SynthFunction, SynthRepository
from specverdict.suites.testgen import TestGen

_REGISTRY: dict[str, Callable[[], Suite]] = {
    "builtin-code@1": BuiltinCode,
    "humaneval@1": HumanEval,
    "humaneval-chat@1": HumanEvalChat,
    "humaneval-plus@1": HumanEvalPlus,
    "humaneval-plus-chat@1": HumanEvalPlusChat,
    "mbpp-plus@1": MbppPlus,
    "prose@1": Prose,
    "agent-tasks@1": AgentTasks,
    "bfcl@1": Bfcl,
    "repository@1": Repository,
    "repository-mutants@1": RepositoryMutants,
    "testgen@1": TestGen,
    "synth-function@1": SynthFunction,
    "synth-agent@1": SynthAgent,
    "synth-repository@1": SynthRepository,
}


def known_suites() -> list[str]:
    return sorted(_REGISTRY)


def get_suite(ref: str) -> Suite:
    if ref in _REGISTRY:
        return _REGISTRY[ref]()
    close = difflib.get_close_matches(ref, _REGISTRY, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise KeyError(f"unknown suite {ref!r}{hint} Known: {', '.join(known_suites())}")
