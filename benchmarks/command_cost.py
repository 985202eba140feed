"""What a command costs before it does its work: start-up imports and reading the registry.

Two measurements, each against a named baseline that reproduces the earlier behaviour in the
same process tree:

- **start-up**: CPU seconds (user + system, of the child process) of ``specverdict COMMAND``
  for a command's help, ``runs list`` on an empty registry and ``validate`` of the demo
  campaign, as shipped (commands imported when called, scipy.stats imported where a statistic
  is computed) against the baseline *eager*: the same command after importing every command
  module and scipy.stats first, as the program did when every command was imported at start;
- **registry reads**: wall seconds to read every run of a registry (``list_runs``, each
  record validated, its engine kind checked against the engine registry), as shipped (entry
  points read once per import path) against the baseline *entry points per lookup* (the
  cache emptied before each lookup, as before).

    python benchmarks/command_cost.py [--repeats 5] [--runs 400] [--write benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    from benchmarks._results import section_head, write_section
except ImportError:  # run as a script from the repository root
    from _results import section_head, write_section  # type: ignore[no-redef, import-not-found]

HEADING = "## Command start-up and registry reads"
ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo.yaml"
EAGER = (
    "import scipy.stats\n"
    "import specverdict.cli.main as m\n"
    "from click import Context\n"
    "ctx = Context(m.cli)\n"
    "[m.cli.get_command(ctx, name) for name in m.cli.list_commands(ctx)]\n"
)


def child_cpu(code: str) -> float:
    """CPU seconds of one child interpreter running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def command_code(args: list[str], eager: bool) -> str:
    run = (
        "import sys\n"
        f"sys.argv = ['specverdict', *{args!r}]\n"
        "from specverdict.cli.main import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
    )
    return (EAGER if eager else "") + run


def startup_rows(repeats: int, db: Path) -> list[str]:
    rows = []
    for label, args in (
        ("verdict --help", ["verdict", "--help"]),
        ("runs list (empty registry)", ["runs", "list", "--db", str(db)]),
        ("validate examples/demo.yaml", ["validate", str(DEMO)]),
    ):
        lazy = statistics.median(child_cpu(command_code(args, False)) for _ in range(repeats))
        eager = statistics.median(child_cpu(command_code(args, True)) for _ in range(repeats))
        rows.append(f"| `{label}` | {eager:.2f} | {lazy:.2f} | {lazy / eager:.2f}x |")
        print(rows[-1], flush=True)
    return rows


def registry_row(runs: int, repeats: int, root: Path) -> str:
    from specverdict import plugins
    from specverdict.campaign import build_plan, load_campaign
    from specverdict.store import SQLiteStore

    plan = build_plan(load_campaign(DEMO))
    store = SQLiteStore(root / "runs.db")
    specs = [r for r in plan.runs]
    for i in range(runs):
        store.create_run(specs[i % len(specs)], i // len(specs))

    def read(cached: bool) -> float:
        t0 = time.perf_counter()
        if cached:
            store.list_runs()
        else:
            original = plugins._group_entry_points

            def uncached(group: str) -> tuple[plugins.EntryPoint, ...]:
                plugins._ENTRY_POINTS.clear()
                return original(group)

            plugins._group_entry_points = uncached  # type: ignore[assignment]
            try:
                store.list_runs()
            finally:
                plugins._group_entry_points = original  # type: ignore[assignment]
        return time.perf_counter() - t0

    per_lookup = statistics.median(read(False) for _ in range(repeats))
    cached = statistics.median(read(True) for _ in range(repeats))
    store.close()
    row = f"| `list_runs`, {runs} runs | {per_lookup:.3f} | {cached:.3f} | {cached / per_lookup:.3f}x |"
    print(row, flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        start = startup_rows(args.repeats, Path(tmp) / "empty.db")
        reads = registry_row(args.runs, args.repeats, Path(tmp))
    command = "python benchmarks/command_cost.py"
    if args.repeats != 5 or args.runs != 400:
        command += f" --repeats {args.repeats} --runs {args.runs}"
    lines = [
        *section_head(HEADING, command + " --write benchmarks/RESULTS.md"),
        "",
        "Start-up: median CPU seconds of the command's process over "
        f"{args.repeats} runs. Baseline: *eager*, every command and scipy.stats imported first.",
        "",
        "| command | eager s | as shipped s | ratio |",
        "|---|---|---|---|",
        *start,
        "",
        f"Registry reads: median wall seconds over {args.repeats} reads. Baseline: *entry points "
        "per lookup*, the installed distributions' entry points read again for every record.",
        "",
        "| read | per lookup s | as shipped s | ratio |",
        "|---|---|---|---|",
        reads,
    ]
    if args.write:
        write_section(args.write, HEADING, "\n".join(lines))


if __name__ == "__main__":
    main()
