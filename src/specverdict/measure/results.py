"""A stored run's figures: its summary and its acceptance, computed from the registry."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from specverdict.engines.registry import adapter_for
from specverdict.measure.summary import RunSummary, summarize_samples
from specverdict.records import RunRecord, SampleRecord
from specverdict.records.acceptance import AcceptanceSummary
from specverdict.store.base import Store


class RunResults(BaseModel):
    model_config = ConfigDict(frozen=True)

    run: RunRecord
    summary: RunSummary
    acceptance: AcceptanceSummary


def run_acceptance(
    store: Store, run: RunRecord, samples: Sequence[SampleRecord]
) -> AcceptanceSummary:
    """A run's acceptance from its already loaded samples and its stored snapshots."""
    segments = run.manifest.segments
    # the requests the server finished in the counters' window: from the last segment that
    # read the counters before it (every segment, unless later blocks continued a window)
    start = max((i for i, seg in enumerate(segments) if seg.window), default=0)
    last_requests = sum(seg.answered for seg in segments[start:])
    try:
        return adapter_for(run.spec.engine.kind).summarize_acceptance(
            run.spec, samples, store.snapshots(run.run_id), last_requests
        )
    except (ValueError, TypeError, KeyError, ArithmeticError) as exc:
        # what the engine sent (per-request fields, /metrics text) is stored as it came; when
        # it cannot be read, the run has no acceptance, and says why
        why = f"{type(exc).__name__}: {exc}"
        return AcceptanceSummary(
            source="none", valid=False, why=f"the engine's acceptance data is malformed ({why})"
        )


def run_results(store: Store, run_id: str, slo_s: Mapping[str, float] | None = None) -> RunResults:
    """A stored run's figures; ``slo_s`` (goodput targets in seconds) adds its goodput."""
    run = store.get_run(run_id)
    samples = store.samples(run_id)
    wall = sum(s.wall_s for s in run.manifest.segments) or None
    return RunResults(
        run=run,
        summary=summarize_samples(samples, wall, slo_s),
        acceptance=run_acceptance(store, run, samples),
    )
