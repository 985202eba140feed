"""Error rates of the speed gate with a stored calibration pooled into the run-to-run drift
(``specverdict calibrate``, design note 034), by simulation through ``judge_pair``.

Each simulated pair is ``error_rates``'s: 100 samples, the baseline executed twice (or once),
the candidate once, a log-normal drift factor per execution. The calibration is six more
executions of the baseline's engine, on other prompts, with their own drift: the same as the
campaign's (a valid calibration) or smaller (taken when the host was quieter: a stale one).
Its drift is pooled with the campaign's own by ``stats.speed.pool_drift`` (the F check
included), and the pair judged as ``verdict`` judges it. Rows: false speed ADOPT at the bar
(true speed-up = min_speedup 1.05), the check's refusals, and the power at a true 1.2x with
and without the calibration.

    python benchmarks/calibration.py [--sims 2000] [--write benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from _results import section_head, write_section
from error_rates import GATES, Truth, draw, judge, rate
from specverdict.stats.speed import ExecutionDrift, execution_drift, pool_drift

SECTION = "## Calibration: the speed gate with a stored A/A calibration"
CALIBRATION_EXECUTIONS = 6


def calibration(drift: float, rng: np.random.Generator, n: int = 60) -> ExecutionDrift | None:
    """A stored calibration's drift: six executions of the baseline on n other prompts."""
    level = np.exp(rng.normal(np.log(0.02), 0.1, n))
    runs = [
        list(level * np.exp(rng.normal(0.0, drift)) * np.exp(rng.normal(0.0, 0.02, n)))
        for _ in range(CALIBRATION_EXECUTIONS)
    ]
    return execution_drift([runs])


def simulate(truth: Truth, cal_drift: float | None, sims: int, seed: int) -> tuple[int, int, int]:
    """(ADOPTs, calibrations refused, calibrations read alone) over ``sims`` pairs."""
    rng = np.random.default_rng(seed)
    adopts = refused = alone = 0
    for s in range(sims):
        d = draw(truth, truth.n, rng)
        own = execution_drift([[list(t) for t in d.base_tpot]]) if truth.base_runs > 1 else None
        prior = calibration(cal_drift, rng) if cal_drift is not None else None
        pooled = pool_drift(own, prior)
        refused += pooled is not None and pooled.calibration_use == "refused"
        alone += pooled is not None and pooled.calibration_use == "alone"
        adopts += judge(d, truth.n, s, drift=pooled).verdict == "ADOPT"
    return adopts, refused, alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=2000, help="simulated pairs per row")
    parser.add_argument("--write", type=Path, help="rewrite this file's section")
    args = parser.parse_args()
    sims = args.sims
    bar = GATES.min_speedup
    one_sided = GATES.alpha / 2
    rows = []
    t0 = time.perf_counter()
    cases = [
        ("false speed ADOPT at the bar", bar, 2, 0.03, 0.03, "valid calibration (3% both)"),
        ("false speed ADOPT at the bar", bar, 1, 0.03, 0.03, "valid calibration, read alone"),
        ("false speed ADOPT at the bar", bar, 2, 0.03, 0.02, "stale calibration (2%; host 3%)"),
        ("false speed ADOPT at the bar", bar, 2, 0.03, 0.01, "stale calibration (1%; host 3%)"),
        ("false speed ADOPT at the bar", bar, 2, 0.03, None, "no calibration (df 1)"),
        ("power, a true 1.2x ADOPT", 1.2, 2, 0.03, 0.03, "valid calibration (3% both)"),
        ("power, a true 1.2x ADOPT", 1.2, 2, 0.03, None, "no calibration (df 1)"),
    ]
    for k, (claim, speedup, base_runs, drift, cal, what) in enumerate(cases):
        truth = Truth(n=100, drop=0.0, discordant=0.0, speedup=speedup, drift=drift,
                      base_runs=base_runs)  # fmt: skip
        hits, refused, alone = simulate(truth, cal, sims, seed=100 + k)
        note = f"; check refused {100 * refused / sims:.1f}%" if cal is not None else ""
        note += "; read alone" if alone else ""
        null = speedup == bar
        met = (hits / sims <= one_sided) if null else None
        target = f"<= {100 * one_sided:g}%" if null else "-"
        rows.append(
            f"| {claim} | n = 100, drift 3%, baseline x{base_runs}, {what}{note} | "
            f"{rate(hits, sims)} | {target} | {'-' if met is None else 'yes' if met else 'NO'} |"
        )
    took = time.perf_counter() - t0
    table = "\n".join(
        ["| property | setting | figure | target | met |", "|---|---|---|---|---|", *rows]
    )
    print(table)
    print(f"{took:.0f} s")
    if args.write:
        head = section_head(
            SECTION, f"python benchmarks/calibration.py --sims {sims} --write benchmarks/RESULTS.md"
        )
        body = (
            f"\n{took:.0f} s. A calibration of {CALIBRATION_EXECUTIONS} executions pooled by "
            "`pool_drift` (F check at 0.05) into the pair's drift, judged by `judge_pair` at the "
            "first reading's 90% of alpha. A valid calibration keeps the false ADOPT at its "
            "level and buys power; a stale one, from a host quieter than now, is what the check "
            "cannot see at the campaign's one degree of freedom: the calibration's age limit "
            "(`gates.calibration_max_age_h`) is the guard, and `calibrate` is to be run again "
            "after any change to the host.\n"
        )
        write_section(args.write, SECTION, "\n".join(head) + "\n" + body + "\n" + table + "\n")


if __name__ == "__main__":
    main()
