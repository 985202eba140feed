"""Generated tasks for the agent and repository stages, built on the function families.

Two kinds of task. A *bug fix* plants one bug (a mutation of one line) in a canonical function
and keeps it only when the function's tests catch it and the mutated line occurs once in its
file. A *stub* leaves a function unimplemented (its signature and docstring, then ``raise
NotImplementedError``) and asks for it to be implemented, as a feature request does. The agent
stage gets the function in a one-module workspace with tests and the tools read / replace /
run; the repository stage gets a small package of several modules and answers with a
search/replace block.
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass
from typing import Any

from specverdict.lab.synth.functions import (
    FAMILIES,
    Args,
    Draft,
    Instance,
    call,
    compile_function,
    example_of,
    make_instance,
)
from specverdict.suites import pyast

MODULES = ("mathx", "listops", "textutil", "helpers", "calc", "util", "stats", "numbers_", "core")
PACKAGES = ("shop", "toolkit", "mylib", "ledger", "inventory", "report", "metrics", "app")

_CMP_SWAPS = ((" >= ", " > "), (" <= ", " < "), (" > ", " >= "), (" < ", " <= "), (" == ", " != "))
_OP_SWAPS = ((" + ", " - "), (" - ", " + "), (" * ", " + "), (" // ", " % "))
_INT = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
#: the body of a function left to implement (a stub task)
STUB = "    raise NotImplementedError"


@dataclass(frozen=True)
class Bug:
    """``instance`` with line ``line`` (0-based, in the body) replaced by ``buggy``."""

    instance: Instance
    line: int
    buggy: str
    fixed: str
    failing: tuple[Args, Any, Any]  # a failing input, the right output, the buggy output

    @property
    def buggy_body(self) -> str:
        lines = self.instance.body.splitlines()
        lines[self.line] = self.buggy
        return "\n".join(lines) + "\n"


def mutations(line: str, rng: random.Random) -> list[str]:
    """Candidate buggy versions of one line of code."""
    out = []
    code = line.split("#", 1)[0]
    if code.strip().startswith(("def ", '"""')):
        return []
    for a, b in _CMP_SWAPS + _OP_SWAPS:
        if a in code:
            out.append(line.replace(a, b, 1))
    for m in _INT.finditer(code):
        value = int(m.group(1))
        new = value + rng.choice((-1, 1)) if value > 0 else value + 1
        out.append(line[: m.start()] + str(new) + line[m.end() :])
    return out


def plant_bug(instance: Instance, rng: random.Random) -> Bug | None:
    """One bug in ``instance`` that its tests catch, or None."""
    fn = compile_function(_draft(instance))
    lines = instance.body.splitlines()
    options = [(i, m) for i, line in enumerate(lines) for m in mutations(line, rng)]
    rng.shuffle(options)
    for i, buggy in options:
        if buggy == lines[i] or instance.body.count(lines[i].strip()) != 1:
            continue
        body = "\n".join([*lines[:i], buggy, *lines[i + 1 :]]) + "\n"
        try:
            bad = compile_function(_draft(instance, body))
        except SyntaxError:
            continue
        for args in instance.inputs:
            want = call(fn, args)
            try:
                got = call(bad, args)
            except Exception:
                continue
            if got != want:
                return Bug(instance, i, buggy, lines[i], (args, want, got))
    return None


def _draft(instance: Instance, body: str | None = None) -> Draft:
    return Draft(instance.name, instance.params, instance.doc, body or instance.body, lambda r: ())


def module_source(instance: Instance, body: str) -> str:
    return instance.prompt(example_of(instance)) + body


def test_source(module: str, instance: Instance) -> str:
    """A test module: one test per hidden input, against the canonical outputs."""
    fn = compile_function(_draft(instance))
    lines = [f"from {module} import {instance.name}", ""]
    for n, args in enumerate(instance.inputs, 1):
        want = call(fn, args)
        call_text = ", ".join(repr(a) for a in args)
        lines += [
            "",
            f"def test_{n}():",
            f"    assert {instance.name}({call_text}) == {want!r}",
            "",
        ]
    return "\n".join(lines)


def call_text(name: str, args: Args) -> str:
    return f"{name}({', '.join(repr(a) for a in args)})"


# -- agent tasks ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AgentSpec:
    id: str
    instruction: str
    module: str
    files: dict[str, str]
    tests: dict[str, str]
    old: str  # the exact text of the buggy line (stripped)
    new: str
    family: str


def buggy_instance(family: str, rng: random.Random, split: str) -> Bug | None:
    """An instance of ``family`` with one bug its tests catch, or None."""
    instance = make_instance(family, rng, split)
    return plant_bug(instance, rng) if instance is not None else None


def agent_task(family: str, rng: random.Random, split: str, n: int) -> AgentSpec | None:
    bug = buggy_instance(family, rng, split)
    if bug is None:
        return None
    instance = bug.instance
    module = rng.choice(MODULES)
    path = f"{module}.py"
    args, want, got = bug.failing
    instruction = rng.choice(
        (
            f"The tests fail: {instance.name} in {path} does not do what its docstring says. Fix it.",
            f"Fix the bug in {instance.name} ({path}): {call_text(instance.name, args)} should "
            f"return {want!r}, not {got!r}.",
            f"{call_text(instance.name, args)} returns {got!r} but should return {want!r}. "
            f"The function is in {path}; make the tests pass.",
        )
    )
    return AgentSpec(
        id=f"synth-agent/{split}/{n}",
        instruction=instruction,
        module=module,
        files={path: module_source(instance, bug.buggy_body)},
        tests={f"tests/test_{module}.py": test_source(module, instance)},
        old=bug.buggy.strip(),
        new=bug.fixed.strip(),
        family=family,
    )


def stub_agent_task(family: str, rng: random.Random, split: str, n: int) -> AgentSpec | None:
    """Implement a stubbed function so that its tests pass: the edit replaces the stub's
    ``raise NotImplementedError`` by the body."""
    instance = make_instance(family, rng, split)
    if instance is None:
        return None
    module = rng.choice(MODULES)
    path = f"{module}.py"
    instruction = rng.choice(
        (
            f"{instance.name} in {path} is not implemented yet. Implement it so the tests pass.",
            f"Implement {instance.name} ({path}) as its docstring says; the tests must pass.",
            f"The tests fail: {instance.name} in {path} raises NotImplementedError. Write it.",
        )
    )
    return AgentSpec(
        id=f"synth-agent/{split}/{n}",
        instruction=instruction,
        module=module,
        files={path: module_source(instance, STUB + "\n")},
        tests={f"tests/test_{module}.py": test_source(module, instance)},
        old=STUB.strip(),
        new=instance.body.strip(),
        family=family,
    )


# -- repository tasks -------------------------------------------------------------------------


@dataclass(frozen=True)
class RepoSpec:
    id: str
    issue: str
    files: dict[str, str]
    hidden_tests: dict[str, str]
    path: str  # the file to fix
    old: str  # the exact buggy line (with indentation)
    new: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    family: str


def repository_task(
    rng: random.Random, split: str, n: int, functions: int = 3, stub: bool = False
) -> RepoSpec | None:
    """A package of two modules holding three functions, one with a planted bug (or, with
    ``stub``, one left to implement); with ``functions=1`` (training documents only, an easier
    form of the bug fix), one module holding one function."""
    names = list(FAMILIES)
    instances: list[Instance] = []
    used: set[str] = set()
    if functions == 1 and not stub:
        return _single_repository_task(rng, split, n)
    while len(instances) < 3:
        inst = make_instance(rng.choice(names), rng, split)
        if inst is not None and inst.name not in used:
            instances.append(inst)
            used.add(inst.name)
    target = rng.randrange(3)
    if stub:
        return _stub_repository_task(rng, split, n, instances, target)
    bug = plant_bug(instances[target], rng)
    if bug is None:
        return None
    files, tests, path, target_tests, p2p = _package(rng, instances, target, bug.buggy_body)
    # only the tests the bug fails are FAIL_TO_PASS; the target's other tests pass either way
    fn = compile_function(_draft(bug.instance))
    bad = compile_function(_draft(bug.instance, bug.buggy_body))
    name = bug.instance.name
    f2p: list[str] = []
    still: list[str] = []
    for test_id, args in zip(target_tests, bug.instance.inputs, strict=True):
        try:
            broken = call(bad, args) != call(fn, args)
        except Exception:
            broken = True
        (f2p if broken else still).append(test_id)
    args, want, got = bug.failing
    issue = rng.choice(
        (
            f"{call_text(name, args)} returns {got!r} ({path}); it should return {want!r}.",
            f"`{name}` in {path} gives wrong results: {call_text(name, args)} is {got!r}, "
            f"expected {want!r}.",
            f"Bug in {name} ({path}): it does not do what its docstring says "
            f"({call_text(name, args)} should be {want!r}).",
        )
    )
    if files[path].count(bug.buggy + "\n") != 1:
        return None
    return RepoSpec(
        id=f"synth-repository/{split}/{n}",
        issue=issue,
        files=files,
        hidden_tests=tests,
        path=path,
        old=bug.buggy,
        new=bug.fixed,
        fail_to_pass=tuple(f2p),
        pass_to_pass=tuple(p2p + still),
        family=bug.instance.family,
    )


def _package(
    rng: random.Random, instances: list[Instance], target: int, target_body: str
) -> tuple[dict[str, str], dict[str, str], str, list[str], list[str]]:
    """Three functions placed in two modules of a package, function ``target`` with
    ``target_body``: (files, tests, the target's file, its test ids, the other test ids)."""
    pkg = rng.choice(PACKAGES)
    mod_a, mod_b = rng.sample([m for m in MODULES if m != pkg], 2)
    placement = [mod_a, mod_a, mod_b]
    rng.shuffle(placement)
    files: dict[str, str] = {f"{pkg}/__init__.py": ""}
    tests: dict[str, str] = {}
    mine: list[str] = []
    others: list[str] = []
    for i, (inst, mod) in enumerate(zip(instances, placement, strict=True)):
        path = f"{pkg}/{mod}.py"
        source = module_source(inst, target_body if i == target else inst.body)
        files[path] = files[path] + "\n\n" + source if path in files else source
        test_path = f"tests/test_{inst.name}.py"
        tests[test_path] = test_source(f"{pkg}.{mod}", inst)
        ids = [f"{test_path}::test_{k}" for k in range(1, len(inst.inputs) + 1)]
        (mine if i == target else others).extend(ids)
    return files, tests, f"{pkg}/{placement[target]}.py", mine, others


def search_replace_answer(spec: RepoSpec) -> str:
    return f"### {spec.path}\n<<<<<<< SEARCH\n{spec.old}\n=======\n{spec.new}\n>>>>>>> REPLACE\n"


def enclosing_function(source: str, line: str) -> str:
    """The whole top-level function of ``source`` (its ``def`` line to its last line, with the
    newline) that holds the exact line ``line``, found by the parser."""
    number = source[: source.index(line + "\n")].count("\n") + 1
    lines = source.splitlines(keepends=True)
    for node in pyast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.lineno <= number <= (node.end_lineno or 0):
            return "".join(lines[node.lineno - 1 : node.end_lineno])
    raise ValueError("the line is not inside a top-level function")


def function_answer(spec: RepoSpec) -> str:
    """A search/replace block that replaces the whole buggy function by the fixed one: SEARCH is
    a copy of the function as the file holds it (from its ``def`` line, which the issue names),
    REPLACE is the function written again from its signature and docstring. An easier answer
    for a small model than one line, which it must find and copy exactly; the parser and the
    scorer take either."""
    old = enclosing_function(spec.files[spec.path], spec.old)
    new = old.replace(spec.old + "\n", spec.new + "\n", 1)
    return f"### {spec.path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


def _single_repository_task(rng: random.Random, split: str, n: int) -> RepoSpec | None:
    bug = buggy_instance(rng.choice(list(FAMILIES)), rng, split)
    if bug is None:
        return None
    inst = bug.instance
    pkg = rng.choice(PACKAGES)
    mod = rng.choice([m for m in MODULES if m != pkg])
    path = f"{pkg}/{mod}.py"
    files = {f"{pkg}/__init__.py": "", path: module_source(inst, bug.buggy_body)}
    if files[path].count(bug.buggy + "\n") != 1:
        return None
    test_path = f"tests/test_{inst.name}.py"
    ids = tuple(f"{test_path}::test_{k}" for k in range(1, len(inst.inputs) + 1))
    args, want, got = bug.failing
    name = inst.name
    issue = rng.choice(
        (
            f"{call_text(name, args)} returns {got!r}; it should return {want!r}.",
            f"`{name}` gives wrong results: {call_text(name, args)} is {got!r}, expected {want!r}.",
            f"Bug in {name}: it does not do what its docstring says "
            f"({call_text(name, args)} should be {want!r}).",
        )
    )
    return RepoSpec(
        id=f"synth-repository/{split}/{n}",
        issue=issue,
        files=files,
        hidden_tests={test_path: test_source(f"{pkg}.{mod}", inst)},
        path=path,
        old=bug.buggy,
        new=bug.fixed,
        fail_to_pass=ids,
        pass_to_pass=(),
        family=inst.family,
    )


def _stub_repository_task(
    rng: random.Random, split: str, n: int, instances: list[Instance], target: int
) -> RepoSpec | None:
    """The package of ``repository_task`` with function ``target`` left to implement: every
    one of its tests is FAIL_TO_PASS, the other functions' tests PASS_TO_PASS."""
    files, tests, path, f2p, p2p = _package(rng, instances, target, STUB + "\n")
    if files[path].count(STUB + "\n") != 1:
        return None
    inst = instances[target]
    call = f"{inst.name}({', '.join(inst.params)})"
    issue = rng.choice(
        (
            f"`{call}` in {path} is not implemented: it raises NotImplementedError. "
            f"It should do what its docstring says: {inst.doc}",
            f"Implement {call} ({path}); calling it raises NotImplementedError. {inst.doc}",
            f"Feature request: implement `{call}` in {path} as documented. {inst.doc}",
        )
    )
    return RepoSpec(
        id=f"synth-repository/{split}/{n}",
        issue=issue,
        files=files,
        hidden_tests=tests,
        path=path,
        old=STUB,
        new=inst.body.rstrip("\n"),
        fail_to_pass=tuple(f2p),
        pass_to_pass=tuple(p2p),
        family=inst.family,
    )
