"""The canonical per-request acceptance: what every engine adapter writes into
``SampleRecord.acceptance`` and every reader reads from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
