"""Suites: the named, versioned sample sets a stage runs, and how their outputs are scored.

- ``base``: the ``Suite`` interface (samples, selection, scoring, the multi-turn ``episodic``
  interface) and ``Sample``; ``registry``: suites by ``name@version`` (``specverdict.plugins``).
- ``function/``: the function stage (HumanEval, EvalPlus, amplified tests); ``repository/``,
  ``agent/``, ``testgen``, ``prose``: the other stages; ``synth/``: the generated suites.
- ``plan_runner`` (the one trusted program that runs tests inside the sandbox) and ``testplan``
  (its typed plans and sealed report); ``functional``: scoring through the sandbox;
  ``dataset``, ``datalock``: suites as data files and their content hashes.
"""

from specverdict.suites.base import Sample, Suite
from specverdict.suites.registry import get_suite, known_suites, suite_for

__all__ = ["Sample", "Suite", "get_suite", "known_suites", "suite_for"]
