"""Aggregate repocmp classes: path right/other/invented, SEARCH buggy/fixed/other/nothing, noop."""

import subprocess
import sys
from collections import Counter
from pathlib import Path

for n in sys.argv[1:]:
    out = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "repocmp.py"), f".exp/results/{n}.db"],
        capture_output=True,
        check=False,
        text=True,
    ).stdout
    c = Counter()
    for line in out.splitlines():
        k, *parts = line.split()
        k = int(k)
        if len(parts) != 3:
            c["unparsed"] += k
            continue
        p, srch, rep = parts
        c[p] += k
        c[srch] += k
        c["noop"] += k * (rep == "noop")
    print(
        n,
        f"{c['path_ok']} / {c['path_exists']} / {c['path_invented']}",
        "|",
        f"{c['search=buggy']} / {c['search=fixed']} / {c['search_in_file']} / {c['search_nomatch']}",
        "|",
        c["noop"],
        "| unparsed",
        c["unparsed"],
    )
