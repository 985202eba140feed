"""``specverdict runs export``: request rows and run results, written and read back, against a
real SQLite registry."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.cli.main import cli
from specverdict.measure.results import run_results
from specverdict.records import OUTPUT_SCHEMA_VERSION, RunRecord, SampleRecord, Score, Segment
from specverdict.report.export import COLUMNS, RequestRow, RunResult, read_csv_rows
from specverdict.store import SQLiteStore
from specverdict.suites import suite_for
from tests.conftest import specverdict_cli

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"


def _samples(run_id: str) -> list[SampleRecord]:
    acc = {
        "num_draft_tokens": 8,
        "num_accepted_draft_tokens": 5,
        "num_spec_steps": 4,
        "acceptance_histogram": [1, 1, 2],
        "raw": {"engine": "field"},
    }
    return [
        SampleRecord(
            run_id=run_id,
            sample_id="a",
            status="ok",
            text="def f(): pass",
            finish_reason="stop",
            prompt_tokens=12,
            completion_tokens=9,
            ttft_s=0.125,
            e2e_s=0.5,
            chunk_arrivals_s=(0.125, 0.25, 0.3, 0.5),
            acceptance=acc,
            score=Score(passed=True, outcome="passed"),
        ),
        # all its tokens in one chunk: TPOT and ITL are not measured
        SampleRecord(
            run_id=run_id,
            sample_id="b",
            status="ok",
            finish_reason="length",
            prompt_tokens=7,
            completion_tokens=3,
            ttft_s=0.2,
            e2e_s=0.2,
            chunk_arrivals_s=(0.2,),
            score=Score(passed=False, outcome="syntax_error", detail="line 1"),
        ),
        # an engine's malformed acceptance is kept, and said
        SampleRecord(
            run_id=run_id,
            sample_id="c",
            status="ok",
            completion_tokens=2,
            ttft_s=0.1,
            e2e_s=0.3,
            chunk_arrivals_s=(0.1, 0.3),
            acceptance={"num_draft_tokens": 2, "num_accepted_draft_tokens": 5},
        ),
        SampleRecord(run_id=run_id, sample_id="d", status="error", error="HTTP 500: boom"),
        SampleRecord(
            run_id=run_id,
            sample_id="d",
            attempt=1,
            status="timeout",
            error="deadline, with a comma, and a\nnewline",
            ttft_s=0.4,
            chunk_arrivals_s=(0.4,),
        ),
    ]


@pytest.fixture
def registry(tmp_path: Path) -> tuple[Path, list[RunRecord]]:
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    specs: list[RunSpec] = build_plan(load_campaign(DEMO)).runs[:2]
    runs = []
    for spec in specs:
        run = store.create_run(spec, repeat=0)
        for s in _samples(run.run_id):
            store.add_sample(s)
        seg = Segment(requests=5, answered=4, samples=4, failed=1, wall_s=2.0, concurrency=8)
        runs.append(store.update_run(run.run_id, status="completed", manifest={"segments": [seg]}))
    store.close()
    return db, runs


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def check_rows(rows: list[RequestRow], db: Path, runs: list[RunRecord], attempts: bool) -> None:
    """Each row against the registry's sample, figure by figure (computed here, apart)."""
    store = SQLiteStore(db)
    expected = [
        s for r in runs for s in (store.attempts(r.run_id) if attempts else store.samples(r.run_id))
    ]
    assert len(rows) == len(expected) == (10 if attempts else 8)
    for row, s in zip(rows, expected, strict=True):
        assert (row.run_id, row.sample_id, row.attempt, row.status) == (
            s.run_id,
            s.sample_id,
            s.attempt,
            s.status,
        )
        assert (row.ttft_s, row.e2e_s, row.error) == (s.ttft_s, s.e2e_s, s.error)
        assert (row.prompt_tokens, row.completion_tokens) == (s.prompt_tokens, s.completion_tokens)
        assert row.finish_reason == s.finish_reason
        assert row.chunks == len(s.chunk_arrivals_s)
        assert row.score_passed == (s.score.passed if s.score else None)
        assert row.score_outcome == (s.score.outcome if s.score else None)
    by_id = {(r.run_id, r.sample_id, r.attempt): r for r in rows}
    run = runs[0].run_id
    a = by_id[(run, "a", 0)]
    assert a.tpot_s == pytest.approx((0.5 - 0.125) / 8)
    assert a.itl_mean_s == pytest.approx(0.375 / 3)
    assert a.itl_p50_s == pytest.approx(0.125)
    assert a.itl_max_s == pytest.approx(0.2)
    assert (a.num_draft_tokens, a.num_accepted_draft_tokens, a.num_spec_steps) == (8, 5, 4)
    assert a.acceptance_histogram == (1, 1, 2) and a.acceptance_error is None
    b = by_id[(run, "b", 0)]
    assert b.tpot_s is None and b.itl_mean_s is None and b.itl_max_s is None
    assert b.num_draft_tokens is None and b.acceptance_error is None
    c = by_id[(run, "c", 0)]
    assert c.num_draft_tokens is None
    assert c.acceptance_error is not None and "sample c: acceptance" in c.acceptance_error
    d = by_id[(run, "d", 1)]
    assert d.status == "timeout" and d.e2e_s is None and d.tpot_s is None


@pytest.mark.parametrize("attempts", [False, True])
def test_jsonl_and_csv_read_back_as_the_registry_holds_it(
    registry: tuple[Path, list[RunRecord]], tmp_path: Path, attempts: bool
) -> None:
    db, runs = registry
    ids = [r.run_id[:8] for r in runs]  # unique prefixes, as other runs commands take
    flag = ["--all-attempts"] if attempts else []
    jsonl = invoke("runs", "export", *ids, "--db", str(db), *flag)
    rows = [RequestRow.model_validate_json(line) for line in jsonl.splitlines()]
    check_rows(rows, db, runs, attempts)
    out = tmp_path / "rows.csv"
    invoke("runs", "export", *ids, "--db", str(db), "--format", "csv", "--out", str(out), *flag)
    text = out.read_text()
    assert text.splitlines()[0] == ",".join(COLUMNS)
    from_csv = read_csv_rows(text)
    check_rows(from_csv, db, runs, attempts)
    assert from_csv == rows  # the two formats carry the same figures, floats exactly


def test_a_campaigns_rows_carry_their_configuration_and_with_text_the_prompt_and_answer(
    registry: tuple[Path, list[RunRecord]],
) -> None:
    """`--campaign FILE` (or `--all`) exports every stored run of it, each row with the
    columns that say what ran (stage, method, k, configuration, load, repeat, clock): rows of
    many runs analysed without a join. `--text` adds the answer and the prompt."""
    db, runs = registry
    rows = [
        RequestRow.model_validate_json(line)
        for line in invoke("runs", "export", "--campaign", str(DEMO), "--db", str(db)).splitlines()
    ]
    assert {r.run_id for r in rows} == {r.run_id for r in runs}
    for run in runs:
        mine = [r for r in rows if r.run_id == run.run_id]
        assert {
            (r.campaign, r.stage, r.method, r.k, r.configuration, r.load, r.repeat) for r in mine
        } == {
            (
                run.spec.campaign,
                run.spec.stage,
                run.spec.speculation.method,
                run.spec.speculation.k,
                run.spec.speculation.label,
                run.spec.load.label,
                0,
            )
        }
        assert {r.clock for r in mine} == {"host"} and all(r.output_text is None for r in mine)
    assert invoke("runs", "export", "--all", "--db", str(db)) == invoke(
        "runs", "export", "--campaign", str(DEMO), "--db", str(db)
    )
    texts = [
        RequestRow.model_validate_json(line)
        for line in invoke(
            "runs", "export", "--campaign", str(DEMO), "--db", str(db), "--text"
        ).splitlines()
    ]
    a = next(r for r in texts if r.sample_id == "a")
    assert a.output_text == "def f(): pass"
    assert a.prompt is None  # "a" is no sample of the run's suite: no prompt to give
    real = suite_for(runs[0].spec).select(runs[0].spec.samples)[0]
    store = SQLiteStore(db)
    store.add_sample(SampleRecord(run_id=runs[0].run_id, sample_id=real.id, status="ok", text="x"))
    store.close()
    texts = [
        RequestRow.model_validate_json(line)
        for line in invoke("runs", "export", runs[0].run_id, "--db", str(db), "--text").splitlines()
    ]
    (row,) = [r for r in texts if r.sample_id == real.id]
    assert row.prompt == real.prompt and real.prompt


def test_a_run_result_is_its_spec_manifest_summary_and_acceptance(
    registry: tuple[Path, list[RunRecord]], tmp_path: Path
) -> None:
    db, runs = registry
    text = invoke("runs", "export", runs[1].run_id[:10], "--db", str(db), "--format", "result")
    raw = json.loads(text)
    assert raw["schema_version"] == OUTPUT_SCHEMA_VERSION and raw["kind"] == "run-result"
    doc = RunResult.model_validate(raw)
    stored = run_results(SQLiteStore(db), runs[1].run_id)
    assert doc.spec == stored.run.spec and doc.manifest == stored.run.manifest
    assert doc.summary == stored.summary and doc.acceptance == stored.acceptance
    assert (doc.run_id, doc.fingerprint, doc.status) == (
        runs[1].run_id,
        runs[1].fingerprint,
        "completed",
    )
    assert doc.summary.samples == 4 and doc.summary.ok == 3
    assert doc.summary.tokens_per_s == pytest.approx((9 + 3 + 2) / 2.0)
    assert doc.acceptance_rate == stored.acceptance.acceptance_rate
    # several runs: one document per run in a directory
    out = tmp_path / "results"
    ids = [r.run_id for r in runs]
    invoke("runs", "export", *ids, "--db", str(db), "--format", "result", "--out", str(out))
    for r in runs:
        again = RunResult.model_validate_json((out / f"{r.run_id}.json").read_text())
        assert again.run_id == r.run_id and again.spec == r.spec


@pytest.mark.parametrize(
    ("slo", "good"),
    [
        # a: TTFT 125 ms, TPOT 46.9 ms, e2e 500 ms; b: TTFT 200 ms, one event (TPOT not
        # measured), e2e 200 ms; c: TTFT 100 ms, TPOT 200 ms, e2e 300 ms; d failed
        ("ttft:150,tpot:50", {"a"}),
        ("e2el:300", {"b", "c"}),  # the target itself is within it
        ("tpot:1", {"b"}),  # a TPOT not measured meets its target (vLLM counts it 0)
        ("ttft:1000 e2el:1000", {"a", "b", "c"}),  # a failed request is never good
    ],
)
def test_goodput_targets_mark_each_request_and_count_per_second(
    registry: tuple[Path, list[RunRecord]], tmp_path: Path, slo: str, good: set[str]
) -> None:
    db, runs = registry
    jsonl = invoke(
        "runs", "export", runs[0].run_id, "--db", str(db), "--all-attempts", "--slo", slo
    )
    rows = [RequestRow.model_validate_json(line) for line in jsonl.splitlines()]
    assert {r.sample_id for r in rows if r.slo_met} == good
    assert all(r.slo_met is False for r in rows if r.sample_id not in good)
    out = tmp_path / "rows.csv"
    invoke(
        "runs",
        "export",
        runs[0].run_id,
        "--db",
        str(db),
        "--all-attempts",
        "--slo",
        slo,
        "--format",
        "csv",
        "--out",
        str(out),
    )
    assert read_csv_rows(out.read_text()) == rows
    doc = RunResult.model_validate_json(
        invoke(
            "runs", "export", runs[0].run_id, "--db", str(db), "--format", "result", "--slo", slo
        )
    )
    assert doc.summary.good_requests == len(good)
    assert doc.summary.goodput_per_s == pytest.approx(len(good) / 2.0)  # over the 2 s wall
    assert doc.summary.requests_per_s == pytest.approx(3 / 2.0)
    assert doc.summary.slo_s is not None and set(doc.summary.slo_s) <= {"ttft", "tpot", "e2el"}
    # without targets nothing is marked and no goodput is claimed
    plain = invoke("runs", "export", runs[0].run_id, "--db", str(db))
    assert all(RequestRow.model_validate_json(x).slo_met is None for x in plain.splitlines())


HAS_PYARROW = importlib.util.find_spec("pyarrow") is not None


def test_parquet_is_written_or_refused_naming_the_package(
    registry: tuple[Path, list[RunRecord]], tmp_path: Path
) -> None:
    db, runs = registry
    out = tmp_path / "rows.parquet"
    proc = specverdict_cli(
        "runs", "export", runs[0].run_id, "--db", str(db), "--format", "parquet", "--out", str(out)
    )
    if HAS_PYARROW:
        import pyarrow.parquet as pq

        assert proc.returncode == 0, proc.stderr
        table = pq.read_table(out).to_pylist()
        jsonl = invoke("runs", "export", runs[0].run_id, "--db", str(db))
        assert [RequestRow.model_validate(r) for r in table] == [
            RequestRow.model_validate_json(line) for line in jsonl.splitlines()
        ]
    else:
        assert proc.returncode == 2
        (line,) = proc.stderr.strip().splitlines()
        assert "pip install pyarrow" in line and not out.exists()


@pytest.mark.parametrize(
    "args, expected",
    [
        (["nope"], "no run 'nope'"),
        (["{run}", "--format", "xml"], "'xml' is not one of"),
        (["{run}", "--format", "parquet"], "give --out FILE"),
        (["{run}", "--out", "{tmp}/missing/rows.csv"], "no directory"),
        (["{run}", "{other}", "--format", "result"], "give --out DIR"),
        (["{run}", "--db", "{tmp}/none.db"], "no run registry at"),
        (["{run}", "--slo", "ttft500"], "expected METRIC:MS"),
        (["{run}", "--slo", "itl:5"], "itl: Extra inputs are not permitted"),
        (["{run}", "--slo", "ttft:-1"], "ttft: Input should be greater than 0"),
        ([], "name what to export: RUN_ID..., --campaign FILE (its runs) or --all"),
        (["{run}", "--all"], "name what to export"),
        (["--campaign", "{tmp}/none.yaml"], "none.yaml"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    registry: tuple[Path, list[RunRecord]], tmp_path: Path, args: list[str], expected: str
) -> None:
    db, runs = registry
    filled = [a.format(run=runs[0].run_id, other=runs[1].run_id, tmp=tmp_path) for a in args]
    if "--db" not in filled:
        filled += ["--db", str(db)]
    proc = specverdict_cli("runs", "export", *filled)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert expected in line, line


def _drafting(run_id: str, n: int, hist: list[int] | None) -> list[SampleRecord]:
    """``n`` answered samples; with ``hist`` (verify steps that accepted 0, 1, ... drafts),
    each carries the engine's per-request counts: one step per histogram entry count, every
    step drafting ``len(hist) - 1`` tokens."""
    out = []
    for i in range(n):
        acc = None
        if hist is not None:
            steps = sum(hist)
            acc = {
                "num_draft_tokens": steps * (len(hist) - 1),
                "num_accepted_draft_tokens": sum(j * h for j, h in enumerate(hist)),
                "num_spec_steps": steps,
                "acceptance_histogram": hist,
            }
        out.append(
            SampleRecord(
                run_id=run_id,
                sample_id=f"s{i:02d}",
                status="ok",
                text="def f(): pass",
                finish_reason="stop",
                prompt_tokens=12,
                completion_tokens=20,
                ttft_s=0.1,
                e2e_s=0.1 + (0.02 if hist is None else 0.01) * 19 * (1 + 0.01 * (i % 3)),
                chunk_arrivals_s=(0.1, 0.2, 0.3),
                acceptance=acc,
                score=Score(passed=True, outcome="passed"),
            )
        )
    return out


@pytest.fixture
def drafting_three(tmp_path: Path) -> tuple[Path, list[RunRecord]]:
    """The demo's baseline and its candidate declared ``draft_model k=4``, whose engine drafts
    3 tokens at every verify step and keeps 3 per-position counters: the k it ran is 3."""
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    specs = {s.speculation.label: s for s in build_plan(load_campaign(DEMO)).runs}
    runs = []
    for label, hist in (("none", None), ("draft_model k=4", [1, 1, 2, 2])):
        run = store.create_run(specs[label], repeat=0)
        for s in _drafting(run.run_id, 12, hist):
            store.add_sample(s)
        seg = Segment(requests=12, answered=12, samples=12, failed=0, wall_s=3.0, concurrency=8)
        runs.append(store.update_run(run.run_id, status="completed", manifest={"segments": [seg]}))
    store.close()
    return db, runs


def test_rows_and_results_carry_the_k_the_engine_ran_beside_the_declared_one(
    drafting_three: tuple[Path, list[RunRecord]], tmp_path: Path
) -> None:
    """Declared k=4, engine drafting 3 per step with 3 position counters: every row of the
    candidate says engine_k 3 and 3.0 drafted per step beside k 4, in JSONL, CSV (the column
    right after k) and the run result; the baseline's cells are empty, not 0."""
    db, (base, cand) = drafting_three
    assert COLUMNS.index("engine_k") == COLUMNS.index("k") + 1
    assert COLUMNS.index("drafted_per_step") == COLUMNS.index("k") + 2
    rows = [
        RequestRow.model_validate_json(line)
        for line in invoke("runs", "export", base.run_id, cand.run_id, "--db", str(db)).splitlines()
    ]
    mine = {(r.k, r.engine_k, r.drafted_per_step) for r in rows if r.run_id == cand.run_id}
    assert mine == {(4, 3, 3.0)}
    theirs = {(r.k, r.engine_k, r.drafted_per_step) for r in rows if r.run_id == base.run_id}
    assert theirs == {(None, None, None)}
    out = tmp_path / "rows.csv"
    invoke("runs", "export", "--all", "--db", str(db), "--format", "csv", "--out", str(out))
    lines = out.read_text().splitlines()
    head = lines[0].split(",")
    assert head[head.index("k") : head.index("k") + 3] == ["k", "engine_k", "drafted_per_step"]
    at = head.index("engine_k")
    cells = {(line.split(",")[0], line.split(",")[at]) for line in lines[1:]}
    assert cells == {(base.run_id, ""), (cand.run_id, "3")}
    assert read_csv_rows(out.read_text()) == rows
    doc = RunResult.model_validate_json(
        invoke("runs", "export", cand.run_id, "--db", str(db), "--format", "result")
    )
    assert (doc.spec.speculation.k, doc.engine_k, doc.drafted_per_step) == (4, 3, 3.0)
    assert doc.acceptance.accepted_per_pos == (5.0 * 12, 4.0 * 12, 2.0 * 12)
