"""The bug-injection generator on a tiny package written here (no download): mutations by AST,
only mutants the package's tests catch are kept, gold patches reverse them, tasks are cached."""

from __future__ import annotations

import io
import tarfile
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from specverdict.sandbox import Sandbox
from specverdict.suites.repository import generator
from specverdict.suites.repository.generator import (
    OPERATORS,
    discover_tests,
    generate_tasks,
    mutate,
    mutations,
    read_sdist,
    relevant_tests,
    sandbox_runner,
    task_from_json,
    task_to_json,
)
from specverdict.suites.repository.mutants import RepositoryMutants
from specverdict.suites.repository.suite import RepositorySuite, render_prompt
from specverdict.suites.repository.task import RepoTask

CORE = textwrap.dedent(
    '''
    """A tiny package to inject bugs into."""


    def clamp(value, low, high):
        """Limit value to [low, high]."""
        if value < low:
            return low
        if value > high:
            return high
        return value


    def clamp_both(value, low, high):
        return max(low, min(value, high))


    def window_sums(values, size):
        return [sum(values[i : i + size]) for i in range(len(values) - size + 1)]


    def is_name(text, strict=True):
        return bool(text) and (text.isidentifier() or not strict)


    def untested(x):
        return divmod(x, 7)
    '''
).lstrip()

TESTS = textwrap.dedent(
    """
    from minipkg.core import clamp, clamp_both, is_name, window_sums


    def test_clamp():
        assert clamp(5, 0, 3) == 3
        assert clamp(-1, 0, 3) == 0
        assert clamp(2, 0, 3) == 2


    def test_clamp_both():
        assert clamp_both(9, 1, 4) == 4
        assert clamp_both(0, 1, 4) == 1


    class TestWindowSums:
        def test_pairs(self):
            assert window_sums([1, 2, 3, 4], 2) == [3, 5, 7]


    def test_is_name():
        assert is_name("abc") and not is_name("") and not is_name("1x")
        assert is_name("1x", strict=False)
    """
).lstrip()

PKG_INFO = (
    "Metadata-Version: 2.1\nName: minipkg\nVersion: 0.1\n"
    "Classifier: License :: OSI Approved :: MIT License\n"
)


def sdist(path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in {
            "minipkg-0.1/PKG-INFO": PKG_INFO,
            "minipkg-0.1/minipkg/__init__.py": "",
            "minipkg-0.1/minipkg/core.py": CORE,
            "minipkg-0.1/tests/test_core.py": TESTS,
            "minipkg-0.1/setup.py": "raise SystemExit('not read')\n",
        }.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


class Fixed(RepositorySuite):
    name = "fixed"
    version = 1

    def __init__(self, tasks: list[RepoTask], sandbox: Sandbox) -> None:
        super().__init__(sandbox)
        self._given = tasks

    def load_tasks(self) -> list[RepoTask]:
        return self._given


def test_mutations_cover_every_operator_and_reverse_exactly() -> None:
    found = mutations("minipkg/core.py", CORE)
    assert set(Counter(m.operator for m in found)) == set(OPERATORS)
    pairs = {(m.function, m.operator, m.after.strip()) for m in found}
    assert ("clamp", "flipped_comparison", "if value >= low:") in pairs
    assert any(
        m.function == "window_sums" and m.operator == "off_by_one" and "size + 2)" in m.after
        for m in found
    )
    assert ("is_name", "dropped_condition", "return bool(text)") in pairs
    assert ("clamp_both", "swapped_arguments", "return max(min(value, high), low)") in pairs
    assert ("untested", "wrong_constant", "return divmod(x, 15)") in pairs
    assert not any("A tiny package" in m.after for m in found)  # docstrings are left alone
    for m in found:
        mutant = mutate(CORE, m)
        assert mutant is not None and mutant != CORE
        assert mutant.replace(m.after, m.before, 1) == CORE


def test_tests_are_discovered_and_matched_by_function_name() -> None:
    ids = discover_tests("tests/test_core.py", TESTS)
    assert ids == [
        "tests/test_core.py::test_clamp",
        "tests/test_core.py::test_clamp_both",
        "tests/test_core.py::TestWindowSums::test_pairs",
        "tests/test_core.py::test_is_name",
    ]
    assert relevant_tests("window_sums", ids) == ["tests/test_core.py::TestWindowSums::test_pairs"]
    assert relevant_tests("untested", ids) == []


def test_only_caught_mutants_become_tasks_and_gold_resolves_them(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    package = read_sdist(sdist(tmp_path / "minipkg-0.1.tar.gz"), "minipkg")
    assert package.licence == "MIT License" and package.version == "0.1"
    assert sorted(package.files) == ["minipkg/__init__.py", "minipkg/core.py", "tests/test_core.py"]
    tasks = generate_tasks(package, sandbox_runner(sandbox), limit=10, seed=3)
    functions = {t.issue.split("`")[1] for t in tasks}
    # no tests for untested; both swaps in max(low, min(value, high)) are equivalent mutants
    assert functions == {"clamp", "window_sums", "is_name"}
    for task in tasks:
        assert task.fail_to_pass and "MIT License" in task.origin
        assert "return max(min(value, high), low)" not in task.files["minipkg/core.py"]
        assert task.files["tests/test_core.py"] == TESTS
        changed = [line[0] for line in task.gold_patch.splitlines()[2:] if line[:1] in "+-"]
        assert changed == ["-", "+"]  # one line, put back as it was
        prompt = render_prompt(task)
        assert "### minipkg/core.py (lines " in prompt and "untested" not in prompt
    suite = Fixed(tasks, sandbox)
    gold = suite.score_texts([(t.task_id, t.gold_patch) for t in tasks])
    assert [s.outcome for s in gold] == ["resolved"] * len(tasks)
    noop = suite.score_texts([(t.task_id, "Looks fine to me.") for t in tasks])
    assert {s.outcome for s in noop} == {"malformed_patch"}
    for task in tasks:
        restored = task_from_json(task_to_json(task, package), package)
        assert (restored.task_id, restored.fix, restored.files) == (
            task.task_id,
            task.fix,
            task.files,
        )
        assert restored.fail_to_pass == task.fail_to_pass
        assert restored.gold_patch == task.gold_patch


def test_the_suite_generates_once_then_reads_its_cache(
    tmp_path: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sdists").mkdir()
    sdist(tmp_path / "sdists" / "minipkg-0.1.tar.gz")
    monkeypatch.setattr(generator, "PINNED", {"minipkg": ("0.1", "minipkg")})
    monkeypatch.setattr("specverdict.suites.repository.mutants.PINNED", generator.PINNED)
    first = RepositoryMutants(sandbox=sandbox, cache_dir=tmp_path)
    assert first.prepare() >= 3
    assert first.task_cache("minipkg", "0.1").exists()

    def no_generation(*args: object, **kwargs: object) -> list[RepoTask]:
        raise AssertionError("generated again")

    monkeypatch.setattr("specverdict.suites.repository.mutants.generate_tasks", no_generation)
    second = RepositoryMutants(sandbox=sandbox, cache_dir=tmp_path)
    assert [s.id for s in second.samples()] == [s.id for s in first.samples()]
    assert all(s.id.startswith("repository-mutants/minipkg-") for s in second.samples())
    assert second.stage == "repository" and second.name == "repository-mutants"
