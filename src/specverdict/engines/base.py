"""The ``EngineAdapter`` interface: how to launch an engine for a run and where its acceptance
figures come from. One class per engine kind, registered by kind."""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from specverdict.campaign.model import Launch
from specverdict.campaign.spec import RunSpec
from specverdict.store.records import MetricsSnapshot, SampleRecord

AcceptanceSourceName = Literal["per-request", "metrics-delta", "none"]


class AcceptanceSummary(BaseModel):
    """A run's acceptance, with where it came from and whether it can be trusted."""

    model_config = ConfigDict(frozen=True)

    source: AcceptanceSourceName
    valid: bool
    why: str | None = None
    drafts: float | None = None
    draft_tokens: float | None = None
    accepted: float | None = None
    accepted_per_pos: tuple[float, ...] = ()

    @property
    def acceptance_rate(self) -> float | None:
        """accepted / drafted tokens (the bonus token is not a draft)."""
        if not self.valid or not self.draft_tokens or self.accepted is None:
            return None
        return self.accepted / self.draft_tokens

    @property
    def mean_accepted_length(self) -> float | None:
        """1 + accepted / drafts: tokens per verify step, the bonus token included."""
        if not self.valid or not self.drafts or self.accepted is None:
            return None
        return 1.0 + self.accepted / self.drafts


class EngineAdapter(ABC):
    kind: str

    def launch_command(
        self, spec: RunSpec, launch: Launch | None, port: int, model_path: str | None
    ) -> list[str]:
        """The command that starts this run's server, from the campaign's template."""
        if launch is None:
            raise ValueError(
                f"engine kind {self.kind!r} has no built-in launch command: give launch.command"
            )
        fields = {
            "port": str(port),
            "host": "127.0.0.1",
            "model": model_path or spec.model.served_name,
            "quantization": spec.quantization,
            "speculative_args": shlex.join(self.speculative_args(spec)),
        }
        try:
            return shlex.split(launch.command.format(**fields))
        except KeyError as exc:
            raise ValueError(
                f"launch.command has an unknown placeholder {exc}; known: {', '.join(sorted(fields))}"
            ) from None

    @abstractmethod
    def speculative_args(self, spec: RunSpec) -> list[str]:
        """This engine's own flags for the run's speculation axis (empty for the baseline)."""

    @abstractmethod
    def summarize_acceptance(
        self,
        spec: RunSpec,
        samples: Sequence[SampleRecord],
        snapshots: dict[str, MetricsSnapshot],
        segment_requests: int,
    ) -> AcceptanceSummary:
        """A run's acceptance from what the engine exposed, with its source and validity."""
