"""Run-to-run drift on the virtual device clock under host load: the same campaign (a baseline
and an n-gram candidate, each executed three times at concurrency 8, on real reference servers
over HTTP) with the engine waiting for the client (``--virtual-admission-wait 0.5``, the
default) against the named baseline, no wait (``--virtual-admission-wait 0``), while busy loops
load the host's cores as a parallel test worker does.

It prints each execution's mean TPOT on the device clock, the spread of a configuration's
executions (largest over smallest, minus one), the drift the speed gate estimates from them (a
moment estimate that truncates to 0 when the executions vary less than their samples), and the
speed verdict.

    python benchmarks/virtual_clock_drift.py --samples 96 --load 1 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from _results import machine, write_section
from specverdict.campaign import build_plan, parse_campaign
from specverdict.measure.results import run_results
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.verdict import campaign_verdicts

SECTION = "## Virtual device clock: run-to-run drift under host load"

CAMPAIGN = """\
name: drift-{label}
engine:
  kind: reference
  launch: {{args: ["--device-model", "accel-2b", "--device-clock", "virtual",
                   "--virtual-admission-wait", "{wait}"]}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
baseline: {{method: none}}
candidates:
  - {{method: ngram, k: 8, params: {{prompt_lookup_min: 2, prompt_lookup_max: 5}}}}
stages:
  function: {{suite: synth-function@1, samples: {{first: {samples}}}}}
sampling: {{temperature: 0.0, max_tokens: 160, seed: 0}}
load: {{concurrency: [8], warmup: 2, repeats: 3}}
gates: {{alpha: 0.05, margin: 0.05, min_speedup: 1.05}}
"""


def busy(stop_at: float) -> None:
    while time.monotonic() < stop_at:
        pass


@dataclass(frozen=True)
class Row:
    wait: float
    wall_s: float
    tpots: dict[str, list[float]]  # mean TPOT of each execution, by configuration
    drift_sd: float
    verdict: str
    interval: tuple[float, float] | None

    @property
    def spread(self) -> float:
        return max(max(v) / min(v) - 1 for v in self.tpots.values())


def measure(wait: float, samples: int, root: Path) -> Row:
    label = f"wait-{wait:g}"
    text = CAMPAIGN.format(label=label, wait=wait, samples=samples)
    folder = root / label
    folder.mkdir()
    plan = build_plan(parse_campaign(text, folder / "campaign.yaml"))
    store = SQLiteStore(folder / "runs.db")
    try:
        t0 = time.perf_counter()
        Runner(store, log=lambda _: None, runs_dir=folder / "runs").run_plan(plan)
        wall = time.perf_counter() - t0
        tpots: dict[str, list[float]] = {}
        for run in store.list_runs():
            summary = run_results(store, run.run_id).summary
            assert summary.clock == "device" and summary.mean_tpot_s is not None
            tpots.setdefault(run.spec.speculation.label, []).append(summary.mean_tpot_s)
        (verdict,) = campaign_verdicts(store, plan)
        speed = verdict.reason("speed.tpot")
        assert speed is not None
        return Row(
            wait,
            wall,
            tpots,
            float(speed.data["drift"]["sd"]),
            verdict.verdict,
            verdict.speedup_interval,
        )
    finally:
        store.close()


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--samples", type=int, default=96)
    p.add_argument("--load", type=int, default=1, help="busy-loop processes beside the runs")
    p.add_argument("--write", type=Path, default=None, help="RESULTS.md to update")
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for wait in (0.0, 0.5):  # the named baseline first: no wait
            stop_at = time.monotonic() + 3600
            loads = [
                multiprocessing.Process(target=busy, args=(stop_at,), daemon=True)
                for _ in range(args.load)
            ]
            for proc in loads:
                proc.start()
            try:
                rows.append(measure(wait, args.samples, Path(tmp)))
            finally:
                for proc in loads:
                    proc.terminate()
    lines = [
        SECTION,
        "",
        f"{date.today().isoformat()}, {machine()}; "
        f"`python benchmarks/virtual_clock_drift.py --samples {args.samples} --load {args.load}`",
        "",
        "| admission wait | mean TPOT per execution (ms, device clock) | largest spread | "
        "drift sd | verdict (ngram k=8) | wall |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = "; ".join(
            f"{name}: " + ", ".join(f"{t * 1e3:.4f}" for t in values)
            for name, values in r.tpots.items()
        )
        shown = f"[{r.interval[0]:.3f}, {r.interval[1]:.3f}]" if r.interval else "none"
        lines.append(
            f"| {r.wait:g} s{' (baseline)' if r.wait == 0 else ''} | {cells} | "
            f"{r.spread:.3%} | {r.drift_sd:.2e} | {r.verdict} {shown} | {r.wall_s:.0f} s |"
        )
    base, new = rows[0].spread, rows[1].spread
    lines += [
        "",
        f"Largest spread between executions, with the wait against without: {new:.3%} against "
        f"{base:.3%}"
        + (" (identical executions)." if new == 0 else f" ({new / base:.2g}x)." if base else "."),
    ]
    print("\n".join(lines))
    if args.write is not None:
        write_section(args.write, SECTION, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
