"""Catch rate of the amplified HumanEval tests: how many plausible-wrong solutions they fail.

Plausible-wrong solutions are built here: (a) one-site mutants of the reference solutions (the
canonical ones, or the corrected ones of ``REFERENCE_FIXES``) — comparison operators ``<``/``<=``,
``>``/``>=``, ``==``/``!=``; integer constants and ``range`` bounds moved by one; ``and``/``or``;
an ``if`` that returns early removed; ``.lower()``/``.casefold()``/``.upper()`` swapped — and
(b) a handful of hand-written classic mistakes (``CLASSIC``). Only those that pass the base tests
count. A mutant that no test of any suite below fails is a *survivor*: probably equivalent to the
reference, reported apart and left out of the rate; a classic mistake is wrong by construction
and always counts.

Suites: each amplification generator at seed 0 with 100 inputs (``generator 1``, mutation only,
the baseline; ``generator 2``, edges; ``generator 3``, corners; ``generator 4``, character-class,
magnitude and joint inputs; ``generator 5``, precision and text inputs, the default), and, only
to tell
wrong mutants from equivalent ones, a judge made of every generator at seed 1 with 300 inputs
each. Every reference is scored too, and every alternative right solution of the tests
(``ALTERNATIVE_RIGHT``): each must pass every suite (false failures).

    python benchmarks/catch_rate.py [--tasks 0:164] [--per-task 30] [--generators 1,7,8]
        [--write benchmarks/RESULTS.md]

``--generators`` limits the suites, the judge's included, to the generators named (the first is
the baseline): sixteen suites of 164 tasks take hours on a shared two-core host.
"""

from __future__ import annotations

import argparse
import ast
import copy
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from specverdict.sandbox import LocalSandbox
from specverdict.suites.function.amplify import AMPLIFIER_VERSION, GENERATORS, AmplifyConfig
from specverdict.suites.function.grade import read_detail
from specverdict.suites.function.humaneval import HumanEval
from specverdict.suites.function.task import FunctionTask

try:
    from benchmarks._results import machine, write_section
except ImportError:  # run as a script from the repository root
    from _results import machine, write_section  # type: ignore[no-redef]

HEADING = "## Amplified tests: catch rate of plausible-wrong HumanEval solutions"


def _name(generator: int) -> str:
    return f"generator {generator}" + (" (default)" if generator == AMPLIFIER_VERSION else "")


def alternatives() -> dict[str, str]:
    """The tests' alternative right solutions (task -> code), wherever the test tree keeps them."""
    import importlib

    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.append(root)
    for module in ("tests.unit.suites.solutions", "tests.suites.solutions"):
        try:
            found: dict[str, str] = importlib.import_module(module).ALTERNATIVE_RIGHT
        except ImportError:
            continue
        return found
    return {}


_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}
_METHODS = {"lower": ("casefold", "upper"), "casefold": ("lower",), "upper": ("lower",)}


class _Mutate(ast.NodeTransformer):
    """Applies the ``target``-th mutation of a walk over the functions' bodies (``n`` counts
    the sites seen, so a first walk with ``target = -1`` counts them all)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.n = 0
        self.label = ""

    def _hit(self, label: str) -> bool:
        hit = self.n == self.target
        self.n += 1
        if hit:
            self.label = label
        return hit

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:] or [ast.Pass()]  # the docstring is not code to mutate
        node.body = [self.visit(s) for s in body]
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        for i, op in enumerate(node.ops):
            swap = _SWAP.get(type(op))
            if swap is not None and self._hit(f"{type(op).__name__} -> {swap.__name__}"):
                node.ops[i] = swap()
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if type(node.value) is int:
            for step in (1, -1):
                if self._hit(f"constant {node.value} -> {node.value + step}"):
                    return ast.Constant(node.value + step)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        if self._hit(f"{type(node.op).__name__} -> {type(other).__name__}"):
            node.op = other
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "range":
            for i, arg in enumerate(node.args):
                for op, sign in ((ast.Add(), "+"), (ast.Sub(), "-")):
                    if self._hit(f"range bound {i} {sign} 1"):
                        node.args[i] = ast.BinOp(copy.deepcopy(arg), op, ast.Constant(1))
        if isinstance(node.func, ast.Attribute):
            for other in _METHODS.get(node.func.attr, ()):
                if self._hit(f".{node.func.attr}() -> .{other}()"):
                    node.func.attr = other
        return node

    def visit_If(self, node: ast.If) -> ast.AST:
        self.generic_visit(node)
        early = not node.orelse and isinstance(node.body[-1], ast.Return)
        if early and self._hit("early-return branch removed"):
            return ast.Pass()
        return node


def mutants(reference: str) -> Iterator[tuple[str, str]]:
    """Every distinct one-site mutant of ``reference``: ``(label, program)``."""
    tree = ast.parse(reference)
    counter = _Mutate(-1)
    counter.visit(copy.deepcopy(tree))
    original = ast.unparse(_Mutate(-1).visit(copy.deepcopy(tree)))
    seen = {original}
    for target in range(counter.n):
        mutate = _Mutate(target)
        text = ast.unparse(ast.fix_missing_locations(mutate.visit(copy.deepcopy(tree))))
        if text not in seen:
            seen.add(text)
            yield mutate.label, text


#: classic mistakes that HumanEval's own tests miss: task -> (kind, solution)
CLASSIC: dict[str, tuple[str, str]] = {
    "HumanEval/9": (
        "wrong initial value: the running maximum starts at 0",
        "def rolling_max(numbers):\n    best, out = 0, []\n    for n in numbers:\n"
        "        best = max(best, n)\n        out.append(best)\n    return out\n",
    ),
    "HumanEval/35": (
        "wrong initial value: the maximum starts at 0",
        "def max_element(l):\n    m = 0\n    for e in l:\n        if e > m:\n"
        "            m = e\n    return m\n",
    ),
    "HumanEval/55": (
        "missing zero case: fib(0) is taken as 1",
        "def fib(n):\n    a, b = 1, 1\n    for _ in range(n - 2):\n        a, b = b, a + b\n"
        "    return b if n > 1 else 1\n",
    ),
    "HumanEval/27": (
        "ASCII-only case folding",
        "def flip_case(string):\n    out = ''\n    for c in string:\n"
        "        if 'a' <= c <= 'z' or 'A' <= c <= 'Z':\n            c = chr(ord(c) ^ 32)\n"
        "        out += c\n    return out\n",
    ),
    "HumanEval/16": (
        "ASCII-only case folding",
        "def count_distinct_characters(string):\n"
        "    return len({chr(ord(c) + 32) if 'A' <= c <= 'Z' else c for c in string})\n",
    ),
    "HumanEval/0": (
        "boundary comparison: a distance equal to the threshold counts as close",
        "def has_close_elements(numbers, threshold):\n    s = sorted(numbers)\n"
        "    return any(b - a <= threshold for a, b in zip(s, s[1:]))\n",
    ),
    "HumanEval/13": (
        "off-by-one range: the common divisor min(a, b) itself is never tried",
        "def greatest_common_divisor(a, b):\n    for d in range(min(a, b) - 1, 0, -1):\n"
        "        if a % d == 0 and b % d == 0:\n            return d\n    return 1\n",
    ),
    "HumanEval/163": (
        "off-by-one range: the upper bound is excluded",
        "def generate_integers(a, b):\n    lo, hi = max(2, min(a, b)), min(8, max(a, b))\n"
        "    return [i for i in range(lo, hi) if i % 2 == 0] + ([hi] if hi % 2 == 0 and hi == 8"
        " and lo <= hi else [])\n",
    ),
}


def _suite(config: AmplifyConfig, cache: Path, sandbox: LocalSandbox) -> HumanEval:
    cls = type("Suite", (HumanEval,), {"amplify_config": config})
    suite: HumanEval = cls(sandbox=sandbox, cache_dir=cache, workers=2)
    return suite


@dataclass
class Candidate:
    task_id: str
    origin: str  # "mutant" or "classic"
    label: str
    program: str
    base_passed: bool = False
    caught: dict[str, bool] | None = None


def _failing(task_ids: list[str], total: int) -> str:
    if not task_ids:
        return f"0/{total}"
    return f"{len(task_ids)}/{total} ({', '.join(sorted(set(task_ids)))})"


def _answer(program: str) -> str:
    return f"```python\n{program}\n```"


def _score(suite: HumanEval, cands: list[Candidate]) -> list[tuple[bool, bool]]:
    """(base passed, passed) per candidate."""
    items = [(suite.sample(suite.task(c.task_id)), _answer(c.program)) for c in cands]
    out = []
    for score in suite.score_many(items, mode="chat"):
        detail = read_detail(score)
        out.append((bool(detail and detail.base_passed), score.passed))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="0:164", help="a slice of HumanEval's task numbers")
    parser.add_argument("--per-task", type=int, default=30, help="mutants sampled per task")
    parser.add_argument("--cache", type=Path, help="ground-truth cache (default: a temp dir)")
    parser.add_argument(
        "--generators", help="comma-separated generators to score, the first the baseline"
    )
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    chosen = tuple(int(g) for g in args.generators.split(",")) if args.generators else GENERATORS
    if not set(chosen) <= set(GENERATORS):
        parser.error(f"--generators: known generators are {GENERATORS}")
    baseline = _name(chosen[0])
    lo, hi = (int(x) for x in args.tasks.split(":"))
    started = time.monotonic()
    cache = args.cache or Path(tempfile.mkdtemp(prefix="catch-rate-"))
    sandbox = LocalSandbox()
    configs = {_name(g): AmplifyConfig(seed=0, count=100, generator=g) for g in chosen}
    judges = [AmplifyConfig(seed=1, count=300, generator=g) for g in chosen]
    suites = {name: _suite(c, cache, sandbox) for name, c in configs.items()}
    judge_suites = [_suite(c, cache, sandbox) for c in judges]
    first = suites[baseline]
    tasks: list[FunctionTask] = [t for t in first.tasks() if lo <= int(t.task_id[10:]) < hi]
    ids = [t.task_id for t in tasks]
    for suite in [*suites.values(), *judge_suites]:
        suite.prepare(ids)
    prepared = time.monotonic() - started

    cands: list[Candidate] = []
    for task in tasks:
        found = list(mutants(task.reference))
        rng = random.Random(task.task_id)
        if len(found) > args.per_task:
            found = rng.sample(found, args.per_task)
        cands += [Candidate(task.task_id, "mutant", lab, prog) for lab, prog in found]
        if task.task_id in CLASSIC:
            kind, code = CLASSIC[task.task_id]
            cands.append(Candidate(task.task_id, "classic", kind, code))
    print(
        f"ground truth ready in {prepared:.0f} s; scoring {len(cands)} candidates", file=sys.stderr
    )
    for cand, (base, _) in zip(cands, _score(first, cands), strict=True):
        cand.base_passed = base
    plausible = [c for c in cands if c.base_passed]
    print(f"{len(plausible)} pass the base tests", file=sys.stderr)
    results = {name: _score(s, plausible) for name, s in suites.items()}
    judged = [_score(s, plausible) for s in judge_suites]
    for n, cand in enumerate(plausible):
        cand.caught = {name: not r[n][1] for name, r in results.items()}
        cand.caught["judge"] = any(not j[n][1] for j in judged)

    # false failures: every reference and every alternative right solution on every suite
    refs = [Candidate(t.task_id, "reference", "", t.reference) for t in tasks]
    alts = [
        Candidate(t, "alternative", "", code)
        for t, code in sorted(alternatives().items())
        if t in set(ids)
    ]
    false_failures: dict[str, list[str]] = {}
    false_alternatives: dict[str, list[str]] = {}
    for name, s in [
        *suites.items(),
        *((f"judge {j.generator}", js) for j, js in zip(judges, judge_suites, strict=True)),
    ]:
        false_failures[name] = [
            c.task_id for c, (_, p) in zip(refs, _score(s, refs), strict=True) if not p
        ]
        false_alternatives[name] = [
            c.task_id for c, (_, p) in zip(alts, _score(s, alts), strict=True) if not p
        ]
    judge_refs = sorted({t for n, f in false_failures.items() if n.startswith("judge") for t in f})
    judge_alts = sorted(
        {t for n, f in false_alternatives.items() if n.startswith("judge") for t in f}
    )
    elapsed = time.monotonic() - started

    def wrong(c: Candidate) -> bool:
        assert c.caught is not None
        return c.origin == "classic" or any(c.caught.values())

    counted = [c for c in plausible if wrong(c)]
    survivors = [c for c in plausible if c.origin == "mutant" and not wrong(c)]
    classics = [c for c in cands if c.origin == "classic"]
    lines = [
        f"{len(tasks)} tasks (HumanEval/{lo}..{hi - 1}), {len(cands)} candidates "
        f"({len(cands) - len(classics)} mutants, up to {args.per_task} per task, and "
        f"{len(classics)} classic mistakes); {len(plausible)} pass the base tests, of which "
        f"{len(survivors)} mutants pass every suite (survivors, probably equivalent, left out) "
        f"and {len(counted)} are wrong.",
        "",
        f"| amplification | mutants caught | classic mistakes caught | all caught | vs {baseline} "
        "| references failing | alternatives failing |",
        "|---|---|---|---|---|---|---|",
    ]
    base_rate = 0.0
    for name in configs:
        assert all(c.caught is not None for c in counted)
        mut = [c for c in counted if c.origin == "mutant"]
        cla = [c for c in counted if c.origin == "classic"]
        n_mut = sum(bool(c.caught and c.caught[name]) for c in mut)
        n_cla = sum(bool(c.caught and c.caught[name]) for c in cla)
        rate = (n_mut + n_cla) / len(counted) if counted else 0.0
        if name == baseline:
            base_rate = rate
        ratio = rate / base_rate if base_rate else float("nan")
        lines.append(
            f"| {name} | {n_mut}/{len(mut)} | {n_cla}/{len(cla)} | "
            f"{n_mut + n_cla}/{len(counted)} ({rate:.1%}) | {ratio:.2f}x | "
            f"{_failing(false_failures[name], len(refs))} | "
            f"{_failing(false_alternatives[name], len(alts))} |"
        )
    lines += [
        "",
        f"Judge suite (every generator, seed 1, 300 inputs each): references failing "
        f"{_failing(judge_refs, len(refs))}, alternatives failing "
        f"{_failing(judge_alts, len(alts))}. Classic mistakes that fail the base tests "
        f"(not counted): {', '.join(c.task_id for c in classics if not c.base_passed) or 'none'}.",
        *(
            f"Missed by {name}: "
            + (
                ", ".join(
                    f"{c.task_id} ({c.label})" for c in counted if c.caught and not c.caught[name]
                )
                or "none"
            )
            + "."
            for name in configs
            if name != baseline
        ),
        "Reading: a mutant counts as wrong when any suite, the judge included, fails it; the "
        "judge holds every generator's kinds of input, which favours the newer generators in "
        "the denominator; the classic mistakes are wrong by construction. The mutants and "
        "classic mistakes are the project's own: a held-out set of independently written wrong "
        "solutions is the fairer measure of what a generator misses.",
        "",
        f"Wall time {elapsed:.0f} s (ground truth {prepared:.0f} s).",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        command = f"python benchmarks/catch_rate.py --tasks {args.tasks} --per-task {args.per_task}"
        command += f" --generators {args.generators}" if args.generators else ""
        command += " --write benchmarks/RESULTS.md"
        write_section(
            args.write,
            HEADING,
            f"{HEADING}\n\n- date: {date.today().isoformat()}\n- machine: {machine()}\n"
            f"- command: `{command}`\n- baseline: {baseline}; judge of wrong against "
            "equivalent: every generator scored at seed 1, 300 inputs each\n\n" + text + "\n",
        )


if __name__ == "__main__":
    main()
