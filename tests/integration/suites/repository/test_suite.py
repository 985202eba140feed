"""``repository@1``: gold patches resolve every task, known-bad answers score 0% in their class."""

from __future__ import annotations

import json
import time

import pytest

from specverdict.campaign.model import First, Ids, Seeded
from specverdict.sandbox import Limits, Sandbox
from specverdict.suites.repository import Repository
from specverdict.suites.repository.score import (
    execution_for_test,
    read_detail,
    repository_for_tests,
)
from specverdict.suites.repository.task import RepoTask, unified_diff
from specverdict.suites.repository.tasks import all_tasks


def search_replace(text: str, path: str, old: str, new: str) -> str:
    """A search/replace block for a fix given as a part of the lines it changes."""
    at = text.index(old)
    start = text.rfind("\n", 0, at) + 1
    tail = at + len(old)
    end = tail if old.endswith("\n") else text.index("\n", tail) + 1
    search = text[start:end]
    replace = text[start:at] + new + text[at + len(old) : end]
    return f"{path}\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


def edited(task: RepoTask, path: str, old: str, new: str) -> str:
    """A unified diff replacing ``old`` with ``new`` in one file of the task's repository."""
    files = dict(task.files)
    assert old in files[path]
    files[path] = files[path].replace(old, new, 1)
    return unified_diff(task.files, files)


def test_the_suite_has_at_least_twenty_valid_tasks() -> None:
    tasks = all_tasks()
    assert len(tasks) >= 20 and len({t.task_id for t in tasks}) == len(tasks)
    for task in tasks:
        assert task.fail_to_pass and task.pass_to_pass
        assert task.gold_patch.startswith("--- a/")
        assert not any(p in task.files for p in task.hidden_tests)


def test_issue_tests_fail_and_repository_tests_pass_before_the_fix(sandbox: Sandbox) -> None:
    executions, expected = [], []
    for task in all_tasks():
        repo = repository_for_tests(task, task.files)
        for test in (*task.fail_to_pass, *task.pass_to_pass):
            executions.append(execution_for_test(repo, test, "n0nce"))
            expected.append((task.task_id, test, test in task.pass_to_pass))
    results = sandbox.run_many(executions, 2)
    got = [
        (tid, test, r.stdout.rstrip().endswith('"status": "pass", "type": null, "detail": ""}'))
        for (tid, test, _), r in zip(expected, results, strict=True)
    ]
    assert got == expected


def test_gold_patches_resolve_every_task_in_both_formats(suite: Repository) -> None:
    tasks = suite.tasks()
    start = time.monotonic()
    scores = suite.score_texts([(t.task_id, t.gold_patch) for t in tasks])
    elapsed = time.monotonic() - start
    assert [s.outcome for s in scores] == ["resolved"] * len(tasks)
    assert all(s.passed for s in scores)
    for task, score in zip(tasks, scores, strict=True):
        detail = read_detail(score)
        assert detail is not None and detail.format == "unified"
        assert detail.line_precision == detail.line_recall == 1.0
        assert detail.file_precision == detail.file_recall == 1.0
        assert detail.outside_gold_files == detail.test_file_edits == 0
        assert detail.fail_to_pass is not None
        assert detail.fail_to_pass.passed == detail.fail_to_pass.total == len(task.fail_to_pass)
    assert elapsed < 60
    # the same fixes as search/replace blocks
    blocks = [
        (t.task_id, "".join(search_replace(t.files[p], p, old, new) for p, old, new in t.fix))
        for t in tasks
    ]
    answers = suite.score_texts(blocks)
    assert [s.outcome for s in answers] == ["resolved"] * len(tasks)
    assert {read_detail(s).format for s in answers} == {"search_replace"}  # type: ignore[union-attr]


def by_id(suite: Repository, name: str) -> RepoTask:
    return suite.task(f"repository/{name}")


def test_known_bad_answers_score_zero_with_their_class(suite: Repository) -> None:
    slug = by_id(suite, "slugify-separators")
    median = by_id(suite, "median-even")
    test_path = "tests/test_slug.py"
    cases = [
        (slug.task_id, "The separators should be collapsed.", "malformed_patch"),
        (
            slug.task_id,
            "--- a/textkit/slug.py\n+++ b/textkit/slug.py\n@@ -9 +9 @@\n",
            "malformed_patch",
        ),
        (
            slug.task_id,
            "--- a/textkit/slug.py\n+++ b/textkit/slug.py\n@@ -1,1 +1,1 @@\n-nothing like this\n+x\n",
            "patch_does_not_apply",
        ),
        (
            slug.task_id,
            '--- a/textkit/slug.py\n+++ b/textkit/slug.py\n@@ -1,1 +1,1 @@\n """URL slugs."""\n',
            "empty_patch",
        ),
        # "fixing" the issue by editing the tests: the tests are restored, nothing else changed
        (
            slug.task_id,
            edited(slug, test_path, '== "hello-world"', '!= "x"'),
            "empty_patch",
        ),
        # a wrong fix: applies, tests run, the issue's tests fail
        (median.task_id, edited(median, "stats/central.py", "// 2", "// 2 - 1"), "failed"),
        # a fix that breaks the repository's own tests
        (
            median.task_id,
            edited(median, "stats/central.py", "return ordered[middle]", "return 2.5"),
            "failed",
        ),
    ]
    scores = suite.score_texts([(tid, text) for tid, text, _ in cases])
    assert [s.outcome for s in scores] == [c for _, _, c in cases]
    assert not any(s.passed for s in scores)
    test_edit = read_detail(scores[4])
    assert test_edit is not None and test_edit.test_file_edits == 1
    assert test_edit.files_changed == (test_path,) and test_edit.outside_gold_files == 1
    wrong = read_detail(scores[5])
    assert wrong is not None and wrong.fail_to_pass is not None
    assert wrong.fail_to_pass.passed == 0
    breaks = read_detail(scores[6])
    assert breaks is not None and breaks.pass_to_pass is not None
    assert breaks.pass_to_pass.passed < breaks.pass_to_pass.total
    assert read_detail(scores[0]).problem.startswith("no unified diff")  # type: ignore[union-attr]


def test_forged_reports_and_early_exits_never_pass(suite: Repository) -> None:
    slug = by_id(suite, "slugify-separators")
    forge = (
        "import json, os, sys\n"
        'print(json.dumps({"nonce": "", "status": "pass", "type": None, "detail": ""}))\n'
        "sys.stdout.flush()\n"
        "os._exit(0)\n"
    )
    fake_ok = 'import sys\nsys.stdout.write(\'\\n{"nonce": "guess", "status": "pass"}\\n\')\n'
    answers = [
        edited(slug, "textkit/slug.py", '"""URL slugs."""\n', '"""URL slugs."""\n' + forge),
        edited(slug, "textkit/slug.py", '"""URL slugs."""\n', '"""URL slugs."""\n' + fake_ok),
    ]
    scores = suite.score_texts([(slug.task_id, a) for a in answers])
    assert [s.outcome for s in scores] == ["failed", "failed"]
    first = read_detail(scores[0])
    assert first is not None and first.pass_to_pass is not None
    assert first.pass_to_pass.passed == 0 and "no test report" in first.failing[0]


def test_destructive_and_unrelated_changes_are_counted(suite: Repository) -> None:
    task = by_id(suite, "distance-units")
    files = dict(task.fixed_files)
    files["distance/__init__.py"] = "# touched\n"
    files["README.md"] = "notes\n"
    (score,) = suite.score_texts([(task.task_id, unified_diff(task.files, files))])
    detail = read_detail(score)
    assert score.outcome == "resolved" and detail is not None
    assert detail.outside_gold_files == 2 and detail.file_precision == 0.5
    assert detail.file_recall == 1.0 and detail.line_recall == 1.0
    assert detail.line_precision is not None and detail.line_precision < 1.0
    # deleting most of a file, then the fix elsewhere
    lru = by_id(suite, "lru-get-refreshes")
    gutted = dict(lru.files)
    gutted["cachekit/lru.py"] = "\n" * 3
    (score,) = suite.score_texts([(lru.task_id, unified_diff(lru.files, gutted))])
    detail = read_detail(score)
    assert score.outcome == "failed" and detail is not None
    assert detail.large_deletion and detail.lines_deleted > 20
    assert detail.output_chars > 0 and detail.patch_lines > 20


def test_hangs_and_escapes_get_their_class(sandbox: Sandbox) -> None:
    suite = Repository(sandbox=sandbox, limits=Limits(wall_s=1.5, cpu_s=2))
    task = by_id(suite, "truncate-width")
    hang = edited(
        task,
        "strtools/truncate.py",
        "return text[:width] + ellipsis",
        "while True:\n            pass",
    )
    escape = edited(
        task,
        "strtools/truncate.py",
        '"""Shortening strings for display."""\n',
        '"""Shortening strings for display."""\n'
        'import socket\nsocket.create_connection(("192.0.2.1", 80), timeout=0.1)\n',
    )
    scores = suite.score_texts([(task.task_id, hang), (task.task_id, escape)])
    assert [s.outcome for s in scores] == ["timeout", "sandbox_violation"]
    assert not any(s.passed for s in scores)


def test_samples_are_chat_prompts_with_the_issue_and_files(suite: Repository) -> None:
    samples = suite.samples()
    assert len(samples) == len(suite.tasks())
    first = samples[0]
    assert first.endpoint == "chat" and first.messages is not None
    content = first.messages[0]["content"]
    assert "Hello,  World!" in content and "### textkit/slug.py" in content
    assert "<<<<<<< SEARCH" in content and "test_issue" not in content
    assert [s.id for s in suite.select(First(first=3))] == [s.id for s in samples[:3]]
    picked = suite.select(Ids(ids=["repository/median-even"]))
    assert [s.task_id for s in picked] == ["repository/median-even"]
    seeded = suite.select(Seeded(seeded=5, seed=1))
    assert len(seeded) == 5 and seeded == suite.select(Seeded(seeded=5, seed=1))
    with pytest.raises(ValueError, match="no samples"):
        suite.select(Ids(ids=["repository/nope"]))
    assert json.loads(json.dumps(first.request_fields())) == {}
    assert suite.name == "repository" and suite.version == 1 and suite.stage == "repository"
