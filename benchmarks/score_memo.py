"""Scoring a quantization pair's runs: every answer judged, against each distinct answer once.

The runs of one campaign on the generated function suite (``synth-function@1``, 400 tasks) as
the demo's quantization pair writes them: a baseline executed twice and a candidate executed
twice, the candidate's answer wrong on one task in ``round(1 / --lossy)`` (default 0.35: one in
three; nvfp4 changed 142 of 400 answers), every other answer the task's canonical solution. Both
sides score the four runs with ``Runner.score_pending`` in the real sandbox:

- ``every answer`` (the baseline): the suite with ``pure_scoring`` off, as before design 026;
- ``distinct answers``: the suite as shipped, where an answer judged once gets its score again.

Both sides must give the same scores. Each runs ``--repeat`` times, alternating; the script
prints the median wall time of each, the ratio against the baseline, and the sandbox
judgements each made.

    python benchmarks/score_memo.py               # about two minutes on 2 cores
    python benchmarks/score_memo.py --repeat 3 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from _results import section_head, write_section
from specverdict.campaign import build_plan, parse_campaign
from specverdict.records import SampleRecord, Score
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.suites import Sample
from specverdict.suites.synth.suites import SynthFunction

SECTION = "## Scoring: each distinct answer once"
CAMPAIGN = """\
name: score-memo
engine: {kind: reference}
model: {family: specverdict-reference, served_name: reference-target}
quantization: nvfp4
baseline: {method: none}
candidates:
  - {method: mtp, k: 2}
stages:
  function: {suite: synth-function@1}
sampling: {temperature: 0.0, max_tokens: 160, seed: 0}
load: {concurrency: [8], repeats: 2}
"""


class EveryAnswer(SynthFunction):
    """The shipped suite, each answer judged in the sandbox however often it recurs."""

    pure_scoring: ClassVar[bool] = False


class Counting:
    """Counts the answers a suite sends to its sandbox."""

    def __init__(self, suite: SynthFunction) -> None:
        self.judged = 0
        original = suite.score_batch

        def counted(
            items: Sequence[tuple[Sample, str, Sequence[dict[str, Any]]]],
        ) -> list[Score | None]:
            self.judged += len(items)
            return original(items)

        suite.score_batch = counted  # type: ignore[method-assign]


def answers(suite: SynthFunction, lossy: float) -> tuple[list[str], list[str]]:
    """The baseline's answers (canonical solutions) and the candidate's (wrong where lossy)."""
    tasks = suite.tasks()
    base = [t.reference[len(t.prompt) :] for t in tasks]
    every = round(1 / lossy) if lossy > 0 else 0
    cand = [
        "    return None\n" if every and n % every == 0 else text for n, text in enumerate(base)
    ]
    return base, cand


def score_runs(suite: SynthFunction, folder: Path, lossy: float) -> tuple[float, int, list[Score]]:
    plan = build_plan(parse_campaign(CAMPAIGN, folder / "campaign.yaml"))
    store = SQLiteStore(folder / "runs.db")
    samples = suite.samples()
    base, cand = answers(suite, lossy)
    counting = Counting(suite)
    runner = Runner(store, log=lambda _: None)
    scores: list[Score] = []
    start = time.perf_counter()
    try:
        for spec, texts, repeat in (
            (plan.runs[0], base, 0),
            (plan.runs[1], cand, 0),
            (plan.runs[1], cand, 1),
            (plan.runs[0], base, 1),
        ):
            run = store.create_run(spec, repeat=repeat)
            for sample, text in zip(samples, texts, strict=True):
                store.add_sample(
                    SampleRecord(
                        run_id=run.run_id,
                        sample_id=sample.id,
                        status="ok",
                        text=text,
                        finish_reason="stop",
                    )
                )
            runner.score_pending(run.run_id, suite, samples)
            scores += [s.score for s in store.samples(run.run_id) if s.score is not None]
    finally:
        store.close()
    return time.perf_counter() - start, counting.judged, scores


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--lossy", type=float, default=0.35)
    p.add_argument("--write", type=Path, default=None)
    args = p.parse_args()
    sides = {"every answer": EveryAnswer, "distinct answers": SynthFunction}
    times: dict[str, list[float]] = {k: [] for k in sides}
    judged: dict[str, int] = {}
    scores: dict[str, list[Score]] = {}
    for _ in range(args.repeat):
        for label, kind in sides.items():
            with tempfile.TemporaryDirectory() as tmp:
                wall, n, got = score_runs(kind(), Path(tmp), args.lossy)
            times[label].append(wall)
            judged[label], scores[label] = n, got
            print(f"{label}: {wall:.1f} s, {n} answers judged in the sandbox")
    same = [(a.passed, a.outcome) for a in scores["every answer"]] == [
        (b.passed, b.outcome) for b in scores["distinct answers"]
    ]
    assert same, "the two sides gave different scores"
    base = statistics.median(times["every answer"])
    rows = []
    for label in sides:
        med = statistics.median(times[label])
        rows.append((label, med, min(times[label]), base / med, judged[label]))
        print(f"{label}: median {med:.1f} s, {base / med:.2f}x the baseline")
    if args.write:
        lines = [
            *section_head(
                SECTION,
                f"python benchmarks/score_memo.py --repeat {args.repeat} --lossy "
                f"{args.lossy} --write benchmarks/RESULTS.md",
            ),
            "- workload: four runs of the 400 generated functions (a baseline twice, a candidate "
            f"twice, the candidate's answer wrong on one task in {round(1 / args.lossy)}), scored "
            "by `Runner.score_pending` in the sandbox; baseline: `every answer` (pure scoring "
            "off); both sides gave the same scores",
            "",
            "| side | median s | best s | speed-up vs every answer | answers judged |",
            "|---|---|---|---|---|",
        ]
        for label, med, best, ratio, n in rows:
            lines.append(f"| {label} | {med:.1f} | {best:.1f} | {ratio:.2f}x | {n} |")
        write_section(args.write, SECTION, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
