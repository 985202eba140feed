"""Catch rate of the amplified HumanEval tests on a held-out set of plausible-wrong solutions.

The set (``benchmarks/heldout_wrong.py``, or the one named by ``--set``: ``heldout_wrong2`` is
the second set, written after the first for a final measurement, ``heldout_wrong3`` the
third, written after both once the second had been used too, ``heldout_wrong4`` the fourth,
written after all three once the third had been used too, ``heldout_wrong5`` the fifth,
written after all four once the fourth had been used too, ``heldout_wrong6`` the sixth,
written after all five once the fifth had been used too, ``heldout_wrong7`` the seventh,
written after all six once the sixth had been used too, ``heldout_wrong8`` the eighth,
written after all seven once the seventh had been used too, ``heldout_wrong9`` the ninth,
written after all eight once the eighth had been used too, ``heldout_wrong10`` the tenth,
written after all nine once the ninth had been used too, ``heldout_wrong11`` the eleventh,
written after all ten once the tenth had been used too, and ``heldout_wrong12`` and
``heldout_wrong13``, the natural mistakes of HumanEval/0-81 and 82-163 with no rule against an
earlier set's, note 057) was written by hand apart from the
amplifier, so it measures what ``benchmarks/catch_rate.py``'s own mutants cannot: mistakes
nobody chose for the amplifier to catch. Each entry is scored by the function stage as shipped,
``humaneval@1``'s amplified tests (seed 0, 100 inputs) with the default generator or the one
given by ``--generator``; an entry is *caught* when its score does not pass. The data are checked
first (``verify``): every entry passes HumanEval's own ``check`` and differs from the reference
on its witness; an entry that fails the project's base tests is reported as a data error too.
The references of the covered tasks are scored as well (a reference failing its own suite would
make a catch meaningless). An entry that differs from the reference only by running long counts
only when its witness is within the size contract (note 053: at most ``CONTRACT_ITEMS`` items or
characters per argument, ``CONTRACT_DIGITS`` digits); the others are listed apart, and the rate
counting them as wrong too is printed beside. With ``--fresh`` the entries that make an earlier
set's mistake (``repeats``) are told apart and the rate on the others is printed too.

    python benchmarks/heldout_catch.py [--set NAME] [--generator N] [--cache DIR] [--fresh]
        [--write benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

from specverdict.sandbox import Execution, LocalSandbox, Sandbox
from specverdict.suites.function.amplify import AmplifyConfig, key
from specverdict.suites.function.grade import read_detail
from specverdict.suites.function.harness import (
    HarnessReport,
    InputResult,
    call_execution,
    parse_report,
)
from specverdict.suites.function.humaneval import HumanEval, humaneval_tasks, read_problems
from specverdict.suites.function.oracles import compare, is_right
from specverdict.suites.function.task import FunctionTask

try:
    from benchmarks._results import machine, write_section
    from benchmarks.heldout_wrong import ENTRIES, KINDS, Wrong
except ImportError:  # run as a script from the repository root
    from _results import machine, write_section  # type: ignore[no-redef, import-not-found]
    from heldout_wrong import ENTRIES, KINDS, Wrong  # type: ignore[no-redef, import-not-found]

HEADING = "## Amplified tests: catch rate on a held-out set of plausible-wrong solutions"
#: the sets ``--set`` names (modules of ``benchmarks/`` with ``ENTRIES`` and ``KINDS``) and the
#: RESULTS.md heading of each
HEADINGS = {
    "heldout_wrong": HEADING,
    "heldout_wrong2": (
        "## Amplified tests: catch rate on the second held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong3": (
        "## Amplified tests: catch rate on the third held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong4": (
        "## Amplified tests: catch rate on the fourth held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong5": (
        "## Amplified tests: catch rate on the fifth held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong6": (
        "## Amplified tests: catch rate on the sixth held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong7": (
        "## Amplified tests: catch rate on the seventh held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong8": (
        "## Amplified tests: catch rate on the eighth held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong9": (
        "## Amplified tests: catch rate on the ninth held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong10": (
        "## Amplified tests: catch rate on the tenth held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong11": (
        "## Amplified tests: catch rate on the eleventh held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong12": (
        "## Amplified tests: catch rate on the twelfth held-out set of plausible-wrong solutions"
    ),
    "heldout_wrong13": (
        "## Amplified tests: catch rate on the thirteenth held-out set of plausible-wrong solutions"
    ),
}
SETS = tuple(HEADINGS)
DEFAULT_SET = "heldout_wrong"
#: per-call time limit of the witness runs (the references answer every witness in milliseconds;
#: an entry that never returns on its witness differs from them by this timeout)
WITNESS_LIMIT_S = 2.0
#: the size contract (note 053): an entry that differs from the reference on its witness only by
#: not returning in time is wrong only when the witness is within these sizes, the largest the
#: amplifier grows an input to; slowness that needs more is a cost, not a wrong answer (HumanEval
#: scores what a function returns, and the project counts answers quadratic only inside built-ins,
#: such as HumanEval/109's every rotation by slices, as right)
CONTRACT_ITEMS = 2**16
#: the most digits of a whole number within the size contract
CONTRACT_DIGITS = 1000


@dataclass(frozen=True, slots=True)
class Problem:
    """A data error: entry number ``entry`` (``label`` names it) is not what the set claims."""

    entry: int
    label: str
    what: str

    def describe(self) -> str:
        return f"#{self.entry} {self.label}: {self.what}"


def within_contract(value: Any) -> bool:
    """Whether every list, tuple, string and whole number in ``value`` (a witness's arguments) is
    within the size contract: at most ``CONTRACT_ITEMS`` items or characters and
    ``CONTRACT_DIGITS`` digits."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return value == 0 or math.log10(abs(value)) < CONTRACT_DIGITS
    if isinstance(value, (str, bytes)):
        return len(value) <= CONTRACT_ITEMS
    if isinstance(value, dict):
        return len(value) <= CONTRACT_ITEMS and all(
            within_contract(k) and within_contract(v) for k, v in value.items()
        )
    if isinstance(value, (list, tuple, set, frozenset)):
        return len(value) <= CONTRACT_ITEMS and all(within_contract(v) for v in value)
    return True


@dataclass(frozen=True, slots=True)
class Checked:
    """What the data check found: the data errors, and the entries that differ from the
    reference on their witness only by not returning in time (``slow``), of which ``beyond``
    are beyond the size contract and so not wrong answers (left out of the rate)."""

    problems: tuple[Problem, ...]
    slow: frozenset[int]
    beyond: frozenset[int]


def load_set(name: str) -> ModuleType:
    """The module of the held-out set ``name`` (one of ``SETS``)."""
    if name not in SETS:
        raise ValueError(f"unknown set {name!r} (known: {', '.join(SETS)})")
    try:
        return importlib.import_module(f"benchmarks.{name}")
    except ImportError:  # run as a script from the repository root
        return importlib.import_module(name)


def _problem(entries: tuple[Wrong, ...], n: int, what: str) -> Problem:
    e = entries[n]
    return Problem(n, f"{e.task_id} ({e.kind}: {e.description})", what)


def _base_program(entry: Wrong, test: str, entry_point: str) -> str:
    return f"{entry.solution.strip()}\n\n\n{test}\n\ncheck({entry_point})\n"


def _witness_run(program: str, task: FunctionTask, inputs: list[tuple[Any, ...]]) -> Execution:
    return call_execution(
        program,
        task.entry_point,
        inputs,
        [WITNESS_LIMIT_S] * len(inputs),
        stop_on_timeout=False,
        output_bytes=64 << 20,  # a witness of tens of thousands of items answers as many
    )


def _ran_out(report: HarnessReport) -> bool:
    """Whether a witness run ended by time alone: its call timed out, or the sandbox stopped
    the process on its time limit before the call returned (work inside one built-in call
    finishes before the call's own timer can interrupt it)."""
    if report.results:
        return report.results[0].status == "timeout"
    return report.stage == "ran" and report.execution.outcome == "timeout"


def verify(
    sandbox: Sandbox, entries: tuple[Wrong, ...] = ENTRIES, kinds: tuple[str, ...] = KINDS
) -> list[Problem]:
    """Every data error of ``entries``: an unknown task or kind (not in ``kinds``), a solution
    that fails HumanEval's own tests, a witness the reference cannot answer, outside the task's
    contract, or on which the solution agrees with the reference. Runs in the sandbox,
    batched."""
    return list(check(sandbox, entries, kinds).problems)


def check(
    sandbox: Sandbox, entries: tuple[Wrong, ...] = ENTRIES, kinds: tuple[str, ...] = KINDS
) -> Checked:
    """``verify``'s data errors, with the entries that are only slow on their witness and those
    of them beyond the size contract. An entry right on a witness beyond the contract is slow
    only (it returned in time on this run) and no data error."""
    problems: list[Problem] = []
    slow: set[int] = set()
    tests = {p["task_id"]: p["test"] for p in read_problems()}
    by_id = {t.task_id: t for t in humaneval_tasks()}
    known: list[int] = []
    for n, e in enumerate(entries):
        if e.kind not in kinds:
            problems.append(_problem(entries, n, f"unknown kind {e.kind!r}"))
        if e.task_id not in by_id:
            problems.append(_problem(entries, n, "no such task"))
            continue
        task = by_id[e.task_id]
        if task.contract is not None and not task.contract(e.witness):
            problems.append(_problem(entries, n, "the witness breaks the task's contract"))
        known.append(n)

    # HumanEval's own tests, one program per entry
    base = [
        Execution(
            _base_program(
                entries[n], tests[entries[n].task_id], by_id[entries[n].task_id].entry_point
            )
        )
        for n in known
    ]
    for n, result in zip(known, sandbox.run_many(base, 2), strict=True):
        if result.outcome != "passed":
            why = result.detail or result.outcome
            problems.append(_problem(entries, n, f"fails HumanEval's base tests ({why})"))

    # witnesses: each reference once on all its task's witnesses, each solution on its own
    tasks = sorted({entries[n].task_id for n in known})
    per_task = {t: [n for n in known if entries[n].task_id == t] for t in tasks}
    runs = [
        _witness_run(by_id[t].reference, by_id[t], [entries[n].witness for n in per_task[t]])
        for t in tasks
    ]
    runs += [
        _witness_run(entries[n].solution, by_id[entries[n].task_id], [entries[n].witness])
        for n in known
    ]
    results = sandbox.run_many(runs, 2)
    reports = [parse_report(r, e) for r, e in zip(results, runs, strict=True)]
    expected: dict[int, Any] = {}
    for t, report in zip(tasks, reports[: len(tasks)], strict=True):
        for i, n in enumerate(per_task[t]):
            if i >= len(report.results) or report.results[i].status != "ok":
                problems.append(_problem(entries, n, "the reference does not answer the witness"))
            else:
                expected[n] = report.results[i].value
    for n, report in zip(known, reports[len(tasks) :], strict=True):
        if n not in expected:
            continue
        task = by_id[entries[n].task_id]
        if _ran_out(report):
            slow.add(n)  # differs from the reference only by not returning in time
            continue
        if report.stage != "ran" or not report.results or report.results[0].status != "ok":
            continue  # raising on the witness differs from the reference
        out = report.results[0].value
        if is_right(task.compare, task.oracle, task.atol, entries[n].witness, out, expected[n]):
            if within_contract(entries[n].witness):
                problems.append(_problem(entries, n, f"right on its witness (returns {out!r})"))
            else:  # only slow, and on this run fast enough: beyond the size contract either way
                slow.add(n)
    bad = {p.entry for p in problems}
    beyond = {n for n in slow if n not in bad and not within_contract(entries[n].witness)}
    return Checked(
        tuple(sorted(problems, key=lambda p: p.entry)), frozenset(slow), frozenset(beyond)
    )


def _alike(task: FunctionTask, a: InputResult | None, b: InputResult | None) -> bool:
    """Whether two answers to one input agree: both returned values equal as the task compares
    values (its oracle aside: an oracle judges one answer against the input, and two wrong
    answers it rejects may differ), both raised the same exception, or both ran out of time. A
    missing answer (a run stopped early) agrees with nothing."""
    if a is None or b is None or a.status != b.status:
        return False
    if a.status == "ok":
        return compare(task.compare, a.value, b.value, task.atol)
    if a.status == "exception":
        return a.error_type == b.error_type
    return True


def repeats(
    sandbox: Sandbox, entries: tuple[Wrong, ...], earlier: tuple[Wrong, ...]
) -> dict[int, Wrong]:
    """The entries that make an earlier entry's mistake, each with that earlier entry: same
    task, and the two solutions answer alike (``_alike``) on every witness of that task, the
    earlier sets' and this one's. A set written without the rule that it repeats no earlier
    set's mistake is scored on the rest too: those are mistakes the amplifier cannot have been
    designed from."""
    by_id = {t.task_id: t for t in humaneval_tasks()}
    # only tasks with entries on both sides can hold a repeat
    tasks = {e.task_id for e in entries} & {f.task_id for f in earlier} & set(by_id)
    both = [e for e in (*entries, *earlier) if e.task_id in tasks]
    witnesses: dict[str, dict[str, tuple[Any, ...]]] = {}
    for e in both:
        witnesses.setdefault(e.task_id, {}).setdefault(key(e.witness), e.witness)
    unique = list(dict.fromkeys((e.task_id, e.solution) for e in both))
    runs = [_witness_run(code, by_id[t], list(witnesses[t].values())) for t, code in unique]
    answers: dict[tuple[str, str], list[InputResult | None]] = {}
    for (t, code), run, result in zip(unique, runs, sandbox.run_many(runs, 2), strict=True):
        report = parse_report(result, run)
        got: list[InputResult | None] = list(report.results) if report.stage == "ran" else []
        answers[(t, code)] = got + [None] * (len(witnesses[t]) - len(got))
    found: dict[int, Wrong] = {}
    for n, e in enumerate(entries):
        if e.task_id not in tasks:
            continue
        mine = answers[(e.task_id, e.solution)]
        for f in earlier:
            theirs = answers.get((f.task_id, f.solution)) if f.task_id == e.task_id else None
            if theirs is not None and all(
                _alike(by_id[e.task_id], a, b) for a, b in zip(mine, theirs, strict=True)
            ):
                found[n] = f
                break
    return found


def earlier_entries(name: str) -> tuple[tuple[str, Wrong], ...]:
    """Every entry of the sets before ``name`` in ``SETS``, with its set's name."""
    return tuple((s, e) for s in SETS[: SETS.index(name)] for e in load_set(s).ENTRIES)


def _suite(config: AmplifyConfig, cache: Path, sandbox: Sandbox) -> HumanEval:
    cls = type("HeldoutSuite", (HumanEval,), {"amplify_config": config})
    suite: HumanEval = cls(sandbox=sandbox, cache_dir=cache, workers=2)
    return suite


def _answer(program: str) -> str:
    return f"```python\n{program.strip()}\n```"


def score(suite: HumanEval, programs: list[tuple[str, str]]) -> list[tuple[bool, bool]]:
    """(base tests passed, amplified suite passed) for each ``(task_id, program)``."""
    items = [(suite.sample(suite.task(t)), _answer(p)) for t, p in programs]
    out = []
    for s in suite.score_many(items, mode="chat"):
        detail = read_detail(s)
        out.append((bool(detail and detail.base_passed), s.passed))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--generator", type=int, help="amplification generator (default: the shipped default)"
    )
    parser.add_argument(
        "--set",
        default=DEFAULT_SET,
        choices=SETS,
        help=f"the held-out set to score (default: {DEFAULT_SET})",
    )
    parser.add_argument("--cache", type=Path, help="ground-truth cache (default: a temp dir)")
    parser.add_argument("--write", type=Path, help="write the section into this RESULTS.md")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="also score the entries that make no earlier set's mistake (for a set written "
        "without the rule that it repeats none)",
    )
    args = parser.parse_args()
    try:
        config = (
            AmplifyConfig() if args.generator is None else AmplifyConfig(generator=args.generator)
        )
    except ValueError as exc:
        parser.error(str(exc))
    held = load_set(args.set)
    entries: tuple[Wrong, ...] = held.ENTRIES
    kinds: tuple[str, ...] = held.KINDS
    started = time.monotonic()
    sandbox = LocalSandbox()

    checked_data = check(sandbox, entries, kinds)
    problems = list(checked_data.problems)
    beyond = checked_data.beyond
    bad = {p.entry for p in problems}
    checked = time.monotonic() - started

    cache = args.cache or Path(tempfile.mkdtemp(prefix="heldout-catch-"))
    suite = _suite(config, cache, sandbox)
    task_ids = sorted({e.task_id for e in entries}, key=lambda t: int(t.split("/")[1]))
    suite.prepare(task_ids)
    prepared = time.monotonic() - started
    print(
        f"data checked in {checked:.0f} s, ground truth ready at {prepared:.0f} s", file=sys.stderr
    )

    scored = score(suite, [(e.task_id, e.solution) for e in entries])
    refs = score(suite, [(t, suite.task(t).reference) for t in task_ids])
    elapsed = time.monotonic() - started

    for n, (base, _) in enumerate(scored):
        if not base:
            problems.append(_problem(entries, n, "fails the project's base tests"))
            bad.add(n)
    counted = [n for n in range(len(entries)) if n not in bad and n not in beyond]
    caught = {n for n in counted if not scored[n][1]}
    outside = sorted(n for n in beyond if n not in bad)
    whole = [n for n in range(len(entries)) if n not in bad]
    caught_whole = sum(1 for n in whole if not scored[n][1])
    total_by_kind = Counter(entries[n].kind for n in counted)
    caught_by_kind = Counter(entries[n].kind for n in caught)
    failing_refs = [t for t, (_, passed) in zip(task_ids, refs, strict=True) if not passed]

    name = f"generator {config.generator}" + (" (default)" if args.generator is None else "")
    rate = len(caught) / len(counted) if counted else 0.0
    where = "" if args.set == DEFAULT_SET else f" (`benchmarks/{args.set}.py`)"
    lines = [
        f"{len(entries)} hand-written plausible-wrong solutions{where} over {len(task_ids)} tasks, "
        f"{len(kinds)} kinds; each passes HumanEval's base tests and is wrong on a witness "
        f"input. Amplification: {name}, seed {config.seed}, up to {config.count} inputs.",
        "",
        "| kind | caught | rate |",
        "|---|---|---|",
    ]
    for kind in kinds:
        c, t = caught_by_kind[kind], total_by_kind[kind]
        lines.append(f"| {kind} | {c}/{t} | {c / t:.1%} |" if t else f"| {kind} | 0/0 | - |")
    lines.append(f"| **all** | **{len(caught)}/{len(counted)}** | **{rate:.1%}** |")
    missed = [n for n in counted if n not in caught]
    lines += ["", f"Missed ({len(missed)}):"]
    lines += [
        f"- {entries[n].task_id} ({entries[n].kind}): {entries[n].description}" for n in missed
    ] or ["- none"]
    lines += [
        "",
        f"Slow only beyond the size contract (note 053; left out of the rate) ({len(outside)}):",
    ]
    lines += [
        f"- {entries[n].task_id} ({entries[n].kind}, "
        f"{'caught' if not scored[n][1] else 'missed'}): {entries[n].description}"
        for n in outside
    ] or ["- none"]
    lines += [
        "",
        f"Counting them as wrong too: {caught_whole}/{len(whole)}"
        f" ({caught_whole / len(whole) if whole else 0.0:.1%}).",
        "",
        "Data errors (left out of the rate): "
        + ("; ".join(p.describe() for p in problems) if problems else "none")
        + ".",
        f"References of the covered tasks failing their own suite: "
        f"{', '.join(failing_refs) or 'none'} ({len(failing_refs)}/{len(task_ids)}).",
        "",
        f"Wall time {elapsed:.0f} s (data check {checked:.0f} s, ground truth "
        f"{prepared - checked:.0f} s).",
    ]
    if args.fresh:
        before = earlier_entries(args.set)
        same = {
            n: w
            for n, w in repeats(sandbox, entries, tuple(w for _, w in before)).items()
            if n in counted
        }
        named = {id(w): n for n, w in before}
        rest = [n for n in counted if n not in same]
        fresh = sum(1 for n in rest if n in caught)
        texts = {(w.task_id, w.solution.strip()) for _, w in before}
        copies = [n for n in counted if (entries[n].task_id, entries[n].solution.strip()) in texts]
        lines += [
            "",
            f"Entries making an earlier set's mistake (the same answers on every witness of the "
            f"task, every set's): {len(same)}, {len(copies)} of them with an earlier entry's "
            f"very code. Caught among the other {len(rest)}: **{fresh}/{len(rest)}** "
            f"({fresh / len(rest) if rest else 0.0:.1%}).",
        ]
        lines += [
            f"- {entries[n].task_id} ({'caught' if n in caught else 'missed'}"
            f"{', the same code' if n in copies else ''}): as "
            f"`{named[id(w)]}`'s {w.description[:60].rstrip()}..."
            for n, w in sorted(same.items())
        ]
        lines += [
            f"- {entries[n].task_id} ({'caught' if n in caught else 'missed'}): no earlier "
            f"set's: {entries[n].description[:70].rstrip()}..."
            for n in rest
        ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        command = "python benchmarks/heldout_catch.py"
        command += f" --set {args.set}" if args.set != DEFAULT_SET else ""
        command += f" --generator {args.generator}" if args.generator is not None else ""
        command += " --fresh" if args.fresh else ""
        command += f" --write {args.write}"
        heading = HEADINGS[args.set]
        write_section(
            args.write,
            heading,
            f"{heading}\n\n- date: {date.today().isoformat()}\n- machine: {machine()}\n"
            f"- command: `{command}`\n\n" + text + "\n",
        )


if __name__ == "__main__":
    main()
