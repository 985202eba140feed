"""Any OpenAI-compatible server: no speculation flags, and no acceptance figures (never invented)."""

from __future__ import annotations

from collections.abc import Sequence

from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import EngineAdapter
from specverdict.records import MetricsSnapshot, SampleRecord
from specverdict.records.acceptance import AcceptanceSummary


class OpenAIAdapter(EngineAdapter):
    kind = "openai"
    acceptance_recordable = "none"

    def speculative_args(self, spec: RunSpec, run_dir: str = ".") -> list[str]:
        return []

    def summarize_acceptance(
        self,
        spec: RunSpec,
        samples: Sequence[SampleRecord],
        snapshots: dict[str, MetricsSnapshot],
        segment_requests: int,
    ) -> AcceptanceSummary:
        return AcceptanceSummary(
            source="none",
            valid=False,
            why="a generic OpenAI-compatible server exposes no acceptance",
        )
