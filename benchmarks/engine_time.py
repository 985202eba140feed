"""Engine time per decision with a slow server start: where a campaign's time goes when each
start takes as long as a large model's on a GPU (``--startup-delay``, default 60 s: the
reference server holds ``/health`` at 503 that long), before and after the launch plan.

Three parts, each a section of ``benchmarks/RESULTS.md``:

- ``demo``: the demo campaign (``examples/demo.yaml``: 5 configurations, 3 stages, the baseline
  executed twice) with a start per execution (before), in sessions with one server, and in
  sessions with a server for each session started ahead (``prestart``: the starts overlap);
- ``sequential``: the sequential benchmark campaign (``benchmarks/sequential-reference.yaml``,
  4 configurations, 9 executions) fixed and ``--until-decided`` (looks of 40): a start per
  execution and look (before), one server with the start-cost look schedule (design note 042,
  the registry seeded with one earlier execution on the same engine), a server per session,
  and a server per session started ahead;
- ``ray``: the demo campaign on the Ray executor, local clusters of 2 and 4 nodes (a server
  per node), against the local runner's one server. Each starts on an empty registry: the
  executor's estimate of a start and an execution (whether a second start of a session
  another node holds pays, design note 035) comes from the campaign's own executions as they
  land, before any node is left with only such sessions to take.

Every variant runs on the reference engine's modelled device clock, so its verdicts must not
change with the plan; its wall time is the host's. Per variant: server starts, executions, the
engine time by phase (summed over servers), the engine busy share (measured seconds of the
engine time), the wall time and the share of it in which an engine measured, the ratio of the
wall time to the part's baseline, and the verdicts. The bound column is the highest busy share
any plan that starts each configuration once per round can reach: measured / (measured + starts
x start).

    python benchmarks/engine_time.py --part demo [--startup-delay 60] [--write benchmarks/RESULTS.md]
"""

from __future__ import annotations

import os

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import section_head, write_section
from launch_plan import Result
from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Execution as PlannedExecution
from specverdict.campaign.plan import Plan, in_sessions, server_key
from specverdict.records import EngineTime
from specverdict.run.runner import Runner
from specverdict.run.sequential import run_until_decided
from specverdict.store import SQLiteStore, Store
from specverdict.verdict import campaign_verdicts

ROOT = Path(__file__).resolve().parents[1]
HEADINGS = {
    "demo": "## Engine time per decision: the demo campaign with a slow start",
    "sequential": "## Engine time per decision: until-decided against fixed with a slow start",
    "ray": "## Engine time per decision: the demo campaign on Ray nodes with a slow start",
}
#: looks of the sequential part (as in "Sequential campaign on the reference engine")
BATCH = 40


def quiet(_: str) -> None:
    return None


@dataclass
class Trim:
    """Every stage's first samples only (``--first``, a quick check of the script), or None."""

    first: int | None = None


TRIM = Trim()


def campaign_text(path: str, delay: float, **launch: object) -> str:
    """The campaign at ``path`` with a ``delay`` s start and the launch settings ``launch``."""
    data: dict[str, Any] = yaml.safe_load((ROOT / path).read_text())
    if TRIM.first is not None:
        for stage in data["stages"].values():
            stage["samples"] = {"first": TRIM.first}
    settings = data["engine"]["launch"]
    settings["args"] = [*settings["args"], "--startup-delay", f"{delay:g}"]
    settings.update(launch)
    return yaml.safe_dump(data, sort_keys=False)


def plan_of(path: str, delay: float, **launch: object) -> Plan:
    return build_plan(parse_campaign(campaign_text(path, delay, **launch), ROOT / path))


def sessions_of(plan: Plan) -> int:
    """The sessions (configuration, load level, round) of a plan: the fewest starts."""
    return len(
        {
            (server_key(e.spec), e.spec.load.label, e.repeat)
            for e in in_sessions(plan.runs, plan.repeats_of)
        }
    )


#: what a variant runs: given its registry and that registry's file, the starts it made and
#: the wall seconds of work that is not the campaign's (an earlier campaign seeding it)
Go = Callable[[Store, Path], tuple[int, float]]


def measure(name: str, plan: Plan, go: Go, db: Path) -> Result:
    store = SQLiteStore(db)
    began = time.perf_counter()
    starts, aside = go(store, db)
    wall = time.perf_counter() - began - aside
    runs = [r for r in store.list_runs() if r.fingerprint in {s.fingerprint for s in plan.runs}]
    spent = EngineTime.total(r.manifest.engine_time for r in runs)
    verdicts = tuple(v.verdict for v in campaign_verdicts(store, plan) if v.slice is None)
    store.close()
    print(f"{name}: {starts} starts, wall {wall:.1f} s, {spent.busy_line()}", flush=True)
    return Result(name, starts, len(runs), spent, wall, verdicts)


def local(plan: Plan, sequential: bool = False) -> Go:
    def go(store: Store, _: Path) -> tuple[int, float]:
        runner = Runner(store, log=quiet, runs_dir=None)
        if sequential:
            run_until_decided(runner, store, plan, batch=BATCH, log=quiet)
        else:
            runner.run_plan(plan)
        return runner.starts, 0.0

    return go


def seeded(plan: Plan, seed: Plan) -> Go:
    """until-decided into a registry that already holds ``seed``'s executions on the same
    engine (an earlier campaign): the start-cost schedule reads its start and speed there.
    The seed's time is not the variant's."""

    def go(store: Store, _: Path) -> tuple[int, float]:
        began = time.perf_counter()
        Runner(store, log=quiet, runs_dir=None).run_plan(seed)
        aside = time.perf_counter() - began
        runner = Runner(store, log=print, runs_dir=None)
        run_until_decided(runner, store, plan, batch=BATCH, log=print)
        return runner.starts, aside

    return go


def on_ray(plan: Plan, nodes: int, work: Path) -> Go:
    def go(store: Store, db: Path) -> tuple[int, float]:
        import ray
        from ray.cluster_utils import Cluster
        from rich.console import Console

        from specverdict.run.executors.cluster import Execution, RayExecutor

        cluster = Cluster(
            initialize_head=True,
            head_node_args={"num_cpus": 1, "object_store_memory": 80 << 20,
                            "include_dashboard": False, "node_ip_address": "127.0.0.1"},
        )  # fmt: skip
        for _ in range(nodes):
            cluster.add_node(
                num_cpus=1, resources={"accel": 1}, object_store_memory=80 << 20,
                node_ip_address="127.0.0.1",
            )  # fmt: skip
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
        executions = [
            Execution(spec=e.spec, repeat=e.repeat, order=(e.repeat, e.position))
            for e in Runner.schedule(plan, list(plan.runs))
            if isinstance(e, PlannedExecution)
        ]
        try:
            executor = RayExecutor(
                store=store, location=str(db), console=Console(quiet=True),
                runs_dir=work / f"ray{nodes}-runs", log=print,
            )  # fmt: skip
            executor.run(plan, executions)
        finally:
            ray.shutdown()
            cluster.shutdown()
        return executor.starts or 0, 0.0

    return go


def verdict_summary(verdicts: tuple[str, ...]) -> str:
    counts = Counter(verdicts)
    return ", ".join(f"{k} {counts[k]}" for k in ("ADOPT", "REJECT", "INCONCLUSIVE") if counts[k])


def table(found: list[Result], delay: float, configurations: int) -> list[str]:
    base = found[0]
    lines = [
        "| variant | starts | start-up s | warm-up s | measured s | idle s | engine s | busy "
        "| bound | wall s | measuring of wall | wall vs first | verdicts |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in found:
        t = r.time
        bound = t.measured_s / (t.measured_s + configurations * delay) if t.measured_s else 0.0
        same = "" if r.verdicts == base.verdicts else " (CHANGED)"
        lines.append(
            f"| {r.name} | {r.starts} | {t.startup_s or 0.0:.0f} | {t.warmup_s:.0f} | "
            f"{t.measured_s:.0f} | {t.idle_s:.0f} | {t.engine_s:.0f} | "
            f"{t.share(t.measured_s):.0%} | {bound:.0%} | {r.wall_s:.0f} | "
            f"{t.measured_s / r.wall_s:.0%} | {r.wall_s / base.wall_s:.2f}x | "
            f"{verdict_summary(r.verdicts)}{same} |"
        )
    return lines


Variant = tuple[str, Plan, Go, str]


def variants_of(part: str, delay: float, work: Path) -> list[Variant]:
    """The part's variants, its baseline first: name, plan, what runs it, registry file."""
    demo, seq = "examples/demo.yaml", "benchmarks/sequential-reference.yaml"
    if part == "demo":
        n = sessions_of(plan_of(demo, delay))
        ahead = plan_of(demo, delay, servers=n, prestart=True)
        each, one = plan_of(demo, delay, sessions="execution"), plan_of(demo, delay)
        return [
            ("a start per execution (before)", each, local(each), "d0.db"),
            ("sessions, 1 server", one, local(one), "d1.db"),
            (f"sessions, {n} servers started ahead", ahead, local(ahead), "d2.db"),
        ]
    if part == "sequential":
        n = sessions_of(plan_of(seq, delay))
        one, each = plan_of(seq, delay), plan_of(seq, delay, sessions="execution")
        kept, ahead = plan_of(seq, delay, servers=n), plan_of(seq, delay, servers=n, prestart=True)
        return [
            ("fixed, 1 server", one, local(one), "f1.db"),
            ("until-decided, a start per execution and look (before)", each, local(each, True),
             "u0.db"),
            ("until-decided, 1 server, start-cost looks", one, seeded(one, seed_plan(seq, delay)),
             "u1.db"),
            (f"until-decided, {n} servers kept", kept, local(kept, True), "u2.db"),
            (f"fixed, {n} servers started ahead", ahead, local(ahead), "f2.db"),
            (f"until-decided, {n} servers started ahead", ahead, local(ahead, True), "u3.db"),
        ]  # fmt: skip
    one, ray = plan_of(demo, delay), plan_of(demo, delay, resources={"accel": 1})
    return [
        ("local runner, 1 server", one, local(one), "l.db"),
        *((f"Ray, {k} nodes", ray, on_ray(ray, k, work), f"ray{k}.db") for k in (2, 4)),
    ]


def _dump(r: Result) -> str:
    return json.dumps({**asdict(r), "time": r.time.model_dump()})


def _load(line: str) -> Result:
    d = json.loads(line)
    return Result(
        d["name"], d["starts"], d["executions"], EngineTime.model_validate(d["time"]),
        d["wall_s"], tuple(d["verdicts"]),
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--part", choices=tuple(HEADINGS), required=True)
    parser.add_argument("--startup-delay", type=float, default=60.0, help="seconds per start")
    parser.add_argument("--write", type=Path, help="rewrite this part's section in this file")
    parser.add_argument("--first", type=int, help="every stage's first N samples (a quick check)")
    parser.add_argument(
        "--variants",
        help="run only these variants (indices, e.g. 3,4,5; the first is the baseline)",
    )
    parser.add_argument(
        "--results", type=Path, help="append each variant's figures to this JSON-lines file"
    )
    parser.add_argument(
        "--render", type=Path, help="run nothing: the table of the figures in this JSON-lines file"
    )
    args = parser.parse_args()
    delay: float = args.startup_delay
    TRIM.first = args.first
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        variants = variants_of(args.part, delay, work)
        if args.render is not None:
            found = [_load(line) for line in args.render.read_text().splitlines() if line]
            order = [v[0] for v in variants]
            found.sort(key=lambda r: order.index(r.name))
        else:
            chosen = (
                range(len(variants))
                if args.variants is None
                else [int(i) for i in args.variants.split(",")]
            )
            found = []
            for i in chosen:
                name, plan, go, db = variants[i]
                found.append(measure(name, plan, go, work / db))
                if args.results is not None:
                    with args.results.open("a") as out:
                        out.write(_dump(found[-1]) + "\n")
        configurations = sessions_of(variants[0][1])
    lines = table(found, delay, configurations)
    print("\n".join(lines))
    if args.write:
        head = section_head(
            HEADINGS[args.part],
            f"python benchmarks/engine_time.py --part {args.part} --startup-delay {delay:g} "
            "--write benchmarks/RESULTS.md",
        )
        write_section(args.write, HEADINGS[args.part], "\n".join([*head, "", *lines, ""]))


def seed_plan(path: str, delay: float) -> Plan:
    """One baseline and one candidate execution of 8 samples on the same engine command: the
    registry's record of what a start and a sample cost, as an earlier campaign leaves it."""
    data: dict[str, Any] = yaml.safe_load(campaign_text(path, delay))
    data["name"] = "seed"
    data["candidates"] = data["candidates"][:1]
    for stage in data["stages"].values():
        stage["samples"] = {"first": 8}
    data["load"] = {**data["load"], "repeats": 1, "baseline_repeats": 1}
    return build_plan(parse_campaign(yaml.safe_dump(data, sort_keys=False), ROOT / path))


if __name__ == "__main__":
    main()
