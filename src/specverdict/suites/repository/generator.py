"""Repository tasks made by injecting a bug into a real package, keeping only caught mutants.

Source packages are permissively licensed pure-Python source distributions that ship their
tests, fetched from PyPI at preparation time (``pip download --no-binary :all: --no-deps``)
into ``~/.cache/specverdict/sdists``; their licence is read from the distribution and recorded
in every task's ``origin``. Nothing from them is shipped with specverdict.

One mutation per task, chosen by AST inside a function (single-line expressions only, so the
change is one line):

- ``flipped_comparison``: ``<`` to ``>=``, ``==`` to ``!=``, ``in`` to ``not in``, ...
- ``off_by_one``: the integer of ``x + k`` / ``x - k`` becomes ``k + 1``;
- ``dropped_condition``: the last operand of an ``and`` / ``or`` is dropped;
- ``swapped_arguments``: the first two positional arguments of a call are swapped;
- ``wrong_constant``: ``True``/``False`` flipped, another integer constant changed.

The package's own tests whose names mention the mutated function are run, each in its own
sandbox execution, on the original and on the mutant; a mutant is kept when all of them pass
on the original and at least one fails on the mutant (those become FAIL_TO_PASS, the rest and a
few tests of other functions PASS_TO_PASS). The gold patch reverses the injection.
"""

from __future__ import annotations

import ast
import copy
import email.parser
import json
import random
import re
import subprocess
import sys
import tarfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from specverdict.errors import ConfigError
from specverdict.sandbox import Sandbox
from specverdict.suites import pyast
from specverdict.suites.cache import cache_root
from specverdict.suites.repository.score import (
    execution_for_test,
    outcome_of_test,
)
from specverdict.suites.repository.task import RepoTask, is_test_path

#: packages known to fit (name: (version, import package)); both ship their tests in the sdist
PINNED: dict[str, tuple[str, str]] = {
    "more-itertools": ("10.5.0", "more_itertools"),
    "toolz": ("1.0.0", "toolz"),
}
OPERATORS = (
    "flipped_comparison",
    "off_by_one",
    "dropped_condition",
    "swapped_arguments",
    "wrong_constant",
)
_FLIP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.LtE: ast.Gt,
    ast.Gt: ast.LtE,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


def download_sdist(name: str, version: str, cache_dir: Path | None = None) -> Path:
    """The sdist of ``name==version`` in the cache, downloaded with pip when missing."""
    directory = (cache_dir or cache_root()) / "sdists"
    directory.mkdir(parents=True, exist_ok=True)
    found = _cached_sdist(directory, name, version)
    if found is None:
        _pip_download(name, version, directory)
        found = _cached_sdist(directory, name, version)
    if found is None:
        raise ConfigError(f"pip left no sdist of {name}=={version} in {directory}")
    return found


def _pip_download(name: str, version: str, directory: Path) -> None:
    try:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-binary",
                ":all:",
                "--no-deps",
                "--quiet",
                f"{name}=={version}",
                "-d",
                str(directory),
            ],
            check=True,
            timeout=600,
            capture_output=True,
            text=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", None) or str(exc)
        raise ConfigError(
            f"cannot download the sdist of {name}=={version}: {detail.strip()[-300:]}"
        ) from None


def _cached_sdist(directory: Path, name: str, version: str) -> Path | None:
    stems = {f"{n}-{version}.tar.gz" for n in (name, name.replace("-", "_"))}
    return next((p for p in sorted(directory.glob("*.tar.gz")) if p.name in stems), None)


@dataclass(frozen=True)
class PackageSource:
    """A package's modules and tests read from its sdist, and its licence."""

    name: str
    version: str
    licence: str
    files: Mapping[str, str]

    @property
    def modules(self) -> list[str]:
        return sorted(p for p in self.files if not is_test_path(p))

    @property
    def test_files(self) -> list[str]:
        return sorted(p for p in self.files if is_test_path(p) and p.endswith(".py"))


def read_sdist(path: Path, package: str) -> PackageSource:
    """Read ``package``'s ``.py`` files and the top-level ``tests/`` from an sdist."""
    files: dict[str, str] = {}
    meta = ""
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            if not member.isfile() or len(parts) < 2:
                continue
            inner = str(PurePosixPath(*parts[1:]))
            if inner == "PKG-INFO":
                meta = _read(tar, member)
            elif inner.endswith(".py") and parts[1] in (package, "tests"):
                files[inner] = _read(tar, member)
    info = email.parser.Parser().parsestr(meta)
    classifiers = [c for c in info.get_all("Classifier") or [] if c.startswith("License ::")]
    licence = (
        info.get("License-Expression")
        or (classifiers[0].rsplit("::", 1)[-1].strip() if classifiers else None)
        or info.get("License")
        or "unknown"
    )
    return PackageSource(
        name=info.get("Name", path.name),
        version=info.get("Version", "?"),
        licence=licence.strip().splitlines()[0],
        files=files,
    )


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> str:
    handle = tar.extractfile(member)
    assert handle is not None
    return handle.read().decode("utf-8")


@dataclass(frozen=True)
class Mutation:
    """A one-line change: ``line`` (1-based) of ``path``, text ``before`` becomes ``after``."""

    path: str
    function: str
    operator: str
    line: int
    before: str
    after: str


def _segment(lines: list[str], node: ast.expr) -> tuple[int, int, int] | None:
    """(line index, start, end) of a single-line node, in characters."""
    if node.end_lineno != node.lineno or node.end_col_offset is None:
        return None
    raw = lines[node.lineno - 1].encode("utf-8")
    start = len(raw[: node.col_offset].decode("utf-8", "replace"))
    end = len(raw[: node.end_col_offset].decode("utf-8", "replace"))
    return node.lineno - 1, start, end


def _variants(node: ast.expr, covered: set[int]) -> Iterator[tuple[str, ast.expr]]:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIP:
        flipped = copy.deepcopy(node)
        flipped.ops = [_FLIP[type(node.ops[0])]()]
        yield "flipped_comparison", flipped
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Add | ast.Sub)
        and isinstance(node.right, ast.Constant)
        and type(node.right.value) is int
    ):
        covered.add(id(node.right))
        shifted = copy.deepcopy(node)
        shifted.right = ast.Constant(node.right.value + 1)
        yield "off_by_one", shifted
    if isinstance(node, ast.BoolOp) and len(node.values) >= 2:
        fewer = copy.deepcopy(node)
        fewer.values = fewer.values[:-1]
        yield "dropped_condition", fewer.values[0] if len(fewer.values) == 1 else fewer
    if (
        isinstance(node, ast.Call)
        and len(node.args) >= 2
        and not any(isinstance(a, ast.Starred) for a in node.args[:2])
        and ast.dump(node.args[0]) != ast.dump(node.args[1])
    ):
        swapped = copy.deepcopy(node)
        swapped.args[0], swapped.args[1] = swapped.args[1], swapped.args[0]
        yield "swapped_arguments", swapped
    if isinstance(node, ast.Constant) and id(node) not in covered:
        if type(node.value) is bool:
            yield "wrong_constant", ast.Constant(not node.value)
        elif type(node.value) is int:
            yield "wrong_constant", ast.Constant(1 if node.value == 0 else node.value * 2 + 1)


def mutations(path: str, source: str) -> list[Mutation]:
    """Every one-line mutation inside the functions of a module, in source order."""
    tree = pyast.parse(source)
    lines = source.split("\n")
    found: list[Mutation] = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        covered: set[int] = set()
        skip: set[int] = set()
        body = func.body[1:] if ast.get_docstring(func) is not None else func.body
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.JoinedStr):
                    skip.update(id(n) for n in ast.walk(node))
                if (
                    id(node) in skip
                    or not isinstance(node, ast.expr)
                    or (span := _segment(lines, node)) is None
                ):
                    continue
                index, start, end = span
                line = lines[index]
                for operator, new in _variants(node, covered):
                    # Same operator and precedence as the node replaced: no parentheses needed.
                    after = line[:start] + ast.unparse(new) + line[end:]
                    if after != line:
                        found.append(Mutation(path, func.name, operator, index + 1, line, after))
    unique = {(m.line, m.after): m for m in found}
    return sorted(unique.values(), key=lambda m: (m.line, m.after))


def mutate(source: str, mutation: Mutation) -> str | None:
    """The mutated module, or None when it does not compile."""
    lines = source.split("\n")
    if lines[mutation.line - 1] != mutation.before:
        raise ValueError(f"{mutation.path}:{mutation.line} is not the expected line")
    lines[mutation.line - 1] = mutation.after
    text = "\n".join(lines)
    try:
        pyast.parse(text)
    except SyntaxError:
        return None
    return text


def discover_tests(path: str, source: str) -> list[str]:
    """``path::test_f`` and ``path::Class::test_m`` ids of a test module."""
    tree = pyast.parse(source)
    ids: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            ids.append(f"{path}::{node.name}")
        elif isinstance(node, ast.ClassDef):
            ids.extend(
                f"{path}::{node.name}::{m.name}"
                for m in node.body
                if isinstance(m, ast.FunctionDef) and m.name.startswith("test")
            )
    return ids


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def relevant_tests(function: str, tests: Sequence[str]) -> list[str]:
    """The test ids whose class or function name mentions ``function``."""
    key = _key(function)
    if len(key) < 3:
        return []
    return [t for t in tests if any(key in _key(part) for part in t.split("::")[1:])]


def _enclosing_lines(source: str, function: str, line: int) -> tuple[int, int]:
    for node in ast.walk(pyast.parse(source)):
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name == function
            and node.lineno <= line <= (node.end_lineno or node.lineno)
        ):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return start, node.end_lineno or node.lineno
    return line, line


def _unique_fix(source: str, mutation: Mutation) -> tuple[str, str]:
    """(mutant text, original text) of the smallest window of lines around the mutated line
    that occurs once in the mutant; ``source`` is the original module."""
    lines = source.split("\n")
    index = mutation.line - 1
    for radius in range(0, 20):
        lo, hi = max(0, index - radius), min(len(lines), index + radius + 1)
        window = lines[lo:hi]
        mutated = "\n".join([*window[: index - lo], mutation.after, *window[index - lo + 1 :]])
        text = "\n".join([*lines[:index], mutation.after, *lines[index + 1 :]])
        if text.count(mutated + "\n") == 1:
            return mutated + "\n", "\n".join(window) + "\n"
    raise ValueError(f"no unique window around {mutation.path}:{mutation.line}")


def _issue(package: PackageSource, mutation: Mutation, failing: Sequence[str], why: str) -> str:
    tests = ", ".join(f"`{t}`" for t in failing[:3])
    return (
        f"`{mutation.function}` in `{mutation.path}` ({package.name} {package.version}) "
        f"misbehaves after a recent change: the tests {tests} now fail"
        f" ({why}). Find the bug in `{mutation.function}` and fix it."
    )


@dataclass(frozen=True)
class Candidate:
    mutation: Mutation
    mutant: str
    relevant: tuple[str, ...]
    others: tuple[str, ...]


Runner = Callable[[Mapping[str, str], Sequence[str]], list[tuple[bool, str]]]


def sandbox_runner(sandbox: Sandbox, workers: int = 2) -> Runner:
    """Run tests, each in its own execution, over a repository; (passed, why) per test."""

    def run(files: Mapping[str, str], tests: Sequence[str]) -> list[tuple[bool, str]]:
        nonce = "generator"
        results = sandbox.run_many([execution_for_test(files, t, nonce) for t in tests], workers)
        return [outcome_of_test(r, nonce) for r in results]

    return run


def generate_tasks(
    package: PackageSource,
    run: Runner,
    limit: int = 20,
    seed: int = 0,
    max_relevant: int = 6,
    operators: Sequence[str] = OPERATORS,
) -> list[RepoTask]:
    """Up to ``limit`` tasks from caught mutants, tried in a seeded order."""
    all_tests = [t for p in package.test_files for t in discover_tests(p, package.files[p])]
    found = [
        m
        for path in package.modules
        for m in mutations(path, package.files[path])
        if m.operator in operators
    ]
    random.Random(seed).shuffle(found)
    baseline: dict[str, bool] = {}
    tasks: list[RepoTask] = []
    used: set[tuple[str, str]] = set()
    rng = random.Random(seed + 1)
    for mutation in found:
        if len(tasks) >= limit:
            break
        if (mutation.path, mutation.function) in used:
            continue
        relevant = relevant_tests(mutation.function, all_tests)[:max_relevant]
        if not relevant:
            continue
        others = [t for t in all_tests if t not in relevant]
        chosen_others = rng.sample(others, min(3, len(others)))
        todo = [t for t in (*relevant, *chosen_others) if t not in baseline]
        for test, (ok, _) in zip(todo, run(package.files, todo), strict=True):
            baseline[test] = ok
        relevant = [t for t in relevant if baseline[t]]
        chosen_others = [t for t in chosen_others if baseline[t]]
        if not relevant:
            continue
        mutant = mutate(package.files[mutation.path], mutation)
        if mutant is None:
            continue
        files = {**package.files, mutation.path: mutant}
        tests = [*relevant, *chosen_others]
        outcomes = dict(zip(tests, run(files, tests), strict=True))
        failing = [t for t in relevant if not outcomes[t][0]]
        if not failing:
            continue
        passing = [t for t in tests if outcomes[t][0]]
        task = _task(package, mutation, mutant, failing, passing, outcomes[failing[0]][1])
        if task is not None:
            tasks.append(task)
            used.add((mutation.path, mutation.function))
    return tasks


def _task(
    package: PackageSource,
    mutation: Mutation,
    mutant: str,
    failing: Sequence[str],
    passing: Sequence[str],
    why: str,
) -> RepoTask | None:
    try:
        bad, good = _unique_fix(package.files[mutation.path], mutation)
    except ValueError:
        return None
    start, end = _enclosing_lines(mutant, mutation.function, mutation.line)
    slug = re.sub(r"[^a-z0-9]+", "-", f"{mutation.path}-{mutation.line}-{mutation.operator}")
    return RepoTask(
        task_id=f"repository-mutants/{package.name}-{slug.strip('-')}",
        issue=_issue(package, mutation, failing, why.splitlines()[0][:160] if why else "fail"),
        files={**package.files, mutation.path: mutant},
        fix=((mutation.path, bad, good),),
        fail_to_pass=tuple(failing[:5]),
        pass_to_pass=tuple(passing[:5]),
        shown=(mutation.path,),
        excerpts={mutation.path: (start, end)},
        origin=(
            f"{package.name} {package.version} sdist from PyPI, licence {package.licence}; "
            f"{mutation.operator} injected at {mutation.path}:{mutation.line}"
        ),
    )


def task_to_json(task: RepoTask, package: PackageSource) -> dict[str, object]:
    """A generated task without the package's files (they are read from the cached sdist)."""
    path, bad, good = task.fix[0]
    return {
        "task_id": task.task_id,
        "issue": task.issue,
        "path": path,
        "mutant": task.files[path],
        "fix": [bad, good],
        "fail_to_pass": list(task.fail_to_pass),
        "pass_to_pass": list(task.pass_to_pass),
        "excerpt": list(task.excerpts[path]),
        "origin": task.origin,
        "package": [package.name, package.version, package.licence],
    }


def task_from_json(data: Mapping[str, object], package: PackageSource) -> RepoTask:
    path = str(data["path"])
    bad, good = (str(x) for x in data["fix"])  # type: ignore[attr-defined]
    start, end = (int(x) for x in data["excerpt"])  # type: ignore[attr-defined]
    return RepoTask(
        task_id=str(data["task_id"]),
        issue=str(data["issue"]),
        files={**package.files, path: str(data["mutant"])},
        fix=((path, bad, good),),
        fail_to_pass=tuple(str(t) for t in data["fail_to_pass"]),  # type: ignore[attr-defined]
        pass_to_pass=tuple(str(t) for t in data["pass_to_pass"]),  # type: ignore[attr-defined]
        shown=(path,),
        excerpts={path: (start, end)},
        origin=str(data["origin"]),
    )


def dump_tasks(path: Path, tasks: Sequence[RepoTask], package: PackageSource) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([task_to_json(t, package) for t in tasks], indent=1))
