"""``specverdict compare-live`` on two real reference servers (one plain, one with MTP), then
its runs exported from the registry it wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from specverdict.measure.results import run_results
from specverdict.measure.summary import tpot
from specverdict.report.export import RequestRow, RunResult
from specverdict.store import SQLiteStore
from tests.conftest import Servers, specverdict_cli

MTP = {"method": "mtp", "num_speculative_tokens": 2}


@pytest.fixture(scope="module")
def measured(
    servers: Servers, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    db = tmp_path_factory.mktemp("live") / "runs.db"
    base = servers.get("--per-request-spec-decode-metrics", "summary")
    cand = servers.spec(MTP)
    proc = specverdict_cli(
        "compare-live",
        "--baseline",
        base,
        "--candidate",
        cand,
        "--suite",
        "builtin-code@1",
        "--method",
        "mtp",
        "--k",
        "2",
        "--samples",
        "4",
        "--max-tokens",
        "16",
        "--engine",
        "reference",
        "--db",
        str(db),
        "--json",
    )
    # builtin-code@1 has no scorer: quality is undecided, so never ADOPT
    assert proc.returncode in (1, 3), proc.stderr
    return db, json.loads(proc.stdout)


def test_two_live_servers_are_measured_and_judged(measured: tuple[Path, dict[str, Any]]) -> None:
    db, out = measured
    (v,) = out["verdicts"]
    assert v["verdict"] in ("INCONCLUSIVE", "REJECT")
    assert v["candidate"] == "mtp k=2" and v["stage"] == "function"
    # the two servers took turns in blocks: one execution each, the blocks the speed units
    assert len(v["baseline_run_ids"]) == 1 and len(v["candidate_run_ids"]) == 1
    gates = {r["gate"]: r for r in v["reasons"]}
    assert gates["speed.tpot"]["data"]["design"] == "blocks"
    assert gates["speed.tpot"]["data"]["block_size"] == 8
    assert gates["pairing"]["status"] == "pass"
    assert gates["speculation"]["status"] == "pass"  # the candidate server did draft
    assert gates["acceptance"]["data"]["source"] == "per-request"
    assert gates["identity"]["data"]["share"] == 1.0  # greedy MTP is lossless
    store = SQLiteStore(db)
    urls = {r.spec.speculation.method: r.spec.engine.base_url for r in store.list_runs()}
    assert urls["none"] != urls["mtp"]


def test_its_runs_export_as_the_registry_holds_them(measured: tuple[Path, dict[str, Any]]) -> None:
    db, out = measured
    (v,) = out["verdicts"]
    cand = v["candidate_run_ids"][0]
    proc = specverdict_cli("runs", "export", cand[:8], "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    rows = [RequestRow.model_validate_json(line) for line in proc.stdout.splitlines()]
    samples = SQLiteStore(db).samples(cand)
    assert [r.sample_id for r in rows] == [s.sample_id for s in samples] and len(rows) == 4
    for row, s in zip(rows, samples, strict=True):
        assert row.status == "ok" and row.ttft_s == s.ttft_s and row.tpot_s == tpot(s)
        assert s.acceptance is not None
        assert row.num_draft_tokens == s.acceptance["num_draft_tokens"]
        assert row.num_accepted_draft_tokens == s.acceptance["num_accepted_draft_tokens"]
        assert row.chunks == len(s.chunk_arrivals_s) >= 1
    proc = specverdict_cli("runs", "export", cand, "--db", str(db), "--format", "result")
    doc = RunResult.model_validate_json(proc.stdout)
    stored = run_results(SQLiteStore(db), cand)
    assert doc.summary == stored.summary and doc.acceptance == stored.acceptance
    assert doc.acceptance.source == "per-request" and doc.acceptance_rate is not None


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--baseline", "localhost:8000"], "--baseline: "),
        (["--suite", "nosuch"], "--suite: "),
        (["--k", "0"], "--k: "),
        (["--baseline", "http://127.0.0.1:1"], "pass --model"),
        (["--engine", "vlm"], "did you mean vllm?"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], expected: str) -> None:
    given = dict(zip(args[::2], args[1::2], strict=True))
    base = {
        "--baseline": "http://127.0.0.1:2",
        "--candidate": "http://127.0.0.1:3",
        "--suite": "builtin-code@1",
        "--method": "mtp",
        "--k": "2",
        "--db": str(tmp_path / "r.db"),
        "--model": "m",
    }
    if "--baseline" in given and given["--baseline"].startswith("http"):
        del base["--model"]  # the model is asked of a server that does not answer
    flat = [x for kv in {**base, **given}.items() for x in kv]
    proc = specverdict_cli("compare-live", *flat)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert expected in line, line
