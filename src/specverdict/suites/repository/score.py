"""Scoring a repository answer: parse, apply, run the task's tests one by one, measure the change.

**Per-test results.** Each test runs in its own sandbox execution of the trusted plan runner
(``suites/plan_runner.py``, a ``testplan.TestsPlan`` naming the one test) over the patched
repository, with the task's own test files restored on top. A test passes only when the
process exited 0 *and* the runner reported the test with ``"status": "pass"`` in a record
carrying a fresh random nonce (given on stdin, which the runner then closes). Code under test that exits early, crashes, hangs, or prints a forged
report (it cannot know the nonce) makes that one test fail, never pass, and cannot touch the
other tests' executions. One execution per test also keeps module state from leaking between
tests.

**Outcome classes** (``Score.outcome``), in order: ``malformed_patch`` (no readable patch),
``patch_does_not_apply``, ``empty_patch`` (applies but changes nothing outside the tests),
``sandbox_violation`` (any test execution), ``resolved`` (every FAIL_TO_PASS and
PASS_TO_PASS test passes; ``Score.passed``), ``timeout`` (a test ran out of time), ``failed``.

**Change metrics** (``RepoDetail``), from the repository before and after the answer's patch
compared with the gold change, line by line in the original file's coordinates (a changed or
deleted line is its number; an insertion is the position it goes before): file and line
precision and recall; files changed outside the gold files; edits to test files (ignored when
testing); lines added and deleted, and ``large_deletion`` when the answer deletes more than
``max(20, 3 x gold)`` lines; and the answer's length in characters and patch lines.
"""

from __future__ import annotations

import difflib
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pydantic import BaseModel, ConfigDict

from specverdict.records import Score
from specverdict.sandbox import ExecResult, Execution, Limits
from specverdict.suites import testplan
from specverdict.suites.repository.apply import PatchDoesNotApplyError, apply_patch
from specverdict.suites.repository.patches import MalformedPatchError, Patch, parse_answer
from specverdict.suites.repository.task import RepoTask, is_test_path
from specverdict.suites.testplan import Load, Named, TestResult, TestsPlan

TEST_LIMITS = Limits(wall_s=10.0, cpu_s=10, output_bytes=256 * 1024)


class Tally(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    passed: int
    total: int


class RepoDetail(BaseModel):
    """What ``Score.detail`` holds for repository suites (as JSON)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: str | None = None
    problem: str | None = None
    notes: tuple[str, ...] = ()
    fail_to_pass: Tally | None = None
    pass_to_pass: Tally | None = None
    failing: tuple[str, ...] = ()
    files_changed: tuple[str, ...] = ()
    file_precision: float | None = None
    file_recall: float | None = None
    line_precision: float | None = None
    line_recall: float | None = None
    lines_added: int = 0
    lines_deleted: int = 0
    outside_gold_files: int = 0
    test_file_edits: int = 0
    large_deletion: bool = False
    output_chars: int = 0
    patch_lines: int = 0
    test_seconds: float = 0.0


def read_detail(score: Score) -> RepoDetail | None:
    if score.detail is None:
        return None
    try:
        return RepoDetail.model_validate_json(score.detail)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Change:
    """Which original lines a change touches, per file, and how many lines it adds/deletes."""

    touched: dict[str, set[str]]
    added: int
    deleted: int


def change(before: Mapping[str, str], after: Mapping[str, str]) -> Change:
    touched: dict[str, set[str]] = {}
    added = deleted = 0
    for path in sorted(set(before) | set(after)):
        old = before.get(path, "").splitlines()
        new = after.get(path, "").splitlines()
        if before.get(path) == after.get(path):
            continue
        keys: set[str] = set()
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            keys.update(str(i) for i in range(i1, i2))
            if tag == "insert":
                keys.add(f"+{i1}")
            added += j2 - j1
            deleted += i2 - i1
        touched[path] = keys or {"file"}
    return Change(touched, added, deleted)


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def change_metrics(task: RepoTask, after: Mapping[str, str]) -> dict[str, object]:
    gold = change(task.files, task.fixed_files)
    cand = change(task.files, after)
    gold_files, cand_files = set(gold.touched), set(cand.touched)
    gold_lines = {(p, k) for p, ks in gold.touched.items() for k in ks}
    cand_lines = {(p, k) for p, ks in cand.touched.items() for k in ks}
    common = len(gold_lines & cand_lines)
    return {
        "files_changed": tuple(sorted(cand_files)),
        "file_precision": _ratio(len(gold_files & cand_files), len(cand_files)),
        "file_recall": _ratio(len(gold_files & cand_files), len(gold_files)),
        "line_precision": _ratio(common, len(cand_lines)),
        "line_recall": _ratio(common, len(gold_lines)),
        "lines_added": cand.added,
        "lines_deleted": cand.deleted,
        "outside_gold_files": len(cand_files - gold_files),
        "test_file_edits": sum(1 for p in cand_files if is_test_path(p)),
        "large_deletion": cand.deleted > max(20, 3 * gold.deleted),
    }


def patch_line_count(patch: Patch) -> int:
    if patch.format == "unified":
        return sum(len(h.lines) for f in patch.files for h in f.hunks)
    return sum(b.search.count("\n") + b.replace.count("\n") for b in patch.blocks)


@dataclass(frozen=True)
class Prepared:
    """An answer that applied: the repository to test and the executions (one per test)."""

    task: RepoTask
    detail: dict[str, object]
    tests: tuple[str, ...]
    nonces: tuple[str, ...]
    executions: tuple[Execution, ...]


def repository_for_tests(task: RepoTask, files: Mapping[str, str]) -> dict[str, str]:
    """``files`` with the task's test files put back (and hidden tests added)."""
    repo = {p: t for p, t in files.items() if not is_test_path(p)}
    repo.update({p: t for p, t in task.files.items() if is_test_path(p)})
    repo.update(task.hidden_tests)
    return repo


def execution_for_test(
    files: Mapping[str, str], test: str, nonce: str, limits: Limits = TEST_LIMITS
) -> Execution:
    path, _, name = test.partition("::")
    function = name.replace("::", ".")
    module = path.removesuffix(".py").replace("/", ".")
    plan = TestsPlan(
        load=(Load(how="import", target=module),), select=Named(names=(function,)), summary=False
    )
    return testplan.execution(plan, files, limits, nonce)


def outcome_of_test(result: ExecResult, nonce: str) -> tuple[bool, str]:
    """(passed, why) for one test execution, decided from the process and the sealed record."""
    if result.outcome != "passed":
        return False, result.outcome if not result.detail else f"{result.outcome}: {result.detail}"
    # Only the last line counts: nothing the code under test left running may follow it.
    last = result.stdout.rstrip("\n").rsplit("\n", 1)[-1]
    report = testplan.read_report(replace(result, stdout=last, truncated=False), nonce)
    tests = [r for r in report.records if isinstance(r, TestResult)]
    if len(tests) != 1 or report.malformed is not None or report.interfered:
        return False, "no test report"
    if tests[0].status == "pass":
        return True, "pass"
    return False, f"{tests[0].type}: {tests[0].detail[:120]}"


def prepare(task: RepoTask, text: str, limits: Limits = TEST_LIMITS) -> Prepared | Score:
    """Parse and apply an answer; a Score right away when it cannot be tested."""
    base: dict[str, object] = {"output_chars": len(text)}
    try:
        patch = parse_answer(text)
    except MalformedPatchError as exc:
        return _score("malformed_patch", {**base, "problem": str(exc)})
    base.update(format=patch.format, notes=patch.notes, patch_lines=patch_line_count(patch))
    try:
        after = apply_patch(task.files, patch)
    except PatchDoesNotApplyError as exc:
        return _score("patch_does_not_apply", {**base, "problem": str(exc)})
    detail = {**base, **change_metrics(task, after)}
    repo = repository_for_tests(task, after)
    if {p: t for p, t in repo.items() if not is_test_path(p)} == {
        p: t for p, t in task.files.items() if not is_test_path(p)
    }:
        return _score("empty_patch", {**detail, "problem": "the patch changes no source file"})
    tests = (*task.fail_to_pass, *task.pass_to_pass)
    nonces = tuple(secrets.token_hex(16) for _ in tests)
    executions = tuple(
        execution_for_test(repo, t, n, limits) for t, n in zip(tests, nonces, strict=True)
    )
    return Prepared(task, detail, tests, nonces, executions)


def judge(prepared: Prepared, results: Sequence[ExecResult]) -> Score:
    task = prepared.task
    passed: dict[str, bool] = {}
    failing: list[str] = []
    for test, nonce, result in zip(prepared.tests, prepared.nonces, results, strict=True):
        ok, why = outcome_of_test(result, nonce)
        passed[test] = ok
        if not ok:
            failing.append(f"{test}: {why}"[:200])
    detail = {
        **prepared.detail,
        "fail_to_pass": Tally(
            passed=sum(passed[t] for t in task.fail_to_pass), total=len(task.fail_to_pass)
        ),
        "pass_to_pass": Tally(
            passed=sum(passed[t] for t in task.pass_to_pass), total=len(task.pass_to_pass)
        ),
        "failing": tuple(failing[:10]),
        "test_seconds": round(sum(r.wall_s for r in results), 3),
    }
    outcomes = {r.outcome for r in results}
    if "sandbox_violation" in outcomes:
        return _score("sandbox_violation", detail)
    if all(passed.values()):
        return _score("resolved", detail)
    if "timeout" in outcomes:
        return _score("timeout", detail)
    return _score("failed", detail)


def _score(outcome: str, detail: Mapping[str, object]) -> Score:
    body = RepoDetail.model_validate(dict(detail))
    return Score(passed=outcome == "resolved", outcome=outcome, detail=body.model_dump_json())
