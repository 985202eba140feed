"""Applying a parsed patch to a repository held in memory (``{path: text}``).

Hunks are placed like ``patch`` does without fuzz: the old lines must appear exactly, at the
position the header names or at the nearest offset; only when no exact match exists are lines
compared without trailing whitespace. Search/replace blocks replace the first exact occurrence
of their SEARCH text (again falling back to a comparison without trailing whitespace); an
empty SEARCH creates a file that does not exist. Anything that cannot be placed raises
``PatchDoesNotApplyError``, reported as the ``patch_does_not_apply`` class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from specverdict.suites.repository.patches import FileDiff, Hunk, Patch, SearchReplace


class PatchDoesNotApplyError(ValueError):
    """A hunk or block that matches nothing, or a file that is missing or already there."""


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _find(lines: list[str], old: list[str], hint: int) -> int | None:
    """The start of ``old`` in ``lines`` nearest ``hint`` (exact, then modulo trailing
    whitespace)."""
    if not old:
        return max(0, min(hint, len(lines)))
    starts = range(len(lines) - len(old) + 1)
    same: tuple[Callable[[str, str], bool], ...] = (
        lambda a, b: a == b,
        lambda a, b: a.rstrip() == b.rstrip(),
    )
    for eq in same:
        found = [s for s in starts if all(eq(lines[s + k], old[k]) for k in range(len(old)))]
        if found:
            return min(found, key=lambda s: (abs(s - hint), s))
    return None


def _merged(hunk: Hunk, found: list[str]) -> list[str]:
    """The hunk's new lines, its context lines taken from the file as they are there."""
    out: list[str] = []
    k = 0
    for line in hunk.lines:
        if line[0] == " ":
            out.append(found[k])
            k += 1
        elif line[0] == "-":
            k += 1
        else:
            out.append(line[1:])
    return out


def apply_hunks(text: str, hunks: tuple[Hunk, ...], path: str) -> str:
    lines = _lines(text)
    delta = 0
    for n, hunk in enumerate(hunks, 1):
        old, new = hunk.old, hunk.new
        # A header's start is 1-based; a pure insertion (old length 0) inserts after it.
        hint = (hunk.old_start if not old else hunk.old_start - 1) + delta
        at = _find(lines, old, hint)
        if at is None:
            raise PatchDoesNotApplyError(f"hunk {n} of {path} matches no lines of the file")
        lines[at : at + len(old)] = _merged(hunk, lines[at : at + len(old)])
        delta += len(new) - len(old)
    return _text(lines)


def _apply_file(files: dict[str, str], diff: FileDiff) -> None:
    if diff.old_path is None:
        assert diff.new_path is not None
        if files.get(diff.new_path, ""):
            raise PatchDoesNotApplyError(f"{diff.new_path} is created but already exists")
        files[diff.new_path] = apply_hunks("", diff.hunks, diff.new_path)
        return
    if diff.old_path not in files:
        raise PatchDoesNotApplyError(f"{diff.old_path} is not in the repository")
    result = apply_hunks(files[diff.old_path], diff.hunks, diff.old_path)
    if diff.new_path is None:
        if result.strip():
            raise PatchDoesNotApplyError(f"{diff.old_path} is deleted but lines would remain")
        del files[diff.old_path]
        return
    if diff.new_path != diff.old_path:
        del files[diff.old_path]
    files[diff.new_path] = result


def _apply_block(files: dict[str, str], block: SearchReplace) -> None:
    if not block.search:
        if files.get(block.path, ""):
            raise PatchDoesNotApplyError(f"an empty SEARCH for {block.path}, which exists")
        files[block.path] = block.replace
        return
    if block.path not in files:
        raise PatchDoesNotApplyError(f"{block.path} is not in the repository")
    text = files[block.path]
    if block.search in text:
        files[block.path] = text.replace(block.search, block.replace, 1)
        return
    lines, old = _lines(text), _lines(block.search)
    at = _find(lines, old, 0)
    if at is None:
        raise PatchDoesNotApplyError(f"a SEARCH text matches nothing in {block.path}")
    lines[at : at + len(old)] = _lines(block.replace)
    files[block.path] = _text(lines)


def apply_patch(files: Mapping[str, str], patch: Patch) -> dict[str, str]:
    """The repository after ``patch``; the input is left as it was."""
    result = dict(files)
    for diff in patch.files:
        _apply_file(result, diff)
    for block in patch.blocks:
        _apply_block(result, block)
    return result
