"""Suites by ``name@version``, from ``specverdict.plugins.SUITES`` (built-in and plugins),
imported only when a suite is asked for."""

from __future__ import annotations

from specverdict.campaign.spec import RunSpec
from specverdict.plugins import SUITES
from specverdict.suites.base import Suite


def known_suites() -> list[str]:
    return SUITES.names()


def get_suite(ref: str) -> Suite:
    """A fresh suite for ``ref``; an unknown one is a one-line ``UnknownNameError`` with the
    closest name."""
    cls = SUITES.get(ref)
    if not (isinstance(cls, type) and issubclass(cls, Suite)):
        raise SUITES.wrong_kind(ref, cls, "a Suite subclass")
    suite = cls()
    if f"{suite.name}@{suite.version}" != ref:
        raise SUITES.wrong_kind(
            ref, cls, f"a suite named {ref} (it says {suite.name}@{suite.version})"
        )
    return suite


def suite_for(spec: RunSpec) -> Suite:
    """The suite a run asks: its stage's own dataset file, or a registered suite."""
    if spec.synthetic is not None:
        from specverdict.suites.synthetic import SyntheticSuite

        return SyntheticSuite(spec.synthetic, spec.stage)
    if spec.dataset is not None and spec.dataset.format == "swe-bench":
        from specverdict.suites.custom.swebench import SnapshotSuite

        return SnapshotSuite(spec.dataset, spec.stage)
    if spec.dataset is not None:
        from specverdict.suites.custom import FileSuite  # only when a stage has a dataset

        return FileSuite(spec.dataset, spec.stage)
    return get_suite(str(spec.suite))
