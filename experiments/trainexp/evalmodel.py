"""Evaluate a target checkpoint greedy on fixed subsets (baseline runs only); dump summary JSON."""

import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

import yaml

from specverdict.campaign import build_plan, load_campaign
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore

model, out = sys.argv[1], Path(sys.argv[2])
stages = sys.argv[3].split(",") if len(sys.argv) > 3 else ["function", "agent", "repository"]
base_file = os.environ.get("CAMPAIGN_BASE", str(Path(__file__).parent / "campaign-base.yaml"))
base = yaml.safe_load(Path(base_file).read_text())
base["name"] = "trainexp-" + re.sub(r"[^A-Za-z0-9_.-]", "-", out.stem)
base["model"]["path"] = str(Path(model).resolve())
base["sampling"]["max_tokens"] = int(os.environ.get("MAX_TOKENS", "160"))
base["candidates"] = [{"method": "ngram", "k": 2}]
base["stages"] = {k: v for k, v in base["stages"].items() if k in stages}
out.parent.mkdir(parents=True, exist_ok=True)
cy = out.with_suffix(".yaml")
cy.write_text(yaml.safe_dump(base))
plan = build_plan(load_campaign(cy))
plan = plan.model_copy(
    update={"runs": tuple(r for r in plan.runs if r.speculation.method == "none"), "pairs": ()}
)
db = out.with_suffix(".db")
if db.exists():
    db.unlink()
store = SQLiteStore(db)
t0 = time.perf_counter()
Runner(store, log=lambda m: None, runs_dir=db.parent / (out.stem + "-runs")).run_plan(plan)
res = {"model": model, "seconds": round(time.perf_counter() - t0, 1), "stages": {}}
for run in store.list_runs():
    samples = store.samples(run.run_id)
    passed = sum(s.passed for s in samples)
    row = {"n": len(samples), "passed": passed, "rate": round(passed / max(1, len(samples)), 4)}
    outcomes = Counter(s.score.outcome if s.score else s.status for s in samples)
    row["outcomes"] = dict(outcomes)
    if run.spec.stage == "agent":
        calls = fails = 0
        loops = Counter()
        noop = 0
        for s in samples:
            d = json.loads(s.score.detail or "{}") if s.score else {}
            calls += int(d.get("calls", 0))
            fails += int(d.get("parse_failures", 0))
            loops[str(d.get("loop"))] += 1
        row["tool_calls"] = calls
        row["parse_success"] = round(1 - fails / calls, 4) if calls else None
    res["stages"][run.spec.stage] = row
store.close()
out.write_text(json.dumps(res, indent=2))
print(json.dumps(res, indent=1))
