import re
import sys
from collections import Counter

from specverdict.store import SQLiteStore
from specverdict.suites.synth.data import load_eval

ev = {r["task_id"]: r for r in load_eval("repository")}
st = SQLiteStore(sys.argv[1])
verbose = len(sys.argv) > 2
c = Counter()
for run in st.list_runs():
    if run.spec.stage != "repository":
        continue
    for s in st.samples(run.run_id):
        r = ev[s.sample_id]
        path, old, new = r["fix"][0]
        m = re.match(r"(.*?)\n<<<<<<< SEARCH\n(.*?)\n=======\n(.*?)\n>>>>>>> REPLACE", s.text, re.S)
        if not m:
            c["unparsed"] += 1
            continue
        p, so, sn = m.groups()
        k = []
        k.append(
            "path_ok" if p == path else ("path_exists" if p in r["files"] else "path_invented")
        )
        k.append(
            "search=buggy"
            if so == old.rstrip("\n")
            else (
                "search=fixed"
                if so == new.rstrip("\n")
                else ("search_in_file" if so in r["files"].get(p, "") else "search_nomatch")
            )
        )
        k.append(
            "noop" if so == sn else ("replace=fixed" if sn == new.rstrip("\n") else "replace_other")
        )
        c[" ".join(k)] += 1
        if verbose:
            print(
                s.sample_id,
                k,
                "| gold:",
                repr(old.strip()),
                "->",
                repr(new.strip()),
                "| issue:",
                r["issue"][:90],
            )
for k, v in c.most_common():
    print(v, k)
