"""The Ray executor against the local runner: one 8-run campaign on the reference engine paced to
a modelled accelerator (``--device-model accel-8b``: each step is held for its modelled time, so
the runs are dominated by modelled engine time and 2 cores suffice), measured

- by the local runner (one run after another in this process),
- by the Ray executor on a local cluster of 1 node with the accelerator resource,
- by the Ray executor on a local cluster of 4 such nodes (``ray.cluster_utils.Cluster``).

Reports the campaign's wall time on each (the 4-node speed-up over 1 node) and each run's own
time in the registry (created to finished: engine start, measured requests, scoring), whose
mean on 1 Ray node against the local runner is the Ray path's per-run overhead.

    python benchmarks/cluster.py --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import os

# before Ray is imported: every Ray process on the loopback address
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import argparse
import datetime
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import machine, write_section
from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan, interleaved
from specverdict.records import RunRecord
from specverdict.run.executors.claims import ClaimingRunner
from specverdict.run.executors.cluster import Execution, RayExecutor
from specverdict.store import open_store

HEADING = "## Ray executor: one campaign on 1 and 4 nodes, against the local runner"

CAMPAIGN = """\
name: bench-cluster
engine:
  kind: reference
  launch: {{args: [--device-model, accel-8b], resources: {{accel: 1}}}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates:
  - {{method: mtp, k: [1, 2, 3]}}
  - {{method: ngram, k: [2, 4, 8], params: {{prompt_lookup_min: 2, prompt_lookup_max: 5}}}}
  - {{method: draft_model, k: 4}}
stages:
  function: {{suite: synth-function@1, samples: {{first: {samples}}}}}
sampling: {{temperature: 0.0, max_tokens: {max_tokens}, seed: 0}}
load: {{concurrency: [{concurrency}], warmup: 2, baseline_repeats: 1}}
"""

OBJECT_STORE = 80 * 1024 * 1024


def quiet(_: str) -> None:
    return None


def durations(runs: list[RunRecord]) -> list[float]:
    return [r.finished_at - r.created_at for r in runs if r.finished_at is not None]


def local(plan: Plan, work: Path) -> tuple[float, list[float]]:
    db = work / "local.db"
    store = open_store(db)
    t0 = time.perf_counter()
    runs = ClaimingRunner(store, db, log=quiet, runs_dir=work / "local-runs").run_plan(plan)
    wall = time.perf_counter() - t0
    store.close()
    assert all(r.status == "completed" for r in runs), [r.status for r in runs]
    return wall, durations(runs)


def on_ray(plan: Plan, work: Path, nodes: int) -> tuple[float, list[float], float]:
    import ray
    from ray.cluster_utils import Cluster

    t0 = time.perf_counter()
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "object_store_memory": OBJECT_STORE,
            "include_dashboard": False,
            "node_ip_address": "127.0.0.1",
        },
    )
    for _ in range(nodes):
        cluster.add_node(
            num_cpus=1,
            resources={"accel": 1},
            object_store_memory=OBJECT_STORE,
            node_ip_address="127.0.0.1",
        )
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    startup = time.perf_counter() - t0
    db = work / f"ray{nodes}.db"
    store = open_store(db)
    executions = [
        Execution(spec=e.spec, repeat=e.repeat, order=(e.repeat, e.position))
        for e in interleaved(plan.runs, plan.repeats_of)
    ]
    try:
        t0 = time.perf_counter()
        runs = RayExecutor(
            store=store,
            location=str(db),
            console=Console(quiet=True),
            runs_dir=work / f"ray{nodes}-runs",
            log=quiet,
        ).run(plan, executions)
        wall = time.perf_counter() - t0
    finally:
        store.close()
        ray.shutdown()
        cluster.shutdown()
    assert all(r.status == "completed" for r in runs), [r.status for r in runs]
    return wall, durations(runs), startup


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--samples", type=int, default=24, help="samples per run")
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--write", type=Path, help="replace this benchmark's section of a RESULTS.md")
    args = ap.parse_args()
    text = CAMPAIGN.format(
        samples=args.samples, max_tokens=args.max_tokens, concurrency=args.concurrency
    )
    plan = build_plan(parse_campaign(text, Path("bench-cluster.yaml")))
    assert len(plan.runs) == 8, len(plan.runs)
    load_before = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="specverdict-bench-cluster-"))
    try:
        local_wall, local_runs = local(plan, work)
        print(f"local: {local_wall:.1f} s", flush=True)
        one_wall, one_runs, one_start = on_ray(plan, work, 1)
        print(f"ray, 1 node: {one_wall:.1f} s (cluster up in {one_start:.1f} s)", flush=True)
        four_wall, four_runs, four_start = on_ray(plan, work, 4)
        print(f"ray, 4 nodes: {four_wall:.1f} s (cluster up in {four_start:.1f} s)", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()[0]
    ratio = one_wall / four_wall
    per_run = statistics.mean(one_runs) / statistics.mean(local_runs) - 1
    per_run_wall = (one_wall / 8) / (local_wall / 8) - 1
    command = "python benchmarks/cluster.py" + (
        f" --samples {args.samples} --max-tokens {args.max_tokens} --concurrency {args.concurrency}"
    )
    rows = [
        ("local runner", local_wall, local_runs, None),
        ("Ray, 1 node", one_wall, one_runs, one_start),
        ("Ray, 4 nodes", four_wall, four_runs, four_start),
    ]
    section = "\n".join(
        [
            HEADING,
            "",
            f"- date: {datetime.date.today().isoformat()}",
            f"- machine: {machine()}, Python {sys.version.split()[0]}; load average "
            f"{load_before:.2f} before the run, {load_after:.2f} after (another job shared "
            "the host)",
            f"- command: `{command} --write benchmarks/RESULTS.md`",
            f"- setup: 8 runs (baseline, mtp k=1,2,3, ngram k=2,4,8, draft_model k=4) of "
            f"{args.samples} synth-function samples, max_tokens {args.max_tokens}, concurrency "
            f"{args.concurrency}, 2 warm-up requests; reference engine paced to accel-8b; "
            "SQLite registry; Ray nodes of 1 CPU and `accel: 1` each (the head has none); "
            "scoring as Ray tasks on the run's node",
            "",
            "| executor | campaign wall (s) | run time mean (s) | run time min-max (s) | "
            "cluster start (s) |",
            "|---|---|---|---|---|",
            *(
                f"| {name} | {wall:.1f} | {statistics.mean(runs):.1f} | {min(runs):.1f}-"
                f"{max(runs):.1f} | {'-' if start is None else f'{start:.1f}'} |"
                for name, wall, runs, start in rows
            ),
            "",
            f"- 4 nodes against 1: **{ratio:.2f}x** less wall time (target: at least 3x)",
            f"- Ray path per run against the local runner: **{per_run:+.1%}** on each run's "
            f"own time in the registry, {per_run_wall:+.1%} on campaign wall time per run "
            "(target: under 5%)",
        ]
    )
    print(section)
    if args.write:
        write_section(args.write, HEADING, section)


if __name__ == "__main__":
    main()
