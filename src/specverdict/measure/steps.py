"""Acceptance against the output position, from the per-step arrays the requests carried.

A request's verify steps, in order, drafted d_1, d_2, ... and accepted a_1, a_2, ... tokens
(``RequestAcceptance.per_step_drafted`` / ``per_step_accepted``: vLLM's ``detailed`` level);
step i emits a_i + 1 tokens (its accepted drafts and the bonus or correction token). Its output
position is the number of output tokens before it: p_1 = 1 (the prefill gives the first
token), p_{i+1} = p_i + a_i + 1. Steps are binned by position, bin b holding
b·w <= p < (b+1)·w for a bin width of w tokens, and per bin

    accepted = Σ a_i,  drafted = Σ d_i  over every request's steps in the bin,
    rate = accepted / drafted  (a ratio of sums, as a run's acceptance rate),
    requests = the requests with a step in the bin (those whose output reached it).

Steps that drafted nothing (an n-gram miss) are not verify steps and are in neither array,
in vLLM as in the reference engine, so their tokens are not counted: a request's positions are
exact when its steps account for its whole output (1 + Σ(a_i + 1) >= completion_tokens, the
last step cut short by ``max_tokens`` or a stop string), and lower bounds otherwise.
``exact`` counts the former; a request with no completion count is not exact.

Only answered samples (status ``ok``) count. One that carries no per-step arrays, or whose
acceptance is malformed, counts in ``without`` and in nothing else: a curve never mixes
requests with arrays and requests without them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from specverdict.records import RequestAcceptance, SampleRecord


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StepBin(_Frozen):
    """The verify steps that began at output positions ``start`` to ``end`` (excluded)."""

    start: int = Field(ge=0)
    end: int = Field(gt=0)
    steps: int = Field(ge=0, description="verify steps in the bin, over every request")
    drafted: int = Field(ge=0)
    accepted: int = Field(ge=0)
    requests: int = Field(ge=0, description="requests with at least one step in the bin")

    @property
    def rate(self) -> float | None:
        """accepted / drafted tokens; None when the bin's steps drafted nothing."""
        return self.accepted / self.drafted if self.drafted else None


class StepCurve(_Frozen):
    """Acceptance against the output position of one set of requests (a run, or a slice)."""

    bin_tokens: int = Field(gt=0, description="the bin width, in output tokens")
    bins: tuple[StepBin, ...] = Field(description="bins with at least one step, in order")
    requests: int = Field(ge=0, description="answered requests with per-step arrays")
    exact: int = Field(ge=0, description="of those, requests whose steps cover their output")
    without: int = Field(ge=0, description="answered requests without per-step arrays")


def _steps(sample: SampleRecord) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The sample's (accepted, drafted) arrays, or None when it has none or they are malformed."""
    if sample.status != "ok" or not sample.acceptance:
        return None
    try:
        acc = RequestAcceptance.parse(sample)
    except ValueError:
        return None
    if acc.per_step_accepted is None or acc.per_step_drafted is None:
        return None
    return acc.per_step_accepted, acc.per_step_drafted


def step_positions(accepted: Sequence[int]) -> list[int]:
    """Each verify step's output position: p_1 = 1, p_{i+1} = p_i + a_i + 1."""
    out, p = [], 1
    for a in accepted:
        out.append(p)
        p += a + 1
    return out


def step_curve(samples: Iterable[SampleRecord], bin_tokens: int) -> StepCurve:
    """The acceptance curve of ``samples`` in bins of ``bin_tokens`` output positions (see the
    module docstring for the definitions)."""
    if bin_tokens <= 0:
        raise ValueError(f"bin_tokens must be positive, not {bin_tokens}")
    totals: dict[int, list[int]] = {}  # bin -> [steps, drafted, accepted, requests]
    requests = exact = without = 0
    for sample in samples:
        if sample.status != "ok":
            continue
        found = _steps(sample)
        if found is None:
            without += 1
            continue
        accepted, drafted = found
        requests += 1
        covered = 1 + sum(a + 1 for a in accepted)
        if sample.completion_tokens is not None and covered >= sample.completion_tokens:
            exact += 1
        reached: set[int] = set()
        for p, a, d in zip(step_positions(accepted), accepted, drafted, strict=True):
            b = p // bin_tokens
            t = totals.setdefault(b, [0, 0, 0, 0])
            t[0] += 1
            t[1] += d
            t[2] += a
            if b not in reached:
                reached.add(b)
                t[3] += 1
    bins = tuple(
        StepBin(
            start=b * bin_tokens,
            end=(b + 1) * bin_tokens,
            steps=t[0],
            drafted=t[1],
            accepted=t[2],
            requests=t[3],
        )
        for b, t in sorted(totals.items())
    )
    return StepCurve(
        bin_tokens=bin_tokens, bins=bins, requests=requests, exact=exact, without=without
    )


def step_curves(
    samples: Sequence[SampleRecord], groups: Mapping[str, Collection[str]], bin_tokens: int
) -> dict[str, StepCurve]:
    """One curve per group (a slice label and its sample ids), in the groups' order; samples in
    no group are left out."""
    return {
        label: step_curve((s for s in samples if s.sample_id in ids), bin_tokens)
        for label, ids in groups.items()
    }


def bin_tokens_for(samples: Iterable[SampleRecord], most: int = 12) -> int:
    """The smallest power of two that puts every step of ``samples`` in at most ``most`` bins
    (1 when none has per-step arrays): one width for all the runs drawn together, so that their
    bins line up."""
    if most <= 0:
        raise ValueError(f"most must be positive, not {most}")
    last = 0
    for sample in samples:
        found = _steps(sample)
        if found is not None and found[0]:
            last = max(last, step_positions(found[0])[-1])
    width = 1
    while last // width + 1 > most:
        width *= 2
    return width
