"""The canonical per-request acceptance: what every engine adapter writes into
``SampleRecord.acceptance`` and every reader reads from it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, NonNegativeInt, ValidationError, model_validator

if TYPE_CHECKING:
    from specverdict.records.core import SampleRecord


class RequestAcceptance(BaseModel):
    """The canonical per-request acceptance (``SampleRecord.acceptance``), as every adapter
    writes it and every reader reads it: drafted and accepted tokens (the bonus token
    excluded), verify steps (None when the engine does not say), the histogram of steps that
    accepted 0, 1, ..., k drafts (or None), the per-step arrays in verify-step order (None
    unless the engine sent them: vLLM's ``detailed`` level), and ``raw``, the engine's own
    fields as they came (less the per-step arrays, when they were lifted into their fields, so
    that a long answer does not store them twice). A step that drafted nothing is not a verify
    step and is in neither array (vLLM omits it too). What an engine sent is stored as it came;
    ``parse`` is where malformed fields are caught.

    Records written before the per-step fields existed read with them None."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    num_draft_tokens: NonNegativeInt
    num_accepted_draft_tokens: NonNegativeInt
    num_spec_steps: NonNegativeInt | None = None
    acceptance_histogram: tuple[NonNegativeInt, ...] | None = None
    per_step_accepted: tuple[NonNegativeInt, ...] | None = None
    per_step_drafted: tuple[NonNegativeInt, ...] | None = None
    raw: Any = None

    @model_validator(mode="after")
    def _consistent(self) -> RequestAcceptance:
        if self.num_accepted_draft_tokens > self.num_draft_tokens:
            raise ValueError(
                f"accepted {self.num_accepted_draft_tokens} of {self.num_draft_tokens} drafted"
            )
        accepted, drafted = self.per_step_accepted, self.per_step_drafted
        if (accepted is None) != (drafted is None):
            raise ValueError("per_step_accepted and per_step_drafted come together")
        if accepted is not None and drafted is not None:
            if len(accepted) != len(drafted):
                raise ValueError(f"per-step arrays of {len(accepted)} and {len(drafted)} steps")
            bad = next(
                (i for i, (a, d) in enumerate(zip(accepted, drafted, strict=True)) if a > d), None
            )
            if bad is not None:
                raise ValueError(f"step {bad} accepted {accepted[bad]} of {drafted[bad]} drafted")
        return self

    @classmethod
    def parse(cls, sample: SampleRecord) -> RequestAcceptance:
        """The sample's acceptance; ``ValueError`` naming the sample when it is malformed."""
        try:
            return cls.model_validate(sample.acceptance or {}, strict=False)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "fields"
            raise ValueError(
                f"sample {sample.sample_id}: acceptance {where}: {err['msg']}"
            ) from None


AcceptanceSourceName = Literal[
    "per-request", "metrics-delta", "iteration-stats", "server-cumulative", "none"
]


class AcceptanceSummary(BaseModel):
    """A run's acceptance, with where it came from and whether it can be trusted."""

    model_config = ConfigDict(frozen=True)

    source: AcceptanceSourceName
    valid: bool
    why: str | None = None
    polluted: bool = False  # other traffic moved the server's counters during the run
    drafts: float | None = None
    draft_tokens: float | None = None
    accepted: float | None = None
    accepted_per_pos: tuple[float, ...] = ()

    @property
    def drafted(self) -> bool | None:
        """Whether the engine drafted any token during the run, by its own account: the
        evidence of its actual speculation, beside the declared one. None when it gave no
        counts, or when it drafted but other traffic may have been the one drafting (no
        draft at all is certain whoever else was served)."""
        if self.draft_tokens is None:
            return None
        if self.draft_tokens == 0:
            return False
        return None if self.polluted else True

    def as_baseline(self, polluted: str | None = None) -> AcceptanceSummary:
        """These counts, as a baseline's evidence of what it drafted (see baseline_summary)."""
        return baseline_summary(
            self.source, self.drafts, self.draft_tokens, self.accepted, polluted
        )

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


#: the engine fields of the per-step arrays (vLLM's ``detailed`` level), lifted into
#: ``RequestAcceptance``'s fields of the same names
PER_STEP_KEYS = ("per_step_accepted", "per_step_drafted")


def _count(v: Any) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or v < 0 or v != int(v):
        return None
    return int(v)


def _counts(v: Any) -> list[int] | None:
    if not isinstance(v, list) or any(_count(x) is None for x in v):
        return None
    return [int(x) for x in v]


def canonical_acceptance(
    raw: Mapping[str, Any],
    draft_tokens: Any,
    accepted: Any,
    steps: Any = None,
    histogram: Any = None,
    per_step_accepted: Any = None,
    per_step_drafted: Any = None,
) -> dict[str, Any] | None:
    """The canonical per-request dict, or None when the counts are missing or not numbers.

    The per-step arrays are kept when both are lists of counts of one length, no step
    accepting more than it drafted; they then leave ``raw`` (stored once, in their fields).
    Otherwise the dict has no per-step keys and they stay in ``raw`` as the engine sent them."""
    n_draft, n_acc = _count(draft_tokens), _count(accepted)
    if n_draft is None or n_acc is None:
        return None
    hist = _counts(histogram)
    step_acc, step_draft = _counts(per_step_accepted), _counts(per_step_drafted)
    if (
        step_acc is None
        or step_draft is None
        or len(step_acc) != len(step_draft)
        or any(a > d for a, d in zip(step_acc, step_draft, strict=True))
    ):
        step_acc = step_draft = None
    out: dict[str, Any] = {
        "num_draft_tokens": n_draft,
        "num_accepted_draft_tokens": n_acc,
        "num_spec_steps": _count(steps),
        "acceptance_histogram": hist,
        "raw": dict(raw),
    }
    if step_acc is not None:
        out["raw"] = {k: v for k, v in raw.items() if k not in PER_STEP_KEYS}
        out["per_step_accepted"], out["per_step_drafted"] = step_acc, step_draft
    return out


def baseline_summary(
    source: AcceptanceSourceName,
    drafts: float | None = None,
    draft_tokens: float | None = None,
    accepted: float | None = None,
    polluted: str | None = None,
) -> AcceptanceSummary:
    """A baseline's summary: no acceptance figure is asked of it, but the engine's counts of
    what it drafted during the run are kept, since a baseline that drafts is not one."""
    return AcceptanceSummary(
        source=source if draft_tokens is not None else "none",
        valid=True,
        polluted=polluted is not None,
        why=polluted or "no speculation declared",
        drafts=drafts,
        draft_tokens=draft_tokens,
        accepted=accepted,
    )


def per_request_summary(samples: Sequence[SampleRecord]) -> AcceptanceSummary | None:
    """Sum canonical per-request counts; None unless every answered sample carries them, and
    an invalid summary naming the first malformed one.

    Mean accepted length needs the number of verify steps: when any sample lacks it, ``drafts``
    is None and the summary has an acceptance rate but no mean accepted length.
    """
    answered = [s for s in samples if s.status == "ok"]
    carrying = [s for s in answered if s.acceptance]
    if not answered or len(carrying) != len(answered):
        return None
    try:
        found = [RequestAcceptance.parse(s) for s in carrying]
    except ValueError as exc:
        return AcceptanceSummary(
            source="per-request", valid=False, why=f"malformed per-request acceptance: {exc}"
        )
    steps = [m.num_spec_steps for m in found]
    known_steps = [x for x in steps if x is not None]
    hists = [m.acceptance_histogram for m in found]
    per_pos: list[float] = []
    if all(h is not None for h in hists):
        k = max(len(h) for h in hists if h is not None) - 1
        per_pos = [0.0] * max(k, 0)
        for h in hists:
            assert h is not None
            for pos in range(len(per_pos)):
                per_pos[pos] += sum(h[pos + 1 :])
    return AcceptanceSummary(
        source="per-request",
        valid=True,
        drafts=float(sum(known_steps)) if len(known_steps) == len(steps) else None,
        draft_tokens=float(sum(m.num_draft_tokens for m in found)),
        accepted=float(sum(m.num_accepted_draft_tokens for m in found)),
        accepted_per_pos=tuple(per_pos),
    )
