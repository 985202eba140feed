"""Suites: the samples a stage runs (scoring arrives with the executing suites)."""

from specverdict.suites.base import Sample, Suite
from specverdict.suites.registry import get_suite, known_suites

__all__ = ["Sample", "Suite", "get_suite", "known_suites"]
