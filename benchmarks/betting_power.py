"""What anytime validity costs: the betting test of non-inferiority against fixed-n Tango.

Truly equal quality, paired outcomes with 5% baseline-only and 5% candidate-only samples, margin
5 pp: the share of pairs each rule passes at n (Tango: the two-sided 95% upper bound under the
margin, read once; betting: an e-value of 40, valid however often it is read). And with identical
outputs, the smallest n at which each passes.

    python benchmarks/betting_power.py [--sims 1000] [--write benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

import numpy as np

from specverdict.stats import paired_noninferiority
from specverdict.stats.sequential import betting_noninferiority

try:
    from benchmarks._results import machine, write_section
except ImportError:  # run as a script from the repository root
    from _results import machine, write_section  # type: ignore[no-redef]

MARGIN, ALPHA = 0.05, 0.05
HEADING = "## Quality: the betting test against fixed-n Tango (what anytime validity costs)"


def tango_passes(d: np.ndarray) -> bool:
    base_only, cand_only = int((d == -1).sum()), int((d == 1).sum())
    ni = paired_noninferiority(
        both_pass=int((d == 0).sum()),
        base_only=base_only,
        cand_only=cand_only,
        both_fail=0,
        margin=MARGIN,
        alpha=ALPHA,
    )
    return ni.decision == "pass"


def betting_passes(d: np.ndarray) -> bool:
    return betting_noninferiority([int(x) for x in d], MARGIN, ALPHA / 2).decided


def first_n(passes: object) -> int:
    for n in range(2, 1000):
        if passes(np.zeros(n)):  # type: ignore[operator]
            return n
    return -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000)
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    lines = ["| n | Tango passes | betting passes |", "|---|---|---|"]
    for n in (100, 200, 400):
        tango = betting = 0
        for _ in range(args.sims):
            u = rng.random(n)
            d = np.where(u < 0.05, -1, np.where(u < 0.10, 1, 0))
            tango += tango_passes(d)
            betting += betting_passes(d)
        lines.append(f"| {n} | {tango / args.sims:.1%} | {betting / args.sims:.1%} |")
    identical = (
        f"Identical outputs: Tango passes from n = {first_n(tango_passes)}, betting from "
        f"n = {first_n(betting_passes)}."
    )
    text = "\n".join(lines) + "\n\n" + identical
    print(text)
    if args.write:
        write_section(
            args.write,
            HEADING,
            f"{HEADING}\n\n{date.today().isoformat()}, {machine()}, `python "
            f"benchmarks/betting_power.py --sims {args.sims} --write benchmarks/RESULTS.md`. "
            "Truly equal quality, 5% discordant each way, margin 5 pp.\n\n" + text + "\n",
        )


if __name__ == "__main__":
    main()
