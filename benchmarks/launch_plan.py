"""Server starts and engine time of a launched campaign: a start per execution (the baseline,
``engine.launch.sessions: execution``) against one per configuration and round (``round``),
fixed and ``--until-decided``, with one or several servers kept.

The campaign: the reference engine on its modelled device clock with a slow start
(``--startup-delay``, a GPU loading weights), two stages at two load levels, the baseline
executed twice and two candidates once. Each variant runs into its own registry in this
process, one after another; the script prints, per variant, the server starts, the start-up
seconds, the whole engine time and the command's wall time, and the ratio of each against the
baseline, with the verdicts (which must not change with the plan: the clock is the device's).

    python benchmarks/launch_plan.py [--startup-delay 2] [--write benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _results import section_head, write_section
from specverdict.campaign import build_plan, load_campaign, parse_campaign
from specverdict.campaign.plan import Plan, in_sessions, interleaved, server_key
from specverdict.records import EngineTime
from specverdict.run.runner import Runner
from specverdict.run.sequential import run_until_decided
from specverdict.store import SQLiteStore
from specverdict.verdict import campaign_verdicts

SECTION = "## Launch plan: server starts per campaign"
CAMPAIGN = """\
name: launch-plan
engine:
  kind: reference
  launch:
    args: [--device-model, accel-2b, --device-clock, virtual, --startup-delay, '{delay}']
    sessions: {sessions}
    servers: {servers}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates:
  - {{method: mtp, k: 2}}
  - {{method: draft_model, k: 4}}
stages:
  function: {{suite: synth-function@1, samples: {{first: 48}}}}
  prose: {{suite: prose@1, samples: {{first: 48}}}}
sampling: {{temperature: 0.0, max_tokens: 48, seed: 0}}
load: {{concurrency: [2, 8], warmup: 1}}
"""


@dataclass(frozen=True)
class Result:
    name: str
    starts: int
    executions: int
    time: EngineTime
    wall_s: float
    verdicts: tuple[str, ...]


def plan_of(delay: float, sessions: str, servers: int) -> Plan:
    text = CAMPAIGN.format(delay=delay, sessions=sessions, servers=servers)
    return build_plan(parse_campaign(text, Path("launch-plan.yaml")))


def variant(name: str, plan: Plan, sequential: bool, root: Path) -> Result:
    store = SQLiteStore(root / f"{name.replace(' ', '-')}.db")
    runner = Runner(store, log=lambda _: None, runs_dir=None)
    began = time.perf_counter()
    if sequential:
        run_until_decided(runner, store, plan, batch=16, log=lambda _: None)
    else:
        runner.run_plan(plan)
    wall = time.perf_counter() - began
    runs = store.list_runs()
    spent = EngineTime.total(r.manifest.engine_time for r in runs)
    verdicts = tuple(v.verdict for v in campaign_verdicts(store, plan) if v.slice is None)
    return Result(name, runner.starts, len(runs), spent, wall, verdicts)


#: campaigns whose planned starts the table counts (the demo's three and the sequential one)
PLANNED = (
    "examples/demo.yaml",
    "examples/demo-fp8.yaml",
    "examples/demo-nvfp4.yaml",
    "benchmarks/sequential-reference.yaml",
)


def planned(root: Path) -> list[str]:
    """Per campaign: executions (a start each, before) and sessions (a start each, now)."""
    rows = []
    for name in PLANNED:
        plan = build_plan(load_campaign(root / name))
        executions = interleaved(plan.runs, plan.repeats_of)
        keys: list[tuple[str, str, int]] = []
        for e in in_sessions(plan.runs, plan.repeats_of):
            key = (server_key(e.spec), e.spec.load.label, e.repeat)
            if not keys or keys[-1] != key:
                keys.append(key)
        configs = len({server_key(r) for r in plan.runs})
        rows.append(
            f"| `{name}` | {configs} | {len(executions)} | {len(keys)} | "
            f"{len(keys) / len(executions):.2f}x |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--startup-delay", type=float, default=2.0, help="seconds per start")
    parser.add_argument("--write", type=Path, help="rewrite this file's section")
    args = parser.parse_args()
    delay = args.startup_delay
    variants = [
        ("per execution (baseline)", plan_of(delay, "execution", 1), False),
        ("sessions", plan_of(delay, "round", 1), False),
        ("per execution, until-decided", plan_of(delay, "execution", 1), True),
        ("sessions, until-decided, 1 server", plan_of(delay, "round", 1), True),
        # a server for each of the 8 sessions (4 configurations x 2 load levels): fewer, and
        # the looks' cyclic order evicts each server just before its next use
        ("sessions, until-decided, 8 servers", plan_of(delay, "round", 8), True),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        found = [variant(n, p, s, Path(tmp)) for n, p, s in variants]
    base = found[0]
    lines = [
        "| variant | starts | executions | start-up s | engine s | wall s | wall vs baseline |"
        " verdicts |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in found:
        lines.append(
            f"| {r.name} | {r.starts} | {r.executions} | {r.time.startup_s or 0.0:.1f} | "
            f"{r.time.engine_s:.1f} | {r.wall_s:.1f} | {r.wall_s / base.wall_s:.2f}x | "
            f"{' '.join(r.verdicts)} |"
        )
    table = "\n".join(lines)
    counts = "\n".join(
        [
            "| campaign | configurations | starts per execution | starts in sessions | ratio |",
            "|---|---|---|---|---|",
            *planned(Path(__file__).resolve().parents[1]),
        ]
    )
    print(counts)
    print(table)
    if args.write:
        head = section_head(
            SECTION,
            f"python benchmarks/launch_plan.py --startup-delay {delay:g} --write "
            "benchmarks/RESULTS.md",
        )
        body = (
            "\nTwo stages (`synth-function@1` and `prose@1`, first 48 each) at concurrency 2 and "
            "8, the baseline executed twice and `mtp` k=2 and `draft_model` k=4 once, on the "
            f"reference engine's device clock with a {delay:g} s start; until-decided in looks "
            "of 16 up to 48. Baseline: a server start per execution.\n"
        )
        write_section(
            args.write,
            SECTION,
            "\n".join(head) + "\n\nStarts each campaign's plan makes (fixed design, one server "
            "at a time):\n\n" + counts + "\n" + body + "\n" + table + "\n",
        )


if __name__ == "__main__":
    main()
