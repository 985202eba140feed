"""The package's layers hold: no import cycle, no import up the layers, every package on a floor,
and the map of the code (docs/design/000-map.md) generated from the same graph."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _importmap() -> ModuleType:
    spec = importlib.util.spec_from_file_location("importmap", ROOT / "tools" / "importmap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["importmap"] = module
    spec.loader.exec_module(module)
    return module


importmap = _importmap()


@pytest.fixture(scope="module")
def layers() -> tuple[Any, ...]:
    return importmap.read_layers()


def graph() -> Any:
    return importmap.build_graph()


def test_no_module_imports_another_in_a_circle() -> None:
    assert importmap.module_cycles(importmap.adjacency(graph())) == []


def test_no_import_runs_up_the_layers(layers: tuple[Any, ...]) -> None:
    assert importmap.upward_imports(graph(), layers) == []


def test_every_package_stands_on_a_floor(layers: tuple[Any, ...]) -> None:
    assert importmap.unlayered(graph(), layers) == []
    named = [m for layer in layers for m in layer.members]
    assert len(named) == len(set(named)), "a package named on two floors"
    loose = sorted(
        p.stem
        for p in (ROOT / "src" / "specverdict").glob("*.py")
        if p.stem not in {"__init__", "__main__"}
    )
    assert loose == ["errors", "plugins"], "only the kernel lies at the package's root"


def test_the_map_is_the_one_the_code_draws(layers: tuple[Any, ...]) -> None:
    text = importmap.MAP.read_text()
    assert importmap.with_table(text, importmap.render(graph(), layers)) == text, (
        "docs/design/000-map.md is stale: run python tools/importmap.py --write"
    )


def test_lint_imports_keeps_the_same_contract() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout


# The checks fail when the code breaks them: each is shown one breach, added to a real graph.


def test_an_upward_import_is_named_with_its_layers(layers: tuple[Any, ...]) -> None:
    g = graph()
    g.add_import(importer="specverdict.stats.speed", imported="specverdict.verdict.judge")
    found = importmap.upward_imports(g, layers)
    assert found == [
        "specverdict.stats.speed -> specverdict.verdict.judge: stats may not import verdict"
    ]


def test_siblings_on_one_floor_may_not_import_each_other(layers: tuple[Any, ...]) -> None:
    g = graph()
    g.add_import(importer="specverdict.report.model", imported="specverdict.policy.model")
    assert importmap.upward_imports(g, layers) == [
        "specverdict.report.model -> specverdict.policy.model: report may not import policy"
    ]


def test_a_cycle_inside_a_package_is_found() -> None:
    g = graph()
    assert "specverdict.campaign.spec" in g.find_modules_directly_imported_by(
        "specverdict.campaign.plan"
    )
    g.add_import(importer="specverdict.campaign.spec", imported="specverdict.campaign.plan")
    assert importmap.module_cycles(importmap.adjacency(g)) == [
        ["specverdict.campaign.plan", "specverdict.campaign.spec"]
    ]


def test_a_package_no_floor_names_is_found(layers: tuple[Any, ...]) -> None:
    g = graph()
    g.add_module("specverdict.newstage")
    g.add_module("specverdict.newstage.thing")
    assert importmap.unlayered(g, layers) == ["newstage"]


def test_the_cycle_finder_on_a_known_graph() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": set()}
    assert importmap.module_cycles(edges) == [["a", "b", "c"], ["d", "e"]]
