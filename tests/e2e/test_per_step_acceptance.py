"""Per-step acceptance on the real reference engine, through the CLI: the launched servers are
asked for ``--per-request-spec-decode-metrics detailed``, every candidate answer's per-step
arrays are stored, and the report draws acceptance against the output position for the whole
stage and for each slice, from exactly those arrays."""

from __future__ import annotations

import json
import re
from pathlib import Path

from specverdict.measure.steps import step_curve, step_positions
from specverdict.records import RequestAcceptance
from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli

PROMPTS = {
    "short": ["def add(a, b):\n", "def is_even(n):\n", "def square(x):\n"],
    "long": [
        'def count_words(text):\n    """Return a dict mapping each word of text to how many '
        'times it occurs."""\n',
        'def flatten(items):\n    """Return a flat list of the items of a list of lists, '
        'in order."""\n',
        'def clamp(value, low, high):\n    """Return value limited to the range low to high, '
        'both included."""\n',
    ],
}

CAMPAIGN = campaign_yaml(
    "per-step",
    candidates=[
        {"method": "mtp", "k": 2},
        {"method": "ngram", "k": 2, "params": {"prompt_lookup_min": 1, "prompt_lookup_max": 3}},
    ],
    stages={
        "function": {
            "dataset": {"path": "prompts.jsonl", "format": "completions"},
            "slices": ["category"],
        }
    },
    max_tokens=24,
)


def test_per_step_arrays_are_stored_and_drawn_per_slice(tmp_path: Path) -> None:
    rows = [
        {"id": f"{cat}-{i}", "prompt": p, "category": cat}
        for cat, prompts in PROMPTS.items()
        for i, p in enumerate(prompts)
    ]
    (tmp_path / "prompts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    campaign, db = tmp_path / "campaign.yaml", tmp_path / "runs.db"
    campaign.write_text(CAMPAIGN)
    ran = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]

    store = SQLiteStore(db)
    try:
        runs = {r.spec.speculation.method: r for r in store.list_runs()}
        assert set(runs) == {"none", "mtp", "ngram"}
        samples = {m: store.samples(r.run_id) for m, r in runs.items()}
        for method in ("mtp", "ngram"):
            launch = runs[method].manifest.launch_command or ()
            flag = list(launch).index("--per-request-spec-decode-metrics")
            assert launch[flag + 1] == "detailed"
            assert len(samples[method]) == len(rows)
            for s in samples[method]:
                acc = RequestAcceptance.parse(s)
                assert acc.per_step_accepted is not None and acc.per_step_drafted is not None
                # the arrays agree with the summary counts the engine sent beside them
                assert sum(acc.per_step_accepted) == acc.num_accepted_draft_tokens
                assert sum(acc.per_step_drafted) == acc.num_draft_tokens
                assert len(acc.per_step_accepted) == acc.num_spec_steps
                # stored once: not in raw as well
                assert isinstance(acc.raw, dict) and "per_step_accepted" not in acc.raw
        # MTP drafts at every step: its steps account for every output token, and the last
        # one begins before the output's end (the position model of measure.steps)
        for s in samples["mtp"]:
            accepted = RequestAcceptance.parse(s).per_step_accepted
            assert accepted and s.completion_tokens is not None
            assert 1 + sum(a + 1 for a in accepted) >= s.completion_tokens
            assert step_positions(accepted)[-1] < s.completion_tokens
    finally:
        store.close()

    out = tmp_path / "report"
    report = specverdict_cli("report", str(campaign), "--db", str(db), "--out", str(out))
    assert report.returncode == 0, report.stderr
    html = (out / "index.html").read_text()
    data = json.loads((out / "report.json").read_text())
    figures = re.findall(
        r'<figure class="plot[^"]*" id="([^"]+)" data-kind="acceptance-step">(.*?)</figure>',
        html,
        re.S,
    )
    # the whole stage, then each category
    assert [fid for fid, _ in figures] == [
        "function-acceptance-step",
        "function-acceptance-step-category-long",
        "function-acceptance-step-category-short",
    ]
    (stage,) = data["stages"]
    cands = [r for r in stage["rows"] if r["role"] == "candidate"]
    width = cands[0]["steps"]["bin_tokens"]
    assert width == 2  # 24 tokens in at most 12 bins
    for r in cands:
        mine = samples[r["method"]]
        assert r["steps"] == step_curve(mine, width).model_dump(mode="json")
        assert r["steps"]["requests"] == len(rows) and r["steps"]["without"] == 0
        by_label = {s["label"]: s["curve"] for s in r["slice_steps"]}
        assert list(by_label) == ["category=long", "category=short"]
        short = [s for s in mine if s.sample_id.startswith("short-")]
        assert by_label["category=short"] == step_curve(short, width).model_dump(mode="json")
    for fid, body in figures:
        assert "<svg" in body and body.count('class="mark"') > 0, fid
    whole = figures[0][1]
    for r in cands:
        assert f'data-series="{r["speculation"]}' in whole  # one line per candidate
    baseline = next(r for r in stage["rows"] if r["role"] == "baseline")
    assert baseline["steps"] is None
