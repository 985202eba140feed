"""Suites as data: malformed records stop the load with one line naming file, record and field;
the loaded tasks and samples are the ones the suites had when they were written in Python; the
data lock holds every data-backed suite's hash; the package data ships every data file."""

from __future__ import annotations

import glob
import hashlib
import itertools
import json
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from specverdict.suites import datalock
from specverdict.suites.agent.tasks import TASKS as AGENT_TASKS
from specverdict.suites.agent.tasks import AgentTask
from specverdict.suites.agent.tasks import load_tasks as load_agent
from specverdict.suites.dataset import DataDir, SuiteDataError
from specverdict.suites.prose_data import load_prompts, prompts
from specverdict.suites.registry import get_suite
from specverdict.suites.repository.task import RepoTask
from specverdict.suites.repository.tasks import all_tasks
from specverdict.suites.repository.tasks import load_tasks as load_repository
from specverdict.suites.testgen_data import TASKS as TESTGEN_TASKS
from specverdict.suites.testgen_data import TestgenTask
from specverdict.suites.testgen_data import load_tasks as load_testgen

ROOT = Path(__file__).resolve().parents[3]
SUITES = ROOT / "src" / "specverdict" / "suites"


def digest(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, default=str).encode()).hexdigest()


def repository_view(t: RepoTask) -> list[object]:
    return [
        t.task_id,
        t.issue,
        list(t.files.items()),
        [list(f) for f in t.fix],
        list(t.fail_to_pass),
        list(t.pass_to_pass),
        list(t.hidden_tests.items()),
        t.shown,
        list(t.excerpts.items()),
        t.origin,
    ]


def agent_view(t: AgentTask) -> list[object]:
    return [
        t.id,
        t.instruction,
        list(t.files.items()),
        list(t.tests.items()),
        list(t.gold.items()),
        [[s.tool, s.path] for s in t.trajectory],
    ]


def view_of_testgen(t: TestgenTask) -> list[object]:
    return [
        t.task_id,
        t.module,
        t.entry_point,
        t.spec,
        t.reference,
        [[m.name, m.old, m.new] for m in t.mutants],
        t.gold,
    ]


def prose_view() -> list[object]:
    by_kind = itertools.groupby(prompts(), key=lambda p: p.kind)
    return [[kind, [p.prompt for p in group]] for kind, group in by_kind]


# Counts and sha256 of the tasks and of the samples, taken from the suites as they were written
# in Python (repository/tasks/basics.py and more.py, agent/tasks.py, testgen_data.py,
# prose_data.py) before their data moved to files.
BEFORE: dict[str, tuple[Callable[[], list[object]], int, str, str]] = {
    "repository@1": (
        lambda: [repository_view(t) for t in all_tasks()],
        22,
        "038872c08d2c7c1ef25c1649bec785f742db31aefa406ad3318732c48d602fec",
        "d2bc1fc5eff3f952005addc1d04c5d20e871ca916597ec80e59aeebf17dd3323",
    ),
    "agent-tasks@1": (
        lambda: [agent_view(t) for t in AGENT_TASKS],
        22,
        "f3b97842ae5b798be91dd549dd1f4ed9d5b5d8e1230c6ad6086bfdd327bb9ce9",
        "3f741d676fbe366edf869f25f09a0105e9357421a0456d8ae99cca0cde76edca",
    ),
    "testgen@1": (
        lambda: [view_of_testgen(t) for t in TESTGEN_TASKS],
        17,
        "2b431dfc4c036afdd2442937c194c53de6a6dd487d660f84830ccf6d8f9c53dc",
        "06a4d29f0b48e53a04e4c6141cd6454ed221d9a51bc6a21e798971b58332cacf",
    ),
    "prose@1": (
        prose_view,
        52,
        "25e1544c4656be25a26f54a17ac9fbe12d9ccaae5a5e50db770cd4885e8592b9",
        "751c2dd9c227aaa9fab1e98c0ea15dee612ab00c306d8e5ab132ff129f3474ef",
    ),
}


@pytest.mark.parametrize("ref", sorted(BEFORE))
def test_the_loaded_data_is_what_the_suite_had_in_python(ref: str) -> None:
    view, count, tasks_sha, samples_sha = BEFORE[ref]
    samples = get_suite(ref).samples()
    assert len(samples) == count
    assert digest(view()) == tasks_sha
    # ``labels`` (what slices group by) came after these digests were recorded; it is empty
    # for these suites, so the samples are what they were
    assert all(not s.labels for s in samples)
    dumped = [s.model_dump(mode="json", exclude={"labels"}) for s in samples]
    assert digest(dumped) == samples_sha


def test_every_data_backed_suite_has_its_hash_in_the_lock() -> None:
    suites = datalock.data_backed()
    assert {f"{s.name}@{s.version}" for s in suites} >= set(BEFORE)
    problems = datalock.problems(datalock.read_lock(), suites)
    assert not problems, "\n".join(problems)


def test_a_data_change_without_a_version_bump_is_reported_with_what_to_do() -> None:
    lock = datalock.read_lock()
    stale = lock.model_copy(
        update={
            "suites": {
                **lock.suites,
                "prose@1": datalock.Entry(sha256="0" * 64, files=1),
            }
        }
    )
    (problem,) = datalock.problems(stale, [get_suite("prose@1")])
    assert problem.startswith("suite prose@1: its data changed")
    assert "bump Prose.version to 2" in problem and "--write" in problem
    (missing,) = datalock.problems(datalock.Lock(suites={}), [get_suite("testgen@1")])
    assert "suite testgen@1: no data hash" in missing


def test_suites_without_shipped_data_have_no_hash() -> None:
    assert get_suite("humaneval@1").data_hash is None
    assert get_suite("repository@1").data_hash == datalock.read_lock().suites["repository@1"].sha256


# -- malformed data ---------------------------------------------------------------------------


def copy_of(data: DataDir, tmp_path: Path) -> tuple[DataDir, Path]:
    """A writable copy of a shipped data folder."""
    source = Path(str(data.root))
    shutil.copytree(source, tmp_path / "data", ignore=shutil.ignore_patterns("ruff.toml"))
    return DataDir(tmp_path / "data", "copy/data"), tmp_path / "data"


def edit_record(path: Path, number: int, change: Callable[[dict[str, Any]], None]) -> None:
    lines = path.read_text().splitlines()
    record = json.loads(lines[number - 1])
    change(record)
    lines[number - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def one_line_error(load: Callable[[DataDir], object], data: DataDir) -> str:
    with pytest.raises(SuiteDataError) as caught:
        load(data)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_missing_field_names_the_file_the_record_and_the_field(tmp_path: Path) -> None:
    data, root = copy_of(DataDir.of("specverdict.suites.agent", "data"), tmp_path)
    edit_record(root / "tasks.jsonl", 3, lambda r: r.pop("instruction"))
    message = one_line_error(load_agent, data)
    assert (
        message
        == "copy/data/tasks.jsonl: record at line 3 (clamp): field instruction: Field required"
    )


def test_a_wrong_type_and_an_unknown_field_are_rejected(tmp_path: Path) -> None:
    data, root = copy_of(DataDir.of("specverdict.suites", "data", "testgen"), tmp_path)
    edit_record(root / "tasks.jsonl", 2, lambda r: r["mutants"][1].update(old=7))
    message = one_line_error(load_testgen, data)
    assert message.startswith("copy/data/tasks.jsonl: record at line 2 (testgen/")
    assert ": field mutants.1.old: Input should be a valid string" in message
    edit_record(root / "tasks.jsonl", 2, lambda r: r["mutants"][1].update(old="x", oops=1))
    assert "field mutants.1.oops: Extra inputs are not permitted" in one_line_error(
        load_testgen, data
    )


def test_a_line_that_is_not_json_is_named(tmp_path: Path) -> None:
    data, root = copy_of(DataDir.of("specverdict.suites", "data", "prose"), tmp_path)
    lines = (root / "prompts.jsonl").read_text().splitlines()
    lines[4] = lines[4][:-1]
    (root / "prompts.jsonl").write_text("\n".join(lines) + "\n")
    message = one_line_error(load_prompts, data)
    assert message.startswith("copy/data/prompts.jsonl: record at line 5: not JSON (")


def test_a_prose_id_must_follow_its_kind_and_count(tmp_path: Path) -> None:
    data, root = copy_of(DataDir.of("specverdict.suites", "data", "prose"), tmp_path)
    edit_record(root / "prompts.jsonl", 2, lambda r: r.update(id="prose/explain-7"))
    message = one_line_error(load_prompts, data)
    assert message == (
        "copy/data/prompts.jsonl: record at line 2 (prose/explain-7): field id: "
        "expected prose/explain-1 (counted by kind)"
    )


def test_a_missing_source_file_and_a_stray_one_are_named(tmp_path: Path) -> None:
    data, root = copy_of(DataDir.of("specverdict.suites.repository", "data"), tmp_path)
    moved = root / ".sources" / "median-even" / "repo" / "stats" / "central.py"
    moved.rename(moved.with_name("centre.py"))
    message = one_line_error(load_repository, data)
    assert message == (
        "copy/data/tasks.jsonl: record at line 2 (repository/median-even): field files.1: "
        "no readable file copy/data/.sources/median-even/repo/stats/central.py"
    )
    moved.with_name("centre.py").rename(moved)
    (moved.parent / "extra.py").write_text("x = 1\n")
    message = one_line_error(load_repository, data)
    assert message == "copy/data/.sources/median-even/repo/stats/extra.py: named by no record"


def test_a_gold_change_that_does_not_apply_is_named(tmp_path: Path) -> None:
    data, root = copy_of(DataDir.of("specverdict.suites.repository", "data"), tmp_path)
    edit_record(root / "tasks.jsonl", 1, lambda r: r["fix"][0].update(old="absent"))
    message = one_line_error(load_repository, data)
    assert message.endswith(
        "record at line 1 (repository/slugify-separators): field fix.0.old: "
        "does not occur exactly once in textkit/slug.py"
    )


def test_paths_must_stay_inside_the_data_folder(tmp_path: Path) -> None:
    data, root = copy_of(DataDir.of("specverdict.suites.agent", "data"), tmp_path)
    edit_record(root / "tasks.jsonl", 1, lambda r: r.update(files=["../../etc/passwd"]))
    assert "field files.0: Value error, not a relative path" in one_line_error(load_agent, data)


# -- the hash ---------------------------------------------------------------------------------


def test_the_hash_covers_paths_and_bytes_in_a_fixed_order(tmp_path: Path) -> None:
    data, root = copy_of(DataDir.of("specverdict.suites", "data", "testgen"), tmp_path)
    shipped = DataDir.of("specverdict.suites", "data", "testgen").content_hash()
    assert data.content_hash() == shipped
    (root / ".sources" / "__pycache__").mkdir()
    (root / ".sources" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert DataDir(root, "again").content_hash() == shipped
    source = root / ".sources" / "clamp" / "ranges.py"
    source.write_text(source.read_text() + " ")
    assert DataDir(root, "changed").content_hash() != shipped
    source.write_text(source.read_text()[:-1])
    source.rename(source.with_name("range.py"))
    assert DataDir(root, "renamed").content_hash() != shipped


# -- shipping ---------------------------------------------------------------------------------


def test_the_package_data_patterns_cover_every_data_file() -> None:
    """What the lock hashes is what a wheel ships (the patterns of pyproject.toml)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["specverdict"]
    package = SUITES.parent
    shipped = {
        Path(p).relative_to(package).as_posix()
        for pattern in patterns
        for p in glob.glob(str(package / pattern), recursive=True)
        if Path(p).is_file()
    }
    for suite in datalock.data_backed():
        assert suite.data_dir is not None
        prefix = suite.data_dir.label.removeprefix("specverdict/")
        missing = [p for p in suite.data_dir.paths() if f"{prefix}/{p}" not in shipped]
        assert not missing, f"{suite.name}: not in package-data: {missing[:3]}"
    assert "suites/data-lock.json" in shipped
    assert not [p for p in shipped if p.endswith("ruff.toml") or "__pycache__" in p]
