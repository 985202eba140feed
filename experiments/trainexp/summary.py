"""Summarise subset evaluations: python experiments/trainexp/summary.py NAME... (from the repository root)."""

import json
import subprocess
import sys
from pathlib import Path

names = sys.argv[1:]
for n in names:
    r = json.loads(Path(f".exp/results/{n}.json").read_text())
    s = r["stages"]
    a, rp, f = s.get("agent", {}), s.get("repository", {}), s.get("function", {})
    print(
        f"{n}: function {f.get('passed')}/{f.get('n')}  agent {a.get('passed')}/{a.get('n')} parse {a.get('parse_success')} {a.get('outcomes')}  repo {rp.get('passed')}/{rp.get('n')} {rp.get('outcomes')}  eval {r['seconds']}s"
    )
    for tool in ("agentcmp.py", "repocmp.py"):
        out = subprocess.run(
            [sys.executable, str(Path(__file__).parent / tool), f".exp/results/{n}.db"],
            capture_output=True,
            check=False,
            text=True,
        )
        out = out.stdout or out.stderr[-300:]
        print("   ", tool, out.strip().replace("\n", " | "))
