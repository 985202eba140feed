"""What an amplification generator costs: HumanEval's ground truth and the scoring of right answers.

For each generator named (the first is the baseline), on a fresh ground-truth cache, one after
the other in this process: the ground truth of the 164 tasks (the reference run on every
amplified input, the cache written), its size on disk, the amplified inputs kept per task, then
the scoring of the 164 references and of the tests' alternative right solutions
(``ALTERNATIVE_RIGHT``) in chat mode, with how many of them fail (each must be 0: a right answer
failing is a false failure). Ratios are against the baseline.

    python benchmarks/amplifier_cost.py [--generators 7,8] [--write benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from specverdict.sandbox import LocalSandbox
from specverdict.suites.function.amplify import AMPLIFIER_VERSION, GENERATORS, AmplifyConfig

try:
    from benchmarks._results import machine, write_section
    from benchmarks.catch_rate import alternatives
    from benchmarks.heldout_catch import _suite, score
except ImportError:  # run as a script from the repository root
    from _results import machine, write_section  # type: ignore[no-redef]
    from catch_rate import alternatives  # type: ignore[no-redef]
    from heldout_catch import _suite, score  # type: ignore[no-redef]

HEADING = "## Amplified tests: what a generator costs (HumanEval's ground truth and scoring)"


@dataclass(frozen=True, slots=True)
class Cost:
    """One generator's measured costs."""

    generator: int
    ground_truth_s: float
    disk_bytes: int
    inputs_per_task: float
    references_s: float
    references_failing: int
    alternatives_s: float
    alternatives_failing: int


def _disk(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def measure(generator: int, alternative: dict[str, str]) -> Cost:
    """``generator``'s costs on a fresh cache (removed afterwards)."""
    sandbox = LocalSandbox()
    with tempfile.TemporaryDirectory(prefix=f"amp-cost-{generator}-") as tmp:
        cache = Path(tmp)
        suite = _suite(AmplifyConfig(generator=generator), cache, sandbox)
        task_ids = [t.task_id for t in suite.tasks()]
        started = time.monotonic()
        truths = suite.prepare(task_ids)
        ground = time.monotonic() - started
        disk = _disk(cache)
        kept = [len(truths[t].plus) for t in task_ids]
        started = time.monotonic()
        refs = score(suite, [(t, suite.task(t).reference) for t in task_ids])
        refs_s = time.monotonic() - started
        started = time.monotonic()
        alts = score(suite, sorted(alternative.items()))
        alts_s = time.monotonic() - started
    return Cost(
        generator,
        ground,
        disk,
        sum(kept) / len(kept),
        refs_s,
        sum(not passed for _, passed in refs),
        alts_s,
        sum(not passed for _, passed in alts),
    )


def render(costs: list[Cost], n_refs: int, n_alts: int) -> str:
    base = costs[0]

    def ratio(x: float, b: float) -> str:
        return f"{x / b:.2f}x" if b else "-"

    head = "| | " + " | ".join(f"generator {c.generator}" for c in costs) + " |"
    rows = [head, "|---|" + "---|" * len(costs)]

    def row(label: str, cell: list[str]) -> None:
        rows.append(f"| {label} | " + " | ".join(cell) + " |")

    row(
        "ground truth of the 164 tasks, fresh cache",
        [
            f"{c.ground_truth_s:.0f} s ({ratio(c.ground_truth_s, base.ground_truth_s)})"
            for c in costs
        ],
    )
    row(
        "ground truth on disk",
        [f"{c.disk_bytes / 1e6:.1f} MB ({ratio(c.disk_bytes, base.disk_bytes)})" for c in costs],
    )
    row("amplified inputs kept per task", [f"{c.inputs_per_task:.1f}" for c in costs])
    row(
        f"scoring the {n_refs} references",
        [f"{c.references_s:.1f} s ({ratio(c.references_s, base.references_s)})" for c in costs],
    )
    row(
        f"scoring the {n_alts} alternatives",
        [
            f"{c.alternatives_s:.1f} s ({ratio(c.alternatives_s, base.alternatives_s)})"
            for c in costs
        ],
    )
    row("references failing", [f"{c.references_failing}/{n_refs}" for c in costs])
    row("alternatives failing", [f"{c.alternatives_failing}/{n_alts}" for c in costs])
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--generators",
        default=f"{AMPLIFIER_VERSION - 1},{AMPLIFIER_VERSION}",
        help="comma-separated generators, the first the baseline (default: the previous and the "
        "default)",
    )
    parser.add_argument("--write", type=Path, help="write the section into this RESULTS.md")
    args = parser.parse_args()
    try:
        chosen = [int(g) for g in args.generators.split(",")]
    except ValueError:
        parser.error(f"--generators {args.generators}: expected numbers such as 7,8")
    if not chosen or any(g not in GENERATORS for g in chosen):
        parser.error(f"--generators {args.generators}: known generators are {GENERATORS}")
    alternative = alternatives()
    load_before = os.getloadavg()[0]
    costs = [measure(g, alternative) for g in chosen]
    load_after = os.getloadavg()[0]
    text = render(costs, 164, len(alternative))
    print(text)
    if args.write:
        header = "\n".join(
            [
                f"- date: {date.today().isoformat()}",
                f"- machine: {machine()}; load average {load_before:.2f} before, "
                f"{load_after:.2f} after",
                f"- command: `python benchmarks/amplifier_cost.py --generators {args.generators} "
                f"--write {args.write}`",
                f"- baseline: generator {chosen[0]}; each generator measured on a fresh cache, one "
                "after the other in one process; seed 0, 100 inputs; scoring in chat mode, 2 "
                "sandbox workers",
            ]
        )
        write_section(args.write, HEADING, header + "\n\n" + text + "\n")


if __name__ == "__main__":
    main()
