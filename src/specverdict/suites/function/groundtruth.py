"""Expected outputs: the reference solution run in the sandbox, once, and cached on disk.

For each task: base inputs are taken as given or recorded from the dataset's ``check``; extra
inputs are taken as given (EvalPlus) or amplified; then one sandboxed run of the reference on
all of them gives the expected outputs and the reference's time per input. A base input the
reference fails on is an error (the dataset or the harness is broken); an extra input it fails
on, runs longer than ``plus_cap_s`` on, or answers wrongly by the task's oracle, is dropped; so
is an amplified input of generator 2 that the reference, called on it a second time in the same
run, answers differently.
At most ``count`` extra inputs are kept, in generation order (generator 7: ``budget.MOST`` more,
for its grown inputs in front of generator 6's; generator 8: ``regrow.MOST`` and
``special.MOST`` more again, for its own).

Cache: one gzip-compressed JSON file per task under ``<cache>/groundtruth/<key>/``, where the
key names the suite family and version, the amplifier's seed, input count and version, and the
format; the file name carries a digest of the task itself (reference, inputs, oracle). Writes
are atomic (write, then rename), so concurrent builders at worst do the work twice. Building
many tasks uses ``Sandbox.run_many``. Each input is encoded once: the reference's run, the cache
and later candidates' plans take that tagged form (``Case.tagged``), and each output is kept in
the tagged form the run sent it in.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import re
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specverdict.sandbox import Execution, Sandbox
from specverdict.suites.cache import cache_root
from specverdict.suites.function import (
    budget,
    eleventh,
    ninth,
    regrow,
    scale,
    special,
    tenth,
    thirteenth,
    twelfth,
)
from specverdict.suites.function.amplify import AmplifyConfig, amplify
from specverdict.suites.function.harness import (
    HarnessReport,
    InputResult,
    call_execution,
    parse_report,
    record_execution,
)
from specverdict.suites.function.oracles import is_right
from specverdict.suites.function.task import Args, Case, FunctionTask, GroundTruth
from specverdict.suites.values import encode, gc_paused

GROUNDTRUTH_FORMAT = 1
#: how many times generator 8's reference run goes on past an input its process did not
#: survive (``TruthStore._resume``)
RESUMES = 8
#: the time limit of one count of generator 7's cost model (``budget.BUDGET`` line events
#: traced take about a third of a second), and of a count within a smaller limit (generator
#: 8's special inputs, ``special.BUDGET``: a count that takes longer is work in built-ins)
COUNT_CAP_S = 10.0
SMALL_COUNT_CAP_S = 0.25


class GroundTruthError(RuntimeError):
    """The reference solution could not produce the base outputs (a dataset or harness bug)."""


@dataclass(frozen=True, slots=True)
class BuildPolicy:
    """Limits for running the reference: per base input, per extra input, and per task.
    ``grown_cap_s`` (generator 8): per extra input longer than generator 6's longest
    (``scale.MAX_CHARS``), whose size the reference's counted work chose (``budget.py``): work in
    built-ins is not counted, and a right answer doing a few times the reference's work there
    must still finish within the candidate's one-second floor."""

    base_cap_s: float = 10.0
    plus_cap_s: float = 0.5
    grown_cap_s: float = 0.2
    budget_s: float = 10.0
    given_budget_s: float = 60.0
    max_output_chars: int = 4000
    record_seed: int = 0


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def truth_directory(
    family: str, amplify_config: AmplifyConfig | None, cache_dir: Path | None = None
) -> Path:
    """Where a suite family's ground truth is cached (see the module docstring)."""
    c = amplify_config
    extra = "given" if c is None else f"seed{c.seed}-n{c.count}"
    generator = 1 if c is None else c.generator
    key = f"{family}-{extra}-amp{generator}-fmt{GROUNDTRUTH_FORMAT}"
    return (cache_dir or cache_root()) / "groundtruth" / _safe(key)


def truth_path(directory: Path, task: FunctionTask) -> Path:
    return directory / f"{_safe(task.task_id)}-{task.digest()}.json.gz"


class TruthStore:
    """Ground truth for one suite family: in memory, then on disk, then built in the sandbox."""

    def __init__(
        self,
        sandbox: Sandbox,
        family: str,
        amplify_config: AmplifyConfig | None,
        cache_dir: Path | None = None,
        policy: BuildPolicy | None = None,
        workers: int = 2,
    ) -> None:
        self.sandbox = sandbox
        self.amplify_config = amplify_config
        self.policy = policy or BuildPolicy()
        self.workers = workers
        self.directory = truth_directory(family, amplify_config, cache_dir)
        self._memory: dict[str, GroundTruth] = {}
        self._lock = threading.Lock()
        self._task_locks: dict[str, threading.Lock] = {}

    def path(self, task: FunctionTask) -> Path:
        return truth_path(self.directory, task)

    def get(self, task: FunctionTask) -> GroundTruth:
        """The task's ground truth, built on first use."""
        with self._lock:
            lock = self._task_locks.setdefault(task.task_id, threading.Lock())
        with lock:
            found = self._memory.get(task.task_id) or self._load(task)
            if found is None:
                found = self.build([task])[task.task_id]
            self._memory[task.task_id] = found
            return found

    def _load(self, task: FunctionTask) -> GroundTruth | None:
        try:
            with gc_paused():
                obj = json.loads(gzip.decompress(self.path(task).read_bytes()))
                return GroundTruth.from_json(obj)
        except (OSError, ValueError, KeyError, TypeError, EOFError):
            return None

    def _save(self, task: FunctionTask, truth: GroundTruth) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        with gc_paused():
            text = json.dumps(truth.to_json(), separators=(",", ":"))
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(gzip.compress(text.encode(), compresslevel=1, mtime=0))
        os.replace(tmp, self.path(task))

    def missing(self, tasks: Sequence[FunctionTask]) -> list[FunctionTask]:
        return [t for t in tasks if t.task_id not in self._memory and not self.path(t).exists()]

    def build(self, tasks: Sequence[FunctionTask]) -> dict[str, GroundTruth]:
        """Build (and cache) the ground truth of ``tasks``, running the sandbox concurrently."""
        seeds = self._base_inputs(tasks)
        config = self.amplify_config

        def extra(task: FunctionTask) -> list[Args]:
            if task.plus_inputs is not None:
                return list(task.plus_inputs)
            if config is None:
                return []
            return amplify(
                task.task_id,
                seeds[task.task_id],
                config,
                task.contract,
                reference=task.reference,
                entry_point=task.entry_point,
                prompt=task.prompt,
                cost=self._cost(task),
            )

        if config is not None and config.generator >= 7 and len(tasks) > 1:
            # generator 7 counts the reference's work in the sandbox: tasks side by side
            with ThreadPoolExecutor(max(1, self.workers)) as pool:
                made = list(pool.map(extra, tasks))
        else:
            made = [extra(t) for t in tasks]
        extras = {t.task_id: m for t, m in zip(tasks, made, strict=True)}
        tagged = {t.task_id: _tagged([*seeds[t.task_id], *extras[t.task_id]]) for t in tasks}
        executions = [
            self._reference_run(t, seeds[t.task_id], extras[t.task_id], tagged[t.task_id])
            for t in tasks
        ]
        built: dict[str, GroundTruth] = {}
        results = self.sandbox.run_many(executions, self.workers)
        for task, execution, result in zip(tasks, executions, results, strict=True):
            report = parse_report(result, execution)
            if self._resumes(task):
                report = self._resume(task, execution, report)
            truth = self._truth(
                task, seeds[task.task_id], extras[task.task_id], report, tagged[task.task_id]
            )
            self._save(task, truth)
            self._memory[task.task_id] = truth
            built[task.task_id] = truth
        return built

    def _cost(self, task: FunctionTask) -> budget.Cost:
        """Generator 7's cost model of ``task``'s reference: the line events it executes on
        each input, counted in the sandbox (``budget.counting_source``)."""

        def cost(inputs: Sequence[Args], limits: Sequence[int] | None = None) -> list[int]:
            caps = list(limits) if limits is not None else [budget.BUDGET] * len(inputs)
            execution = call_execution(
                budget.counting_source(task.reference, task.entry_point),
                budget.COUNTER,
                [(n, *a) for n, a in zip(caps, inputs, strict=True)],
                [COUNT_CAP_S if n >= budget.BUDGET else SMALL_COUNT_CAP_S for n in caps],
                stop_on_timeout=False,
                wall_cap_s=COUNT_CAP_S * 2,
                output_bytes=1 << 20,
            )
            report = parse_report(self.sandbox.run(execution), execution)
            counts = [
                r.value if r.status == "ok" and type(r.value) is int else budget.OVER
                for r in report.results
            ]
            return counts + [budget.OVER] * (len(inputs) - len(counts))

        return cost

    def _resumes(self, task: FunctionTask) -> bool:
        """Generator 8 goes on past an input the reference's process did not survive."""
        c = self.amplify_config
        return task.plus_inputs is None and c is not None and c.generator >= 8

    def _resume(
        self, task: FunctionTask, execution: Execution, report: HarnessReport
    ) -> HarnessReport:
        """``report`` with the reference run again after an input its process did not survive
        (out of memory, killed, past its output: HumanEval/14's prefixes of a string of 65,536
        characters), that input counted as failed, up to ``RESUMES`` times. A run stopped by
        its time budget is not resumed."""
        if report.stage != "ran" or report.done or not _died(report):
            return report
        plan = json.loads(execution.stdin.partition("\n")[2])
        inputs, limits = plan["inputs"], plan["limits"]
        results = list(report.results)
        last = report
        for _ in range(RESUMES):
            if last.stage != "ran" or last.done or not _died(last) or len(results) >= len(inputs):
                break
            results.append(InputResult("exception", 0.0, error_type="ProcessEnded"))
            start = len(results)
            if start >= len(inputs):
                break
            again = call_execution(
                task.reference,
                task.entry_point,
                [],
                limits[start:],
                stop_on_timeout=False,
                budget_s=plan["budget_s"],
                wall_cap_s=plan["budget_s"] + self.policy.base_cap_s + 5.0,
                output_bytes=64 << 20,
                tagged=inputs[start:],
            )
            last = parse_report(self.sandbox.run(again), again)
            results += last.results
        return dataclasses.replace(report, results=tuple(results))

    def _checks_determinism(self, task: FunctionTask) -> bool:
        """Generator 2 keeps an amplified input only if a second run answers it the same."""
        c = self.amplify_config
        return task.plus_inputs is None and c is not None and c.generator >= 2

    def _reference_run(
        self, task: FunctionTask, base: list[Args], extra: list[Args], tagged: list[Any]
    ) -> Execution:
        """One run of the reference on base then extra inputs (``tagged``: their tagged forms,
        in that order). Given extra inputs (EvalPlus) get the base inputs' time limit and a
        longer budget: they are data, not guesses. Generator 2's inputs are run twice in the
        same process (budget doubled), the second time to see that the reference answers them
        the same way."""
        p = self.policy
        given = task.plus_inputs is not None
        plus_cap = p.base_cap_s if given else p.plus_cap_s
        budget = p.given_budget_s if given else p.budget_s
        caps = [plus_cap] * len(extra)
        c = self.amplify_config
        if not given and c is not None and c.generator >= 8:
            for j, form in enumerate(tagged[len(base) :]):
                if len(json.dumps(form)) > scale.MAX_CHARS:
                    caps[j] = min(plus_cap, p.grown_cap_s)
        if self._checks_determinism(task):
            extra = [*extra, *extra]
            tagged = [*tagged, *tagged[len(base) :]]
            caps = [*caps, *caps]
            budget *= 2
        return call_execution(
            task.reference,
            task.entry_point,
            [*base, *extra],
            [p.base_cap_s] * len(base) + caps,
            stop_on_timeout=False,
            budget_s=budget,
            wall_cap_s=budget + p.base_cap_s + 5.0,
            output_bytes=64 << 20,
            tagged=tagged,
        )

    def _base_inputs(self, tasks: Sequence[FunctionTask]) -> dict[str, list[Args]]:
        seeds = {t.task_id: list(t.base_inputs) for t in tasks if t.base_inputs is not None}
        to_record = [t for t in tasks if t.base_inputs is None]
        if not to_record:
            return seeds
        executions = []
        for t in to_record:
            if t.record_source is None:
                raise GroundTruthError(f"{t.task_id}: neither base inputs nor a check to record")
            executions.append(
                record_execution(t.record_source, t.entry_point, self.policy.record_seed)
            )
        results = self.sandbox.run_many(executions, self.workers)
        for task, execution, result in zip(to_record, executions, results, strict=True):
            report = parse_report(result, execution)
            if report.stage != "ran" or not report.records:
                raise GroundTruthError(
                    f"{task.task_id}: recording its check's inputs failed: "
                    f"{report.stage} {report.error_type or ''} {report.detail or result.stderr[-300:]}"
                )
            unique: dict[str, Args] = {}
            for args in report.records:
                unique.setdefault(json.dumps(encode(list(args))), args)
            seeds[task.task_id] = list(unique.values())
        return seeds

    def _truth(
        self,
        task: FunctionTask,
        base: list[Args],
        extra: list[Args],
        report: HarnessReport,
        tagged: list[Any],
    ) -> GroundTruth:
        if report.stage != "ran":
            raise GroundTruthError(
                f"{task.task_id}: the reference did not run: {report.stage} "
                f"{report.error_type or ''} {report.detail or report.execution.stderr[-300:]}"
            )
        results = report.results
        base_cases: list[Case] = []
        chars = 0
        for i, args in enumerate(base):
            r = results[i] if i < len(results) else None
            if r is None or r.status != "ok" or not self._usable(task, args, r, None):
                why = (
                    "no result"
                    if r is None
                    else f"{r.status} {r.error_type or ''} {r.detail or ''}"
                )
                raise GroundTruthError(f"{task.task_id}: the reference fails base input {i}: {why}")
            base_cases.append(Case(args, r.value, r.seconds, tagged[i]))
            chars += _chars(r)
        plus_cases: list[Case] = []
        c = self.amplify_config
        count = c.count if task.plus_inputs is None and c else None
        if count is not None and c is not None and c.generator >= 7:
            count += budget.MOST  # the grown inputs come on top (``budget.MOST``)
        if count is not None and c is not None and c.generator >= 8:
            count += regrow.MOST + special.MOST  # and generator 8's own (``_pick_eight``)
        if count is not None and c is not None and c.generator >= 9:
            count += ninth.MOST  # and generator 9's
        if count is not None and c is not None and c.generator >= 10:
            count += tenth.MOST  # and generator 10's
        if count is not None and c is not None and c.generator >= 11:
            count += eleventh.MOST  # and generator 11's
        if count is not None and c is not None and c.generator >= 12:
            count += twelfth.MOST  # and generator 12's
        if count is not None and c is not None and c.generator >= 13:
            count += thirteenth.MOST  # and generator 13's
        limit = self.policy.max_output_chars
        if task.plus_inputs is None and self.amplify_config and self.amplify_config.generator >= 7:
            limit = max(limit, budget.MAX_OUTPUT_CHARS)
        # generator 9: an answer of None where no base input has one is the reference's falling
        # off its end on an input it was not written for (HumanEval/24's 0), not an answer
        nothing = (
            task.plus_inputs is None
            and c is not None
            and c.generator >= 9
            and all(b.expected is not None for b in base_cases)
        )
        for j, args in enumerate(extra):
            r = results[len(base) + j] if len(base) + j < len(results) else None
            if r is None or r.status != "ok" or not self._usable(task, args, r, limit):
                continue
            if nothing and r.value is None:
                continue
            repeat = len(base) + len(extra) + j
            if self._checks_determinism(task) and not _same(r, results, repeat):
                continue
            if count is not None and len(plus_cases) >= count:
                break
            plus_cases.append(Case(args, r.value, r.seconds, tagged[len(base) + j]))
            chars += _chars(r)
        return GroundTruth(
            task.task_id,
            tuple(base_cases),
            tuple(plus_cases),
            len(extra) - len(plus_cases),
            chars,
        )

    @staticmethod
    def _usable(task: FunctionTask, args: Args, r: InputResult, max_chars: int | None) -> bool:
        """The reference's output is usable: serializable, not huge, and right by the oracle."""
        if max_chars is not None and _chars(r) > max_chars:
            return False
        return is_right(task.compare, task.oracle, task.atol, args, r.value, r.value)


def _died(report: HarnessReport) -> bool:
    """Whether the run's process ended other than by finishing its plan or its time budget."""
    return report.execution.outcome != "passed" or report.execution.truncated


def _tagged(inputs: Sequence[Args]) -> list[Any]:
    """Each input's tagged form (``encode(list(args))``), made once."""
    with gc_paused():
        return [encode(list(a)) for a in inputs]


def _chars(r: InputResult) -> int:
    """The length of an output's tagged JSON."""
    return len(json.dumps(r.tagged if r.tagged is not None else encode(r.value)))


def _same(first: InputResult, results: Sequence[InputResult], n: int) -> bool:
    """Whether result ``n`` (an input's second run) is ``first``'s output too (their tagged
    forms are equal: the runner tags a set's items in a fixed order)."""
    if n >= len(results) or results[n].status != "ok":
        return False
    again = results[n]
    if first.tagged is not None and again.tagged is not None:
        return bool(first.tagged == again.tagged)
    return bool(json.dumps(encode(first.value)) == json.dumps(encode(again.value)))
