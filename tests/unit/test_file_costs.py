"""The suite's file order: per-file costs read from a JUnit report, longest files first."""

from __future__ import annotations

from pathlib import Path

from tools.test_costs import file_costs

from tests.conftest import DEFAULT_COST, FILE_COSTS

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.e2e.test_a" name="test_one" time="10.5" />
<testcase classname="tests.e2e.test_a" name="test_two" time="2.0" />
<testcase classname="tests.unit.x.test_b.TestThing" name="test_three" time="1.25" />
<testcase classname="tests.unit.x.test_b" name="test_four" time="0.5" />
</testsuite></testsuites>
"""


def test_costs_are_summed_per_file_with_test_classes_folded_in(tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    report.write_text(REPORT)
    assert file_costs(report) == {"tests/e2e/test_a.py": 12.5, "tests/unit/x/test_b.py": 1.8}


def test_the_table_names_only_files_that_exist() -> None:
    root = Path(__file__).resolve().parents[2]
    assert FILE_COSTS and all((root / name).is_file() for name in FILE_COSTS)
    assert all(cost >= 0 for cost in FILE_COSTS.values()) and DEFAULT_COST > 0


def test_the_session_runs_the_longest_files_first(request: object) -> None:
    """This session's items, as the root conftest ordered them: by file, costs not increasing."""
    root = Path(__file__).resolve().parents[2]
    session = request.session  # type: ignore[attr-defined]
    files: list[str] = []
    for item in session.items:
        name = Path(str(item.fspath)).resolve().relative_to(root).as_posix()
        if not files or files[-1] != name:
            assert name not in files, f"{name}'s tests are not together"
            files.append(name)
    costs = [FILE_COSTS.get(name, DEFAULT_COST) for name in files]
    assert costs == sorted(costs, reverse=True)
