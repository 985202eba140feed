"""Reading a model's answer as a patch: unified diffs and search/replace blocks.

Both formats are accepted; an answer holding ``<<<<<<< SEARCH`` markers is read as
search/replace blocks, else as a unified diff. Parsing is lenient where models commonly slip
(hunk header counts that do not match the body, context lines that lost their leading space
on an empty line, ``a/``/``b/`` prefixes, code fences around the patch) and strict where the
intent is unclear: every problem raises ``MalformedPatchError`` with a short reason, which the
scorer reports as the ``malformed_patch`` class.

Search/replace block grammar (the path on the last non-blank, non-fence line before it)::

    pkg/module.py
    <<<<<<< SEARCH
    exact lines to find
    =======
    lines to put instead
    >>>>>>> REPLACE
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal

Format = Literal["unified", "search_replace"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_SEARCH = re.compile(r"^\s*<{5,9} ?SEARCH\s*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*>{5,9} ?REPLACE\s*$")


class MalformedPatchError(ValueError):
    """The answer holds no patch, or one that cannot be read unambiguously."""


@dataclass(frozen=True, slots=True)
class Hunk:
    """One hunk; ``lines`` keep their one-character prefix (`` ``, ``+`` or ``-``)."""

    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: tuple[str, ...]

    @property
    def old(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " -"]

    @property
    def new(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " +"]


@dataclass(frozen=True, slots=True)
class FileDiff:
    """The hunks of one file; a path is None for ``/dev/null`` (creation or deletion)."""

    old_path: str | None
    new_path: str | None
    hunks: tuple[Hunk, ...]


@dataclass(frozen=True, slots=True)
class SearchReplace:
    path: str
    search: str
    replace: str


@dataclass(frozen=True, slots=True)
class Patch:
    """A parsed answer: ``files`` for a unified diff, ``blocks`` for search/replace; ``notes``
    name the slips forgiven while reading it (e.g. hunk counts that did not match)."""

    format: Format
    files: tuple[FileDiff, ...] = ()
    blocks: tuple[SearchReplace, ...] = ()
    notes: tuple[str, ...] = field(default=())


def clean_path(raw: str) -> str:
    """A repository-relative path from a diff header or a block's path line; refuses paths
    that leave the repository."""
    text = raw.split("\t", 1)[0].strip().strip("`*'\"")
    if text.startswith(("a/", "b/")):
        text = text[2:]
    while text.startswith("./"):
        text = text[2:]
    path = PurePosixPath(text)
    if not text or path.is_absolute() or ".." in path.parts or " " in text:
        raise MalformedPatchError(f"unusable path {raw.strip()[:80]!r}")
    return str(path)


def _header_path(raw: str) -> str | None:
    text = raw.split("\t", 1)[0].strip()
    return None if text == "/dev/null" else clean_path(text)


def parse_answer(text: str) -> Patch:
    """The patch an answer stands for; ``MalformedPatchError`` when there is none or it is broken."""
    lines = text.replace("\r\n", "\n").split("\n")
    if any(_SEARCH.match(line) for line in lines):
        return parse_search_replace(lines)
    return parse_unified(lines)


def _is_file_header(lines: list[str], i: int) -> bool:
    return lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _hunk_body(lines: list[str], i: int) -> tuple[list[str], list[bool], int]:
    """Hunk lines from ``i``; ``padded`` marks empty lines read as empty context lines."""
    body: list[str] = []
    padded: list[bool] = []
    while i < len(lines):
        line = lines[i]
        if line.startswith(("@@", "diff ", "```")) or _is_file_header(lines, i):
            break
        if line == "":
            body.append(" ")
            padded.append(True)
        elif line[0] in " +-":
            body.append(line)
            padded.append(False)
        elif not line.startswith("\\"):
            break
        i += 1
    return body, padded, i


def parse_unified(lines: list[str]) -> Patch:
    files: list[FileDiff] = []
    notes: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("@@") and not files:
            raise MalformedPatchError("a hunk without a file header (--- / +++)")
        if not _is_file_header(lines, i):
            i += 1
            continue
        old, new = _header_path(lines[i][4:]), _header_path(lines[i + 1][4:])
        if old is None and new is None:
            raise MalformedPatchError("both paths of a file header are /dev/null")
        i += 2
        hunks: list[Hunk] = []
        while i < len(lines) and lines[i].startswith("@@"):
            match = _HUNK.match(lines[i])
            if match is None:
                raise MalformedPatchError(f"unreadable hunk header {lines[i][:60]!r}")
            o_start, o_len, n_start, n_len = (
                int(g) if g is not None else 1 for g in match.groups()
            )
            body, padded, i = _hunk_body(lines, i + 1)
            # Trailing empty lines are context only when the header's count says so.
            while body and padded[-1] and _count(body, " -") != o_len:
                body.pop()
                padded.pop()
            if all(padded):
                raise MalformedPatchError("an empty hunk")
            if _count(body, " -") != o_len or _count(body, " +") != n_len:
                notes.append("hunk header counts do not match its lines")
            hunks.append(Hunk(o_start, o_len, n_start, n_len, tuple(body)))
        if not hunks:
            raise MalformedPatchError(f"file header for {new or old} without hunks")
        files.append(FileDiff(old, new, tuple(hunks)))
    if not files:
        raise MalformedPatchError("no unified diff or search/replace block in the answer")
    return Patch("unified", files=tuple(files), notes=tuple(dict.fromkeys(notes)))


def _count(body: list[str], kinds: str) -> int:
    return sum(1 for line in body if line[0] in kinds)


def _block_path(lines: list[str], i: int, previous: str | None) -> str:
    j = i - 1
    while j >= 0 and (not lines[j].strip() or lines[j].strip().startswith("```")):
        j -= 1
    if j >= 0 and not _REPLACE.match(lines[j]):
        raw = lines[j].strip()
        raw = re.sub(r"^(#+|//|file:|path:)\s*", "", raw, flags=re.IGNORECASE).rstrip(":")
        try:
            return clean_path(raw)
        except MalformedPatchError:
            if previous is None:
                raise
    if previous is None:
        raise MalformedPatchError("a search/replace block without a file path")
    return previous


def parse_search_replace(lines: list[str]) -> Patch:
    blocks: list[SearchReplace] = []
    previous: str | None = None
    i = 0
    while i < len(lines):
        if not _SEARCH.match(lines[i]):
            if _DIVIDER.match(lines[i]) or _REPLACE.match(lines[i]):
                raise MalformedPatchError("a search/replace marker outside a block")
            i += 1
            continue
        path = _block_path(lines, i, previous)
        j = i + 1
        while j < len(lines) and not _DIVIDER.match(lines[j]):
            if _SEARCH.match(lines[j]) or _REPLACE.match(lines[j]):
                raise MalformedPatchError("a search/replace block without its ======= divider")
            j += 1
        k = j + 1
        while k < len(lines) and not _REPLACE.match(lines[k]):
            if _SEARCH.match(lines[k]) or _DIVIDER.match(lines[k]):
                raise MalformedPatchError("a search/replace block without its >>>>>>> REPLACE end")
            k += 1
        if j >= len(lines) or k >= len(lines):
            raise MalformedPatchError("an unterminated search/replace block")
        search, replace = lines[i + 1 : j], lines[j + 1 : k]
        blocks.append(
            SearchReplace(
                path,
                "\n".join(search) + "\n" if search else "",
                "\n".join(replace) + "\n" if replace else "",
            )
        )
        previous = path
        i = k + 1
    return Patch("search_replace", blocks=tuple(blocks))
