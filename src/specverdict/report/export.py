"""Exports of stored runs: one row per request (JSONL, CSV, Parquet) and one result per run.

A request row is a sample as the registry holds it, flattened for a spreadsheet or a dataframe:
its timings (TTFT and e2e as measured; TPOT as ``measure.summary.tpot`` computes it; inter-chunk
latencies from the gaps between consecutive content-chunk arrivals, the client's ITLs), its
tokens, finish reason, the canonical per-request acceptance (``RequestAcceptance``; a malformed
one leaves the counts empty and says why in ``acceptance_error``), its score and its error, and
with goodput targets whether it met them (``slo_met``). A figure that was not observed is empty
(``None``), never zero.

A run result (``RunResult``) is a run's spec, manifest, summary and acceptance, the figures
``runs show --json`` prints, as one versioned document: ``schema_version`` follows
``records.OUTPUT_SCHEMA_VERSION`` (a field added keeps it, a field renamed or removed raises it),
and ``specverdict schema run-result`` prints its JSON Schema.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from specverdict.campaign.spec import RunSpec
from specverdict.errors import ExtraMissingError
from specverdict.measure.results import RunResults
from specverdict.measure.summary import RunSummary, counted_tokens, is_good, tpot
from specverdict.records import (
    OUTPUT_SCHEMA_VERSION,
    RequestAcceptance,
    RunManifest,
    RunRecord,
    RunStatus,
    SampleRecord,
    SampleStatus,
)
from specverdict.records.acceptance import AcceptanceSummary
from specverdict.report.outputs import FileOutput
from specverdict.verdict.model import drafted_per_step, run_engine_k


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RequestRow(_Frozen):
    """One request (one attempt of one sample) of a stored run."""

    run_id: str
    sample_id: str
    attempt: int = Field(description="0 for the first send; a retry is the next attempt")
    campaign: str | None = Field(default=None, description="the campaign the run belongs to")
    stage: str | None = Field(default=None, description="the stage (workload) of the run")
    method: str | None = Field(default=None, description="speculation method; none: baseline")
    k: int | None = Field(default=None, description="draft tokens per step, as declared")
    engine_k: int | None = Field(
        default=None,
        description="the k the engine ran by its own per-position counters (their number, over "
        "the run); empty when it keeps none or its counts are not clean",
    )
    drafted_per_step: float | None = Field(
        default=None,
        description="the run's drafted tokens per verify step by the engine's counts (for a "
        "method drafting k every step, the k it ran; for n-gram, at most k); empty without "
        "clean counts",
    )
    configuration: str | None = Field(
        default=None, description="the configuration's label, e.g. 'mtp k=2'"
    )
    load: str | None = Field(default=None, description="the load level, e.g. concurrency=4")
    repeat: int | None = Field(default=None, description="which execution of the configuration")
    block: int | None = Field(default=None, description="the block of a blocked speed design")
    clock: str | None = Field(
        default=None, description="host (wall clock) or device (the engine's modelled clock)"
    )
    server: str | None = Field(
        default=None, description="the attached server's identity digest (its own account)"
    )
    status: SampleStatus
    ttft_s: float | None = Field(description="seconds from send to the first output chunk")
    e2e_s: float | None = Field(description="seconds from send to the last output chunk")
    tpot_s: float | None = Field(
        description="(e2e - TTFT) / (completion tokens - 1); empty below 2 tokens or when every "
        "token came in one event"
    )
    chunks: int = Field(description="content chunks received")
    itl_mean_s: float | None = Field(description="mean gap between consecutive content chunks")
    itl_p50_s: float | None = Field(description="median gap between consecutive content chunks")
    itl_max_s: float | None = Field(description="longest gap between consecutive content chunks")
    prompt_tokens: int | None
    completion_tokens: int | None = Field(description="the server's usage count")
    counted_tokens: int | None = Field(
        default=None,
        description="the harness's count of the output text on the engine's tokenizer; TPOT "
        "uses it when present",
    )
    finish_reason: str | None
    num_draft_tokens: int | None = Field(description="tokens drafted for this request")
    num_accepted_draft_tokens: int | None = Field(description="of them accepted (bonus excluded)")
    num_spec_steps: int | None = Field(description="verify steps, when the engine says")
    acceptance_histogram: tuple[int, ...] | None = Field(
        description="steps that accepted 0, 1, ..., k drafts, when the engine says"
    )
    acceptance_error: str | None = Field(
        description="why the stored acceptance could not be read (the counts are then empty)"
    )
    score_passed: bool | None = Field(description="the suite's verdict; empty when unscored")
    score_outcome: str | None = Field(description="passed, failed, error, syntax_error, ...")
    error: str | None
    slo_met: bool | None = Field(
        default=None,
        description="within every goodput target given (vLLM's --goodput rule); empty without "
        "targets",
    )
    output_text: str | None = Field(default=None, description="the answer (with --text)")
    prompt: str | None = Field(
        default=None, description="the prompt, or the chat messages as JSON (with --text)"
    )


#: the row's columns, in order (the CSV header and the Parquet schema)
COLUMNS: tuple[str, ...] = tuple(RequestRow.model_fields)


def inter_chunk_gaps(sample: SampleRecord) -> list[float]:
    """Gaps between consecutive content-chunk arrivals (the client's inter-chunk latencies)."""
    return [b - a for a, b in pairwise(sample.chunk_arrivals_s)]


def request_row(
    sample: SampleRecord,
    slo_s: Mapping[str, float] | None = None,
    run: RunRecord | None = None,
    prompt: str | None = None,
    text: bool = False,
    acceptance: AcceptanceSummary | None = None,
) -> RequestRow:
    """The sample as a row; ``slo_s`` (goodput targets in seconds) fills ``slo_met``; ``run``
    (the sample's run) the configuration columns, so that rows of many runs can be analysed
    without a join; ``text`` the output and ``prompt``; ``acceptance`` (the run's, as
    ``results.run_acceptance`` reads it) the k the engine ran (``engine_k``,
    ``drafted_per_step``)."""
    gaps = inter_chunk_gaps(sample)
    acc: RequestAcceptance | None = None
    acc_error = None
    if sample.acceptance is not None:
        try:
            acc = RequestAcceptance.parse(sample)
        except ValueError as exc:
            acc_error = str(exc)
    score = sample.score
    spec = run.spec if run is not None else None
    block = sample.extra.block
    server = run.manifest.server if run is not None else None
    return RequestRow(
        run_id=sample.run_id,
        sample_id=sample.sample_id,
        attempt=sample.attempt,
        campaign=spec.campaign if spec else None,
        stage=spec.stage if spec else None,
        method=spec.speculation.method if spec else None,
        k=spec.speculation.k if spec else None,
        engine_k=run_engine_k(acceptance),
        drafted_per_step=drafted_per_step(acceptance),
        configuration=spec.speculation.label if spec else None,
        load=spec.load.label if spec else None,
        repeat=run.repeat if run is not None else None,
        block=block if isinstance(block, int) and not isinstance(block, bool) else None,
        clock=sample.clock,
        server=server.digest if server is not None else None,
        status=sample.status,
        ttft_s=sample.ttft_s,
        e2e_s=sample.e2e_s,
        tpot_s=tpot(sample),
        chunks=len(sample.chunk_arrivals_s),
        itl_mean_s=float(np.mean(gaps)) if gaps else None,
        itl_p50_s=float(np.median(gaps)) if gaps else None,
        itl_max_s=max(gaps) if gaps else None,
        prompt_tokens=sample.prompt_tokens,
        completion_tokens=sample.completion_tokens,
        counted_tokens=counted_tokens(sample),
        finish_reason=sample.finish_reason,
        num_draft_tokens=acc.num_draft_tokens if acc else None,
        num_accepted_draft_tokens=acc.num_accepted_draft_tokens if acc else None,
        num_spec_steps=acc.num_spec_steps if acc else None,
        acceptance_histogram=acc.acceptance_histogram if acc else None,
        acceptance_error=acc_error,
        score_passed=score.passed if score else None,
        score_outcome=score.outcome if score else None,
        error=sample.error,
        slo_met=is_good(sample, slo_s) if slo_s else None,
        output_text=sample.text if text else None,
        prompt=prompt if text else None,
    )


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return json.dumps(list(value))
    if isinstance(value, float):
        return repr(value)  # round-trips exactly
    return str(value)


def rows_jsonl(rows: Iterable[RequestRow]) -> str:
    return "".join(row.model_dump_json() + "\n" for row in rows)


def rows_csv(rows: Iterable[RequestRow]) -> str:
    """CSV with a header; empty cells are ``None``, booleans ``true``/``false``, the histogram
    a JSON list."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_csv_cell(getattr(row, c)) for c in COLUMNS])
    return out.getvalue()


def read_csv_rows(text: str) -> list[RequestRow]:
    """The rows of ``rows_csv`` back (empty cells as ``None``)."""
    out = []
    for record in csv.DictReader(io.StringIO(text)):
        data: dict[str, Any] = {k: (v if v != "" else None) for k, v in record.items()}
        hist = data.get("acceptance_histogram")
        if hist is not None:
            data["acceptance_histogram"] = json.loads(hist)
        for flag in ("score_passed", "slo_met"):
            if data.get(flag) is not None:
                data[flag] = data[flag] == "true"
        out.append(RequestRow.model_validate(data))
    return out


PARQUET_PACKAGE = "pyarrow"


def parquet_bytes(rows: Sequence[RequestRow]) -> bytes:
    """Parquet through pyarrow when it is installed (it is not a dependency of specverdict)."""
    try:
        import pyarrow as pa  # type: ignore[import-not-found, unused-ignore]
        import pyarrow.parquet as pq  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise ExtraMissingError(
            f"--format parquet needs {PARQUET_PACKAGE}, which is not installed: "
            f"pip install {PARQUET_PACKAGE} (or use --format jsonl or csv)"
        ) from None
    table = pa.Table.from_pylist([row.model_dump() for row in rows])
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return bytes(sink.getvalue().to_pybytes())


class RunResult(_Frozen):
    """One stored run as a document: what ran (spec, manifest), its figures (summary,
    acceptance) and where it came from (run id, fingerprint, repeat, status, times)."""

    schema_version: int = Field(
        default=OUTPUT_SCHEMA_VERSION,
        description="the version of specverdict's JSON outputs this document follows",
    )
    kind: Literal["run-result"] = "run-result"
    run_id: str
    fingerprint: str = Field(description="the run's identity: SHA-256 of its spec's axes")
    repeat: int = Field(description="which execution of the fingerprint this is")
    status: RunStatus
    created_at: float = Field(description="Unix time the run was created")
    finished_at: float | None = Field(description="Unix time it finished, if it did")
    spec: RunSpec
    manifest: RunManifest
    summary: RunSummary = Field(description="latency, TPOT, throughput and outcome counts")
    acceptance: AcceptanceSummary = Field(description="the run's acceptance and its source")
    acceptance_rate: float | None = Field(description="accepted / drafted tokens")
    mean_accepted_length: float | None = Field(
        description="tokens per verify step, the bonus token included"
    )
    engine_k: int | None = Field(
        default=None,
        description="the k the engine ran by its own per-position counters (their number); "
        "None when it keeps none or its counts are not clean",
    )
    drafted_per_step: float | None = Field(
        default=None,
        description="drafted tokens per verify step by the engine's counts (for a method "
        "drafting k every step, the k it ran; for n-gram, at most k)",
    )


def run_result(results: RunResults) -> RunResult:
    run = results.run
    return RunResult(
        run_id=run.run_id,
        fingerprint=run.fingerprint,
        repeat=run.repeat,
        status=run.status,
        created_at=run.created_at,
        finished_at=run.finished_at,
        spec=run.spec,
        manifest=run.manifest,
        summary=results.summary,
        acceptance=results.acceptance,
        acceptance_rate=results.acceptance.acceptance_rate,
        mean_accepted_length=results.acceptance.mean_accepted_length,
        engine_k=run_engine_k(results.acceptance),
        drafted_per_step=drafted_per_step(results.acceptance),
    )


JSONL: FileOutput[Sequence[RequestRow]] = FileOutput(
    "jsonl",
    "rows",
    ".jsonl",
    "one JSON object per request",
    lambda rows: rows_jsonl(rows).encode("utf-8"),
)
CSV: FileOutput[Sequence[RequestRow]] = FileOutput(
    "csv", "rows", ".csv", "one CSV row per request", lambda rows: rows_csv(rows).encode("utf-8")
)
PARQUET: FileOutput[Sequence[RequestRow]] = FileOutput(
    "parquet",
    "rows",
    ".parquet",
    f"one Parquet row per request (needs {PARQUET_PACKAGE})",
    parquet_bytes,
    text=False,
)
RESULT: FileOutput[RunResult] = FileOutput(
    "result",
    "result",
    ".json",
    "one JSON document per run: spec, manifest, summary, acceptance",
    lambda doc: (doc.model_dump_json(indent=2) + "\n").encode("utf-8"),
)
