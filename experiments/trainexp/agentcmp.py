import json
import sys
from collections import Counter

from specverdict.store import SQLiteStore
from specverdict.suites.synth.data import load_eval

ev = {r["task_id"]: r for r in load_eval("agent")}
st = SQLiteStore(sys.argv[1])
verbose = len(sys.argv) > 2
c = Counter()
firstedit = Counter()
for run in st.list_runs():
    if run.spec.stage != "agent":
        continue
    for s in st.samples(run.run_id):
        r = ev[s.sample_id]
        gold = r["gold"]
        calls = list(s.extra.tool_calls)
        edits = [json.loads(x["arguments"]) for x in calls if x["name"] == "replace_in_file"]
        kinds = []
        for e in edits:
            try:
                o, n = e.get("old"), e.get("new")
            except AttributeError:
                kinds.append("bad")
                continue
            if o == n:
                kinds.append("noop")
            elif o == gold["old"] and n == gold["new"]:
                kinds.append("gold")
            elif o == gold["old"]:
                kinds.append("old_ok_new_wrong")
            elif o == gold["new"]:
                kinds.append("old=fixed")
            elif o and o in next(iter(r["files"].values())):
                kinds.append("old_in_file")
            else:
                kinds.append("old_nomatch")
        firstedit[kinds[0] if kinds else "none"] += 1
        c[s.score.outcome] += 1
        if verbose and not s.passed:
            seq = " > ".join(x["name"][:7] for x in calls)
            print(
                s.sample_id,
                s.score.outcome,
                "|",
                seq,
                "|",
                kinds,
                "| final:",
                repr(s.text.split("</call>")[-1].strip()[:120]),
            )
print(dict(c))
print("first edit:", dict(firstedit))
