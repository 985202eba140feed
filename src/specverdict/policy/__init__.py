"""``specverdict policy``: which configuration to run per stage and load level, from the
campaign's ADOPT cells only, as engine flags and as the expectations ``watch`` pins."""

from specverdict.policy.build import build_policy, overrides_target
from specverdict.policy.model import Expectation, Expectations, Figure, PairEvidence, Policy

__all__ = [
    "Expectation",
    "Expectations",
    "Figure",
    "PairEvidence",
    "Policy",
    "build_policy",
    "overrides_target",
]
