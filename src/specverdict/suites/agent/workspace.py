"""The agent's workspace and the tools that act on it.

The workspace is a set of text files held by the harness (the parent process), never a directory
the model's code can reach: ``read_file``, ``write_file``, ``list_dir`` and ``search`` act on this
in-memory copy, with every path confined to it (relative, no ``..``, no absolute path, no
backslash or NUL). Test files are read-only: the task's tests are the harness's, and a write to
one is refused. ``run_tests`` copies the files into a sandboxed execution (see ``testrun``).

Every tool returns a ``ToolResult``: text for the model, and ``ok`` False for a tool error (the
model asked for something that cannot be done: a missing file, a path outside the workspace, a
read-only file), which the episode counts to measure recovery.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: bounds on what the model may write: the workspace stays small
MAX_FILE_CHARS = 64_000
MAX_FILES = 100
MAX_SEARCH_HITS = 40


@dataclass(frozen=True, slots=True)
class ToolResult:
    ok: bool
    text: str


def _function(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


_PATH = {"type": "string", "description": "a path relative to the workspace root"}

#: the tools, in OpenAI's ``tools`` format
TOOLS: tuple[dict[str, Any], ...] = (
    _function("read_file", "Read a text file of the workspace.", {"path": _PATH}, ["path"]),
    _function(
        "write_file",
        "Replace the whole content of a file (created if missing). Test files are read-only.",
        {"path": _PATH, "content": {"type": "string", "description": "the new file content"}},
        ["path", "content"],
    ),
    _function(
        "list_dir",
        "List a directory of the workspace (the root when path is omitted); folders end in /.",
        {"path": _PATH},
        [],
    ),
    _function(
        "search",
        "Find the lines holding a literal text in the workspace's files.",
        {
            "text": {"type": "string", "description": "the literal text to find", "minLength": 1},
            "path": {**_PATH, "description": "a file or folder to search (default: everything)"},
        },
        ["text"],
    ),
    _function("run_tests", "Run the workspace's test suite and report the results.", {}, []),
)


def _compact(name: str, description: str, params: dict[str, Any]) -> dict[str, Any]:
    """A tool without per-parameter descriptions (every parameter a required string): the
    generated suite's tool list stays short enough for the reference models' context."""
    return _function(
        name,
        description,
        {p: {"type": "string", **extra} for p, extra in params.items()},
        list(params),
    )


#: an edit tool in the style of coding agents' string-replace editors (``str_replace``): the
#: model names the exact text to change instead of rewriting the whole file
EDIT_TOOL = _compact(
    "replace_in_file",
    "Replace the text old, which must occur once, by new in the file at path.",
    {"path": {}, "old": {"minLength": 1}, "new": {}},
)

#: the short tool set of the generated agent suite: read, edit, test
EDIT_TOOLS: tuple[dict[str, Any], ...] = (
    _compact("read_file", "Read the file at path.", {"path": {}}),
    EDIT_TOOL,
    _compact("run_tests", "Run the tests.", {}),
)

#: each tool's parameter schema, by name
SCHEMAS: dict[str, dict[str, Any]] = {
    t["function"]["name"]: t["function"]["parameters"] for t in (*TOOLS, EDIT_TOOL)
}


def confine(path: str) -> str | None:
    """The normalised workspace path (``""`` for the root), or None when ``path`` leaves it."""
    if "\\" in path or "\0" in path or path.startswith("/"):
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    return posixpath.join(*parts) if parts else ""


class Workspace:
    """Text files by normalised path; ``revision`` counts the writes that changed something."""

    def __init__(self, files: Mapping[str, str], read_only: frozenset[str] = frozenset()) -> None:
        self.files = dict(files)
        self.read_only = read_only
        self.revision = 0

    def changed(self, original: Mapping[str, str]) -> dict[str, str]:
        """The files whose content differs from ``original`` (new ones included)."""
        return {p: t for p, t in sorted(self.files.items()) if original.get(p) != t}

    def _is_dir(self, path: str) -> bool:
        return path == "" or any(p.startswith(path + "/") for p in self.files)

    def read_file(self, path: str) -> ToolResult:
        where = confine(path)
        if where is None:
            return ToolResult(False, f"error: {path!r} is outside the workspace")
        if where not in self.files:
            what = "is a directory" if self._is_dir(where) else "does not exist"
            return ToolResult(False, f"error: {path} {what}")
        return ToolResult(True, self.files[where])

    def write_file(self, path: str, content: str) -> ToolResult:
        where = confine(path)
        if where is None or where == "":
            return ToolResult(False, f"error: {path!r} is not a file path inside the workspace")
        if where in self.read_only:
            return ToolResult(False, f"error: {where} is a test file and is read-only")
        if self._is_dir(where):
            return ToolResult(False, f"error: {where} is a directory")
        if len(content) > MAX_FILE_CHARS:
            return ToolResult(False, f"error: content longer than {MAX_FILE_CHARS} characters")
        if where not in self.files and len(self.files) >= MAX_FILES:
            return ToolResult(False, f"error: the workspace holds {MAX_FILES} files already")
        if self.files.get(where) != content:
            self.files[where] = content
            self.revision += 1
        return ToolResult(True, f"wrote {len(content)} characters to {where}")

    def replace_in_file(self, path: str, old: str, new: str) -> ToolResult:
        where = confine(path)
        if where is None or where not in self.files:
            return ToolResult(False, f"error: {path} does not exist")
        if where in self.read_only:
            return ToolResult(False, f"error: {where} is a test file and is read-only")
        count = self.files[where].count(old)
        if count != 1:
            times = "does not occur" if count == 0 else f"occurs {count} times"
            return ToolResult(False, f"error: the old text {times} in {where}")
        content = self.files[where].replace(old, new)
        if len(content) > MAX_FILE_CHARS:
            return ToolResult(False, f"error: content longer than {MAX_FILE_CHARS} characters")
        if content != self.files[where]:
            self.files[where] = content
            self.revision += 1
        return ToolResult(True, f"replaced 1 occurrence in {where}")

    def list_dir(self, path: str = "") -> ToolResult:
        where = confine(path)
        if where is None:
            return ToolResult(False, f"error: {path!r} is outside the workspace")
        if not self._is_dir(where):
            what = "is a file" if where in self.files else "does not exist"
            return ToolResult(False, f"error: {path} {what}")
        prefix = where + "/" if where else ""
        entries = set()
        for p in self.files:
            if p.startswith(prefix):
                head, sep, _ = p[len(prefix) :].partition("/")
                entries.add(head + sep)
        return ToolResult(True, "\n".join(sorted(entries)))

    def search(self, text: str, path: str = "") -> ToolResult:
        where = confine(path)
        if where is None:
            return ToolResult(False, f"error: {path!r} is outside the workspace")
        if where and where not in self.files and not self._is_dir(where):
            return ToolResult(False, f"error: {path} does not exist")
        hits: list[str] = []
        for p in sorted(self.files):
            if where and p != where and not p.startswith(where + "/"):
                continue
            for n, line in enumerate(self.files[p].splitlines(), 1):
                if text in line:
                    hits.append(f"{p}:{n}: {line.strip()}")
        if len(hits) > MAX_SEARCH_HITS:
            hits = [*hits[:MAX_SEARCH_HITS], f"... {len(hits) - MAX_SEARCH_HITS} more"]
        return ToolResult(True, "\n".join(hits) if hits else "no match")
