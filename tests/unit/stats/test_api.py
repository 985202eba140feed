"""The public surface of specverdict.stats, and its promise of purity."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import pytest

from specverdict import stats
from specverdict.stats import mcnemar_exact, paired_noninferiority

STATS_DIR = Path(stats.__file__).parent


def test_every_exported_name_exists() -> None:
    missing = [name for name in stats.__all__ if not hasattr(stats, name)]
    assert missing == []


def test_issue_signatures_and_fields() -> None:
    mcnemar = inspect.signature(mcnemar_exact)
    assert list(mcnemar.parameters) == ["b", "c", "alpha"]
    assert mcnemar.parameters["alpha"].default == 0.05
    fields = {f.name for f in dataclasses.fields(mcnemar_exact(1, 2))}
    assert {"p_value", "min_attainable_p", "vacuous", "decidable", "why"} <= fields

    ni = inspect.signature(paired_noninferiority)
    assert list(ni.parameters) == [
        "both_pass",
        "base_only",
        "cand_only",
        "both_fail",
        "margin",
        "alpha",
    ]
    assert ni.parameters["alpha"].default == 0.05
    fields = {f.name for f in dataclasses.fields(paired_noninferiority(90, 2, 3, 5, 0.05))}
    assert {"drop", "lower", "upper", "decision", "n_needed", "decidable", "why"} <= fields


def test_results_are_frozen() -> None:
    result = mcnemar_exact(4, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.p_value = 0.0  # type: ignore[misc]


def test_every_result_type_is_a_frozen_dataclass() -> None:
    exported = [getattr(stats, name) for name in stats.__all__]
    types = [obj for obj in exported if inspect.isclass(obj) and dataclasses.is_dataclass(obj)]
    assert types  # the package exports its result types: the check below is not vacuous
    for obj in types:
        assert obj.__dataclass_params__.frozen, obj.__name__


FORBIDDEN_IMPORTS = {"os", "sys", "time", "datetime", "random", "logging", "pathlib", "io"}
FORBIDDEN_CALLS = {"print", "open", "input"}


@pytest.mark.parametrize("path", sorted(STATS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_statistics_do_no_io_and_read_no_clock(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            roots = {(node.module or "").split(".")[0]}
        else:
            roots = set()
        assert not roots & FORBIDDEN_IMPORTS, (path.name, roots)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, (path.name, node.func.id)
        if isinstance(node, ast.Attribute) and node.attr in {"default_rng", "seed"}:
            # The Generator is injected; the package never makes or seeds its own.
            pytest.fail(f"{path.name} creates or seeds an RNG")
