"""What acceptance and step costs predict, and what an external claim would need.

Built on :mod:`specverdict.stats.expectation`: E = expected tokens per step from conditional
acceptance a_1..a_k, R(k) = c_verify(k) + k·c_draft in baseline decode steps, S = E / R; a
claim S* needs E* = S*·R, attainable iff E* <= k + 1, plausible iff the acceptance at hand
gives at least E*.

Inputs are given (i.i.d. acceptance, per-position conditional acceptance, costs), read from a
golden acceptance-length file (:mod:`specverdict.campaign.golden`: the entry's AL taken as the
i.i.d. acceptance a with (1 − a^(k+1)) / (1 − a) = AL, so E reproduces it) or measured from a
stored run: its per-position accepted counts A_i over D drafts give a_i = A_i / A_{i-1}
(A_0 = D), and with a completed baseline run of the same fingerprint apart from speculation,
R = TPOT_cand · MAL / TPOT_base (:func:`specverdict.stats.decomposition.decompose_speedup`).
Every figure says whether it was given, measured or assumed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict

from specverdict.campaign.golden import GoldenEntry
from specverdict.campaign.spec import differing_axes
from specverdict.errors import ConfigError
from specverdict.measure.results import run_results
from specverdict.reference.options import k_at, k_schedule_problem
from specverdict.stats.decomposition import decompose_speedup, position_rates
from specverdict.stats.expectation import (
    claim_check,
    expected_tokens,
    predict_speedup,
    speculative_step_cost,
)
from specverdict.store.base import Store


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MeasuredRun(Frozen):
    """What a stored run measured (and its baseline, when one is stored)."""

    run_id: str
    k: int
    drafts: int
    accepted_per_pos: tuple[int, ...]
    conditional: tuple[float, ...]
    mean_accepted_length: float
    acceptance_source: str
    baseline_run_id: str | None = None
    tpot_base_s: float | None = None
    tpot_cand_s: float | None = None
    step_cost: float | None = None
    speedup: float | None = None


class ExpectationInputs(Frozen):
    """Resolved inputs: conditional acceptance for positions 1..k, the step cost, and sources."""

    k: int
    conditional: tuple[float, ...]
    step_cost: float
    verify_cost: float | None
    draft_cost: float | None
    acceptance_source: str
    step_cost_source: str
    assumptions: tuple[str, ...]
    measured: MeasuredRun | None = None
    golden: GoldenEntry | None = None


#: what ``expect --adaptive`` says of its prediction
ADAPTIVE_BOUND = (
    "adaptive verification verifies 1 to k drafts per step, cutting each request's drafts "
    "where the drafter's confidence no longer pays for the load: its accepted length is at "
    "most this fixed-k E at k (fewer drafts verified accept no more), its step cost at most "
    "this R; the prediction bounds the adaptive run's E from above, it does not model the "
    "cut (its speed-up may be above or below S: at low load it verifies all k and is S, "
    "under load it trades E for a cheaper step)"
)


def adaptive_bound(inputs: ExpectationInputs) -> ExpectationInputs:
    """The fixed-k inputs at k, marked as the bound of an adaptive run's prediction."""
    return inputs.model_copy(update={"assumptions": (*inputs.assumptions, ADAPTIVE_BOUND)})


class Expectation(Frozen):
    """The prediction (and the claim check when a claim was given)."""

    k: int
    conditional_acceptance: tuple[float, ...]
    position_rates: tuple[float, ...]
    expected_accepted_length: float
    step_cost: float
    verify_cost: float | None
    draft_cost: float | None
    expected_speedup: float
    sources: dict[str, str]
    assumptions: tuple[str, ...]
    measured: MeasuredRun | None = None
    golden: GoldenEntry | None = None
    claimed_speedup: float | None = None
    required_accepted_length: float | None = None
    attainable: bool | None = None
    plausible: bool | None = None
    claim_verdict: str | None = None


def _baseline_of(store: Store, run_id: str) -> str | None:
    """The newest completed run with speculation ``none`` that differs only in speculation."""
    run = store.get_run(run_id)
    best = None
    for r in store.list_runs():
        if r.run_id == run_id or r.status != "completed" or r.spec.speculation.method != "none":
            continue
        if any(not a.startswith("speculation.") for a in differing_axes(r.spec, run.spec)):
            continue
        if best is None or r.created_at > best.created_at:
            best = r
    return best.run_id if best else None


def _count(x: float, what: str) -> int:
    if not math.isfinite(x) or x < 0 or abs(x - round(x)) > 1e-6:
        raise ConfigError(f"{what} = {x} is not a count")
    return round(x)


def inputs_from_run(store: Store, run_id: str) -> MeasuredRun:
    """Per-position acceptance of a stored speculative run, and its step cost against its
    baseline when one is stored (``step_cost`` None otherwise)."""
    try:
        results = run_results(store, run_id)
    except KeyError:
        raise ConfigError(f"no run {run_id!r} in the registry") from None
    spec = results.run.spec.speculation
    acc = results.acceptance
    if spec.method == "none" or spec.k is None:
        raise ConfigError(f"run {run_id} is a baseline (speculation none): no acceptance")
    if not acc.valid or not acc.drafts or not acc.accepted_per_pos:
        why = acc.why or "no per-position counts"
        raise ConfigError(
            f"run {run_id} has no per-position acceptance ({acc.source}: {why}); "
            "give --acceptance or --per-position"
        )
    drafts = _count(acc.drafts, "drafts")
    per_pos = tuple(_count(a, f"accepted_per_pos[{i}]") for i, a in enumerate(acc.accepted_per_pos))
    try:
        rates = position_rates(per_pos, drafts)
    except ValueError as exc:
        raise ConfigError(f"run {run_id}: {exc}") from None
    measured = MeasuredRun(
        run_id=run_id,
        k=spec.k,
        drafts=drafts,
        accepted_per_pos=per_pos,
        conditional=rates.conditional,
        mean_accepted_length=rates.mal,
        acceptance_source=acc.source,
    )
    base_id = _baseline_of(store, run_id)
    tpot_cand = results.summary.mean_tpot_s
    if base_id is None or not tpot_cand:
        return measured.model_copy(update={"baseline_run_id": base_id, "tpot_cand_s": tpot_cand})
    tpot_base = run_results(store, base_id).summary.mean_tpot_s
    if not tpot_base:
        return measured.model_copy(update={"baseline_run_id": base_id, "tpot_cand_s": tpot_cand})
    d = decompose_speedup(tpot_base, tpot_cand, rates.mal)
    return measured.model_copy(
        update={
            "baseline_run_id": base_id,
            "tpot_base_s": tpot_base,
            "tpot_cand_s": tpot_cand,
            "step_cost": d.step_cost,
            "speedup": d.speedup,
        }
    )


def _probability(name: str, x: float) -> float:
    if not (math.isfinite(x) and 0.0 <= x <= 1.0):
        raise ConfigError(f"{name} must be in [0, 1], got {x}")
    return float(x)


def resolve_inputs(
    *,
    k: int | None = None,
    acceptance: float | None = None,
    per_position: Sequence[float] | None = None,
    run: MeasuredRun | None = None,
    golden: GoldenEntry | None = None,
    verify_cost: Sequence[float] | None = None,
    draft_cost: float | None = None,
) -> ExpectationInputs:
    """Resolve exactly one acceptance source, k, and the step cost (see the module doc).

    ``verify_cost`` is c_verify as a function of the draft length: one value (the same at every
    k) or values for k = 1, 2, ... (the k-th is used). Costs not given are assumed: c_verify = 1
    (a verify pass as cheap as one decode step), c_draft = 0 (drafting free); with neither given
    and no measured step cost, R = 1 and the speed-up is an upper bound.
    """
    sources = [x is not None for x in (acceptance, per_position, run, golden)]
    if sum(sources) != 1:
        raise ConfigError("give exactly one of --acceptance, --per-position, --run, --golden")
    assumptions: list[str] = []
    if acceptance is not None:
        if k is None:
            raise ConfigError("--acceptance needs --k")
        a = _probability("--acceptance", acceptance)
        conditional = (a,) * k
        acc_source = f"given: i.i.d. acceptance {a:g} at every position"
    elif per_position is not None:
        values = tuple(
            _probability(f"--per-position[{i + 1}]", x) for i, x in enumerate(per_position)
        )
        if not values:
            raise ConfigError("--per-position is empty")
        k = len(values) if k is None else k
        if k != len(values):
            raise ConfigError(f"--per-position has {len(values)} values for --k {k}")
        conditional = values
        acc_source = "given: per-position conditional acceptance"
    elif golden is not None:
        if k is not None and k != golden.k:
            raise ConfigError(
                f"--k {k}: the golden entry {golden.label} of {golden.file} is at k = {golden.k}"
            )
        k = golden.k
        conditional = (golden.iid_acceptance,) * k
        assumptions.append(
            "acceptance i.i.d. across draft positions (a golden file gives only the mean AL)"
        )
        acc_source = (
            f"golden: {golden.file}, entry {golden.described()}, taken as i.i.d. acceptance "
            f"a = {golden.iid_acceptance:.4f} at k = {k} ((1 - a^(k+1)) / (1 - a) = AL)"
        )
    else:
        assert run is not None
        k = run.k if k is None else k
        if k > run.k:
            raise ConfigError(
                f"--k {k} exceeds the run's k = {run.k}: positions beyond it were not measured"
            )
        conditional = run.conditional[:k]
        acc_source = (
            f"measured: run {run.run_id}, {run.drafts} drafts at k = {run.k} "
            f"(source {run.acceptance_source})"
        )
    if k < 1:
        raise ConfigError(f"--k must be at least 1, got {k}")
    v: float | None = None
    c: float | None = None
    if verify_cost is not None or draft_cost is not None:
        if verify_cost is not None:
            vs = list(verify_cost)
            if len(vs) == 1:
                v = vs[0]
            elif len(vs) >= k:
                v = vs[k - 1]
            else:
                raise ConfigError(f"--verify-cost has {len(vs)} values: none for k = {k}")
            parts = ["verify cost given"]
        else:
            v = 1.0
            parts = ["verify cost assumed"]
            assumptions.append("verify pass costs one baseline decode step (c_verify = 1)")
        if draft_cost is not None:
            c = draft_cost
            parts.append("draft cost given")
        else:
            c = 0.0
            parts.append("draft cost assumed")
            assumptions.append("drafting is free (c_draft = 0)")
        try:
            step = speculative_step_cost(k, v, c)
        except ValueError as exc:
            raise ConfigError(f"step cost: {exc}") from None
        step_source = f"R = c_verify + k·c_draft = {v:g} + {k}·{c:g} ({', '.join(parts)})"
    elif run is not None and run.step_cost is not None:
        step = run.step_cost
        step_source = (
            f"measured: R = TPOT_cand·MAL / TPOT_base against baseline run {run.baseline_run_id}"
        )
        if k != run.k:
            assumptions.append(f"step cost measured at k = {run.k} taken for k = {k}")
    else:
        step = 1.0
        if run is not None:
            why = (
                "no completed baseline run of the same fingerprint"
                if run.baseline_run_id is None
                else f"baseline run {run.baseline_run_id} has no TPOT"
            )
            step_source = f"assumed: R = 1 ({why}; give --verify-cost/--draft-cost)"
        else:
            step_source = "assumed: R = 1 (no costs given)"
        assumptions.append(
            "a speculative step costs one baseline step: the speed-up is an upper bound"
        )
    return ExpectationInputs(
        k=k,
        conditional=conditional,
        step_cost=step,
        verify_cost=v,
        draft_cost=c,
        acceptance_source=acc_source,
        step_cost_source=step_source,
        assumptions=tuple(assumptions),
        measured=run,
        golden=golden,
    )


def expect(inputs: ExpectationInputs, claim: float | None = None) -> Expectation:
    """The expected accepted length and speed-up; with ``claim`` (a speed-up such as 2.0), the
    accepted length it requires at this step cost, whether that is attainable (<= k + 1) and
    whether the acceptance at hand reaches it."""
    e = expected_tokens(inputs.conditional)
    pred = predict_speedup(inputs.conditional, inputs.step_cost)
    rates = tuple(math.prod(inputs.conditional[: i + 1]) for i in range(inputs.k))
    out = Expectation(
        k=inputs.k,
        conditional_acceptance=inputs.conditional,
        position_rates=rates,
        expected_accepted_length=e,
        step_cost=inputs.step_cost,
        verify_cost=inputs.verify_cost,
        draft_cost=inputs.draft_cost,
        expected_speedup=pred.speedup,
        sources={"acceptance": inputs.acceptance_source, "step_cost": inputs.step_cost_source},
        assumptions=inputs.assumptions,
        measured=inputs.measured,
        golden=inputs.golden,
    )
    if claim is None:
        return out
    try:
        check = claim_check(claim, inputs.k, inputs.step_cost, rates)
    except ValueError as exc:
        raise ConfigError(f"--claim: {exc}") from None
    return out.model_copy(
        update={
            "claimed_speedup": check.claimed_speedup,
            "required_accepted_length": check.expected_needed,
            "attainable": check.attainable,
            "plausible": check.plausible,
            "claim_verdict": check.why,
        }
    )


class LevelExpectation(Frozen):
    """A k schedule's prediction at one concurrency: the k it gives a full batch of that many
    requests, and the expectation at that k (None when the schedule's k there is 0: no
    speculation, S = 1)."""

    concurrency: int
    k: int
    expectation: Expectation | None


#: what a schedule's prediction per load level assumes of the batch
STEADY_BATCH = (
    "at concurrency C every step runs C requests (steady state): ramp-up and drain steps, "
    "at smaller batches, draft the schedule's k there"
)


def parse_k_schedule(text: str) -> tuple[tuple[int, int, int], ...]:
    """``[[1, 8, 4], [9, 32, 2], ...]`` (JSON, vLLM's ``num_speculative_tokens_per_batch_size``)
    as ranges, or a one-line ConfigError naming what was expected."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--k-schedule is not JSON: {exc.msg} at position {exc.pos}") from None
    if not isinstance(raw, list) or not all(isinstance(r, list) for r in raw):
        raise ConfigError("--k-schedule: expected a list of ranges [start, end, k]")
    problem = k_schedule_problem(raw)
    if problem is not None:
        raise ConfigError(f"--k-schedule: {problem}")
    return tuple((r[0], r[1], r[2]) for r in raw)


def expect_schedule(
    schedule: Sequence[tuple[int, int, int]],
    levels: Sequence[int],
    inputs_at: Callable[[int], ExpectationInputs],
    claim: float | None = None,
) -> list[LevelExpectation]:
    """The prediction of a k schedule at each concurrency level: the schedule's k at that batch
    size, and the expectation ``inputs_at(k)`` gives at it (none where k is 0)."""
    out = []
    for c in levels:
        if c < 1:
            raise ConfigError(f"--concurrency {c}: expected at least 1")
        k = k_at(schedule, c)
        if k == 0:
            out.append(LevelExpectation(concurrency=c, k=0, expectation=None))
            continue
        inputs = inputs_at(k)
        inputs = inputs.model_copy(update={"assumptions": (*inputs.assumptions, STEADY_BATCH)})
        out.append(LevelExpectation(concurrency=c, k=k, expectation=expect(inputs, claim)))
    return out
