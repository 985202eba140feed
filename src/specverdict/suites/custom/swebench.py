"""SWE-bench-style task files as repository tasks, on repository snapshots you supply.

The format is SWE-bench's (github SWE-bench/SWE-bench: ``docs/guides/datasets.md`` lists the
fields; ``swebench/harness/utils.py`` ``load_swebench_dataset`` reads a local ``.json`` list or
``.jsonl`` file, and ``make_test_spec`` decodes ``FAIL_TO_PASS`` / ``PASS_TO_PASS`` with
``json.loads`` when they are strings, as the published Hugging Face datasets store them). A
record is one instance: ``instance_id``, ``problem_statement``, ``patch`` (the gold fix),
``test_patch`` (the tests that came with it), ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` (test ids),
and ``repo``, ``base_commit``, ``version``, ``created_at``, ``hints_text``, ... kept as metadata.

Nothing is cloned or downloaded: ``snapshots/<instance_id>/`` is the repository at the
instance's ``base_commit``, as you checked it out. The gold patch must apply to it (it is the
reference the change metrics compare with, and shows which files the prompt holds: SWE-bench's
"oracle" file source, ``get_oracle_filenames`` in ``swebench/inference/make_datasets``); the
test patch is added at scoring time, as the harness applies it before running the tests.

The tests run as the repository stage runs them (``suites/repository/score.py``): one sandbox
execution per test id, the snapshot's root on the import path, the module imported by its path.
So a test id is a pytest node id of a test function or of a method of a test class
(``tests/test_x.py::test_y``, ``tests/test_x.py::TestX::test_y``; unittest cases included);
parametrized ids (``...::test_y[1-2]``), pytest fixtures and other runners' ids (Django's
``test_y (module.Class)``, sympy's bare names) are refused with the record and field named.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from specverdict.campaign.snapshots import snapshot_files, snapshots_digest
from specverdict.campaign.spec import DatasetRef
from specverdict.errors import ConfigError
from specverdict.sandbox import Sandbox
from specverdict.suites.base import Sample
from specverdict.suites.custom.importers import RecordError, jsonl_records
from specverdict.suites.repository.apply import PatchDoesNotApplyError, apply_patch
from specverdict.suites.repository.patches import MalformedPatchError, parse_answer
from specverdict.suites.repository.suite import RepositorySuite
from specverdict.suites.repository.task import RepoTask

#: every test execution gets the whole repository: a snapshot larger than this is refused
MAX_SNAPSHOT_BYTES = 32 * 1024 * 1024
#: fields the task uses; the others become the row's metadata
USED = ("instance_id", "problem_statement", "patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS")


@dataclass(frozen=True)
class Instance:
    """One imported instance: its repository task and the labels slices read."""

    task: RepoTask
    labels: dict[str, str]


def read_snapshot(root: Path) -> dict[str, str]:
    """The snapshot's text files (binary files, which no patch here can change, are left out)."""
    files: dict[str, str] = {}
    total = 0
    for rel, path in snapshot_files(root):
        data = path.read_bytes()
        total += len(data)
        if total > MAX_SNAPSHOT_BYTES:
            raise ConfigError(
                f"{root}: the snapshot is over {MAX_SNAPSHOT_BYTES >> 20} MiB (each test runs on "
                "a copy of it): leave out what the tests do not need"
            )
        try:
            files[rel] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return files


def _records(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """A ``.json`` list (``path[I]``) or JSON Lines (``path:LINE``), as SWE-bench reads them."""
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{path}: not a JSON list of instances: {exc}") from None
        if not isinstance(data, list):
            raise ConfigError(f"{path}: a .json task file is a list, got {type(data).__name__}")
        out = []
        for i, rec in enumerate(data):
            if not isinstance(rec, dict):
                raise ConfigError(f"{path}[{i}]: an instance must be a JSON object")
            out.append((f"{path}[{i}]", rec))
        return out
    return list(jsonl_records(path, "instance"))


def _string(rec: dict[str, Any], field: str, required: bool = True) -> str:
    value = rec.get(field)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise RecordError(field, f"must be a non-empty string, got {value!r:.60}")
    return value


def read_test_ids(rec: dict[str, Any], field: str) -> tuple[str, ...]:
    """A list of pytest node ids, or (as the published datasets store it) its JSON encoding."""
    raw = rec.get(field)
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise RecordError(field, "a string that is no JSON-encoded list of test ids") from None
    if not isinstance(raw, list) or not all(isinstance(t, str) and t for t in raw):
        raise RecordError(field, f"must be a list of test ids, got {raw!r:.60}")
    for i, test in enumerate(raw):
        path, sep, name = test.partition("::")
        if not sep or not path.endswith(".py") or not name:
            raise RecordError(
                f"{field}[{i}]",
                f"{test!r:.80} is not a pytest node id (path.py::test): the repository stage "
                "runs pytest-style test functions and methods",
            )
        if "[" in name:
            raise RecordError(
                f"{field}[{i}]",
                f"{test!r:.80} is a parametrized test: the repository stage runs test functions "
                "and methods, not pytest parametrization (leave the instance out of the file)",
            )
        if name.count("::") > 1:
            raise RecordError(f"{field}[{i}]", f"{test!r:.80}: a nested test class")
    return tuple(raw)


def _patched(files: dict[str, str], text: str, field: str, root: Path) -> dict[str, str]:
    try:
        patch = parse_answer(text)
        if patch.format != "unified":
            raise MalformedPatchError("not a unified diff")
        return apply_patch(files, patch)
    except (MalformedPatchError, PatchDoesNotApplyError) as exc:
        raise RecordError(field, f"does not apply to the snapshot {root}: {exc}") from None


def _instance(rec: dict[str, Any], snapshots: Path) -> Instance:
    iid = _string(rec, "instance_id")
    if "/" in iid or iid in (".", ".."):
        raise RecordError("instance_id", f"{iid!r:.60} cannot name a snapshot folder")
    issue = _string(rec, "problem_statement")
    gold_text, tests_text = _string(rec, "patch"), _string(rec, "test_patch", required=False)
    f2p, p2p = read_test_ids(rec, "FAIL_TO_PASS"), read_test_ids(rec, "PASS_TO_PASS")
    if not f2p:
        raise RecordError("FAIL_TO_PASS", "is empty: no test decides the instance")
    root = snapshots / iid
    if not root.is_dir():
        raise RecordError("instance_id", f"no snapshot folder {root}")
    files = read_snapshot(root)
    gold = _patched(files, gold_text, "patch", root)
    with_tests = _patched(files, tests_text, "test_patch", root) if tests_text else files
    hidden = {p: t for p, t in with_tests.items() if files.get(p) != t}
    for field, tests in (("FAIL_TO_PASS", f2p), ("PASS_TO_PASS", p2p)):
        for i, test in enumerate(tests):
            if test.partition("::")[0] not in with_tests:
                raise RecordError(f"{field}[{i}]", f"{test!r:.80}: no such file in the snapshot")
    shown = tuple(sorted(p for p in files if gold.get(p) != files[p]))
    repo = rec.get("repo")
    task = RepoTask(
        task_id=iid,
        issue=issue,
        files=files,
        fix=(),
        fail_to_pass=f2p,
        pass_to_pass=p2p,
        hidden_tests=hidden,
        shown=shown,
        origin=f"{repo}@{rec.get('base_commit')}" if isinstance(repo, str) else iid,
        gold=gold,
    )
    labels = {
        f"metadata.{k}": str(v)
        for k, v in rec.items()
        if k not in USED and isinstance(v, str | int | float | bool) and len(str(v)) <= 200
    }
    labels["category"] = repo if isinstance(repo, str) else iid.rsplit("-", 1)[0]
    return Instance(task, labels)


def load_instances(path: Path, snapshots: Path) -> list[Instance]:
    """Every instance of the task file, in file order, or a one-line ``ConfigError`` naming the
    file, the record and the field."""
    out: list[Instance] = []
    seen: dict[str, str] = {}
    for where, rec in _records(path):
        try:
            inst = _instance(rec, snapshots)
        except RecordError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        tid = inst.task.task_id
        if tid in seen:
            raise ConfigError(f"{where}: field instance_id: {tid!r} is also {seen[tid]}")
        seen[tid] = where
        out.append(inst)
    if not out:
        raise ConfigError(f"{path}: the task file has no instances")
    return out


class SnapshotSuite(RepositorySuite):
    """A SWE-bench-style task file on its snapshots: the repository stage's prompt and scoring,
    checked against the file's and the snapshots' content hashes the run was planned with."""

    version = 1
    licence = "yours"
    #: a real project's tests may pass or fail by chance: each answer is judged on its own
    pure_scoring: ClassVar[bool] = False

    def __init__(self, ref: DatasetRef, stage: str, sandbox: Sandbox | None = None) -> None:
        from specverdict.suites.custom.suite import check_digest

        super().__init__(sandbox)
        path = Path(ref.path)
        self.ref = ref
        self.name = f"dataset:{path.name}"
        self.stage = stage
        self.source = f"your own task file {path}, snapshots {ref.snapshots}"
        check_digest(path, ref.sha256)
        if ref.snapshots is None:
            raise ConfigError(f"{path}: a swe-bench dataset needs its snapshots folder")
        digest = snapshots_digest(Path(ref.snapshots))
        if digest != ref.snapshots_sha256:
            raise ConfigError(
                f"{ref.snapshots}: the snapshots changed since these runs were planned: changed "
                "repositories are another run; plan it again"
            )
        self.instances = {i.task.task_id: i for i in load_instances(path, Path(ref.snapshots))}

    @property
    def data_hash(self) -> str | None:
        return self.ref.sha256

    def load_tasks(self) -> list[RepoTask]:
        return [i.task for i in self.instances.values()]

    def samples(self) -> list[Sample]:
        return [
            s.model_copy(update={"labels": self.instances[s.id].labels}) for s in super().samples()
        ]
