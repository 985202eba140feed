"""Measure the shipped reference models on the generated suites: ``python -m
specverdict.lab.train.quality``.

Runs ``examples/reference-quality.yaml`` (every evaluation instance of the function, agent and
repository suites, greedy, the baseline and the demo's candidates) through the campaign runner
on real reference servers, scores every answer in the sandbox, and writes the pass rates per
stage and configuration, the agent's tool-call parse success and the verdicts to
``weights/quality.json``; the model card renders them. Needs no torch.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

from specverdict.campaign import build_plan, load_campaign
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.suites.synth.data import load_eval
from specverdict.verdict import campaign_verdicts

WEIGHTS = Path(__file__).resolve().parents[2] / "reference" / "weights"
CAMPAIGN = Path("examples/reference-quality.yaml")


@cache
def task_kinds(stage: str) -> dict[str, str]:
    """The kind of each generated task of ``stage``: ``stub`` (implement a function) or
    ``bugfix`` (records written before stubs existed are bug fixes)."""
    return {r["task_id"]: r.get("kind", "bugfix") for r in load_eval(stage)}


def measure(campaign: Path, db: Path) -> dict[str, Any]:
    plan = build_plan(load_campaign(campaign))
    store = SQLiteStore(db)
    t0 = time.perf_counter()
    try:
        Runner(store, log=lambda m: print(m, flush=True), runs_dir=db.parent / "runs").run_plan(
            plan
        )
        arms: dict[str, dict[str, Any]] = defaultdict(dict)
        for run in store.list_runs():
            samples = store.samples(run.run_id)
            scored = [s for s in samples if s.score is not None]
            passed = sum(bool(s.score and s.score.passed) for s in samples)
            row: dict[str, Any] = {
                "n": len(samples),
                "passed": passed,
                "pass_rate": round(passed / len(samples), 4) if samples else None,
                "scored": len(scored),
            }
            if run.spec.stage in ("agent", "repository"):  # stubs and bug fixes apart
                labels = task_kinds(run.spec.stage)
                kinds: dict[str, dict[str, int]] = defaultdict(lambda: {"n": 0, "passed": 0})
                for s in samples:
                    kind = kinds[labels.get(s.sample_id, "unknown")]
                    kind["n"] += 1
                    kind["passed"] += bool(s.score and s.score.passed)
                row["by_kind"] = dict(sorted(kinds.items()))
            if run.spec.stage == "agent":
                calls = failures = 0
                for s in scored:
                    detail = json.loads(s.score.detail or "{}") if s.score else {}
                    calls += int(detail.get("calls", 0))
                    failures += int(detail.get("parse_failures", 0))
                row["tool_calls"] = calls
                row["parse_success"] = round(1 - failures / calls, 4) if calls else None
            arms[run.spec.stage][run.spec.speculation.label] = row
        verdicts = [
            {
                "stage": v.stage,
                "candidate": v.candidate,
                "verdict": v.verdict,
                "base_pass_rate": v.base_pass_rate,
                "cand_pass_rate": v.cand_pass_rate,
                "acceptance_rate": v.acceptance_rate,
            }
            for v in campaign_verdicts(store, plan)
        ]
    finally:
        store.close()
    return {
        "campaign": str(campaign),
        "stages": dict(arms),
        "verdicts": verdicts,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m specverdict.lab.train.quality")
    p.add_argument("--campaign", type=Path, default=CAMPAIGN)
    p.add_argument("--out", type=Path, default=WEIGHTS / "quality.json")
    p.add_argument(
        "--keep", type=Path, default=None, help="keep the registry and runs in this folder"
    )
    args = p.parse_args(argv)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = measure(args.campaign, args.keep / "runs.db")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            result = measure(args.campaign, Path(tmp) / "runs.db")
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for stage, rows in result["stages"].items():
        for label, row in rows.items():
            print(f"{stage:10} {label:60} {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
