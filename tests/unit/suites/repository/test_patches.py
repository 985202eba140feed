"""Reading answers as unified diffs or search/replace blocks, and applying them."""

from __future__ import annotations

import pytest

from specverdict.suites.repository.apply import PatchDoesNotApplyError, apply_patch
from specverdict.suites.repository.patches import MalformedPatchError, parse_answer

FILES = {
    "pkg/mod.py": "def f(x):\n    if x < 0:\n        return 0\n    return x\n\n\nTAIL = 1\n",
    "pkg/other.py": "A = 1\nB = 2\n",
}


def apply(text: str) -> dict[str, str]:
    return apply_patch(FILES, parse_answer(text))


def test_plain_unified_diff_in_a_fence_with_prose() -> None:
    answer = (
        "Here is the fix:\n\n```diff\n"
        "diff --git a/pkg/mod.py b/pkg/mod.py\n"
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n"
        "@@ -1,4 +1,4 @@\n def f(x):\n-    if x < 0:\n+    if x <= 0:\n         return 0\n"
        "     return x\n```\nThat should do it.\n"
    )
    patch = parse_answer(answer)
    assert patch.format == "unified" and patch.notes == ()
    assert apply(answer)["pkg/mod.py"].startswith("def f(x):\n    if x <= 0:\n")
    assert apply(answer)["pkg/other.py"] == FILES["pkg/other.py"]


def test_wrong_line_numbers_and_counts_are_forgiven_but_noted() -> None:
    answer = "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -40,9 +40,9 @@\n-TAIL = 1\n+TAIL = 2\n"
    patch = parse_answer(answer)
    assert patch.notes == ("hunk header counts do not match its lines",)
    assert apply(answer)["pkg/mod.py"].endswith("\n\n\nTAIL = 2\n")


def test_empty_context_line_without_its_space() -> None:
    # The blank line between "return x" and "TAIL" lost its leading space, as models often do.
    answer = (
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -4,4 +4,4 @@\n     return x\n\n\n-TAIL = 1\n"
        "+TAIL = 3\n\n"
    )
    assert apply(answer)["pkg/mod.py"].endswith("    return x\n\n\nTAIL = 3\n")


def test_trailing_whitespace_is_tolerated_only_when_nothing_matches_exactly() -> None:
    answer = "--- a/pkg/other.py\n+++ b/pkg/other.py\n@@ -1,2 +1,2 @@\n A = 1   \n-B = 2\n+B = 5\n"
    assert apply(answer)["pkg/other.py"] == "A = 1\nB = 5\n"


def test_multi_file_diff_with_creation_and_deletion() -> None:
    answer = (
        "--- a/pkg/other.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-A = 1\n-B = 2\n"
        "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,1 @@\n+C = 3\n"
    )
    files = apply(answer)
    assert "pkg/other.py" not in files and files["pkg/new.py"] == "C = 3\n"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("I think the bug is in f.", "no unified diff or search/replace block"),
        ("@@ -1,2 +1,2 @@\n-A = 1\n+A = 2\n", "a hunk without a file header"),
        ("--- a/pkg/mod.py\n+++ b/pkg/mod.py\nsome text\n", "without hunks"),
        ("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ bad @@\n-x\n", "unreadable hunk header"),
        ("--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", "unusable path"),
        ("pkg/mod.py\n<<<<<<< SEARCH\nA = 1\n>>>>>>> REPLACE\n", "without its ======= divider"),
        ("pkg/mod.py\n<<<<<<< SEARCH\nA = 1\n=======\nA = 2\n", "unterminated"),
        ("<<<<<<< SEARCH\nA = 1\n=======\nA = 2\n>>>>>>> REPLACE\n", "without a file path"),
        ("=======\n>>>>>>> REPLACE\npkg/mod.py\n<<<<<<< SEARCH\n", "outside a block"),
    ],
)
def test_malformed_answers_say_why(answer: str, reason: str) -> None:
    with pytest.raises(MalformedPatchError, match=reason):
        parse_answer(answer)


def test_search_replace_blocks_with_path_styles() -> None:
    answer = (
        "First:\n\n`pkg/mod.py`\n```python\n<<<<<<< SEARCH\n    if x < 0:\n=======\n"
        "    if x <= 0:\n>>>>>>> REPLACE\n```\n\n"
        "### pkg/other.py:\n```\n<<<<<<< SEARCH\nB = 2\n=======\nB = 20\n>>>>>>> REPLACE\n```\n"
    )
    patch = parse_answer(answer)
    assert patch.format == "search_replace"
    assert [b.path for b in patch.blocks] == ["pkg/mod.py", "pkg/other.py"]
    files = apply(answer)
    assert "    if x <= 0:\n" in files["pkg/mod.py"] and files["pkg/other.py"] == "A = 1\nB = 20\n"


def test_search_replace_reuses_the_previous_path_and_creates_files() -> None:
    answer = (
        "pkg/other.py\n<<<<<<< SEARCH\nA = 1\n=======\nA = 10\n>>>>>>> REPLACE\n"
        "<<<<<<< SEARCH\nB = 2\n=======\n>>>>>>> REPLACE\n"
        "pkg/fresh.py\n<<<<<<< SEARCH\n=======\nX = 1\n>>>>>>> REPLACE\n"
    )
    files = apply(answer)
    assert files["pkg/other.py"] == "A = 10\n" and files["pkg/fresh.py"] == "X = 1\n"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1 +1 @@\n-def g(x):\n+def h(x):\n", "hunk 1"),
        ("--- a/pkg/nope.py\n+++ b/pkg/nope.py\n@@ -1 +1 @@\n-a\n+b\n", "not in the repository"),
        ("--- /dev/null\n+++ b/pkg/other.py\n@@ -0,0 +1 @@\n+Z = 1\n", "already exists"),
        ("pkg/mod.py\n<<<<<<< SEARCH\nnot there\n=======\nx\n>>>>>>> REPLACE\n", "matches nothing"),
        ("pkg/mod.py\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n", "which exists"),
    ],
)
def test_patches_that_do_not_apply(answer: str, reason: str) -> None:
    with pytest.raises(PatchDoesNotApplyError, match=reason):
        apply(answer)


def test_hunks_are_placed_nearest_their_header_line() -> None:
    files = {"a.py": "x = 1\ny = 2\nx = 1\ny = 2\n"}
    answer = "--- a/a.py\n+++ b/a.py\n@@ -3,2 +3,2 @@\n x = 1\n-y = 2\n+y = 3\n"
    assert apply_patch(files, parse_answer(answer))["a.py"] == "x = 1\ny = 2\nx = 1\ny = 3\n"
