"""Acceptance (rule 5, never decisive): acceptance rate and mean accepted length with their intervals, the speed-up decomposition, greedy identity, the acceptance triage and its drift across executions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from specverdict.campaign.lossy import lossy_mode
from specverdict.records import SampleRecord, override_drift
from specverdict.records.acceptance import RequestAcceptance
from specverdict.stats import (
    decompose_speedup,
    greedy_identity,
)
from specverdict.stats.acceptance import acceptance_interval, mal_interval
from specverdict.verdict.gates._common import Acceptance, Arm, Findings, Gate, Pair, audit_findings
from specverdict.verdict.model import DecompositionFigures, IdentityFigures, Reason

#: methods whose greedy outputs must equal the baseline's (exact verification)
LOSSLESS_IDENTITY_FLOOR = 0.9


#: acceptance below this share of a reference (an earlier run, the campaign's expectation) is
#: a collapse worth a triage, when it is also at least TRIAGE_MIN_GAP below it
TRIAGE_RATIO = 0.75


TRIAGE_MIN_GAP = 0.05


def _acceptance(
    cand: Arm, means: tuple[float, float] | None, rng: np.random.Generator
) -> tuple[list[Reason], float | None, float | None]:
    acc = cand.acceptance
    if cand.spec.speculation.method == "none" or acc is None:
        return [], None, None
    if not acc.valid:
        return (
            [
                Reason(
                    gate="acceptance",
                    status="info",
                    message=f"no acceptance figure: {acc.why}",
                    data={"source": acc.source},
                )
            ],
            None,
            None,
        )
    rate, mal = acc.acceptance_rate, acc.mean_accepted_length
    parts = []
    per_req = []
    if acc.source == "per-request":  # valid: every answered sample's acceptance parses
        per_req = [
            RequestAcceptance.parse(s) for s in cand.first if s.status == "ok" and s.acceptance
        ]
    if rate is not None:
        text = f"acceptance rate {rate:.3f}"
        if per_req:
            est = acceptance_interval(
                [m.num_accepted_draft_tokens for m in per_req],
                [m.num_draft_tokens for m in per_req],
                rng,
            )
            if est.interval is not None:
                text += f" [{est.interval.lower:.3f}, {est.interval.upper:.3f}]"
        else:
            text += " (server totals: no interval)"
        parts.append(text)
    if mal is not None:
        text = f"mean accepted length {mal:.2f}"
        steps = [m.num_spec_steps for m in per_req]
        known = [x for x in steps if x is not None]
        if per_req and len(known) == len(steps):
            est = mal_interval([m.num_accepted_draft_tokens for m in per_req], known, rng)
            if est.interval is not None:
                text += f" [{est.interval.lower:.2f}, {est.interval.upper:.2f}]"
        parts.append(text)
    reasons = [
        Reason(
            gate="acceptance",
            status="info",
            message=f"{', '.join(parts) or 'no figures'} (source: {acc.source})",
            data={"rate": rate, "mal": mal, "source": acc.source},
        )
    ]
    if mal is not None and means is not None and means[0] > 0 and means[1] > 0:
        d = decompose_speedup(means[0], means[1], mal)
        reasons.append(
            Reason(
                gate="speed.decomposition",
                status="info",
                message=f"speed-up {d.speedup:.3f} = MAL {d.mal:.2f} tokens per step / step cost "
                f"{d.step_cost:.2f} baseline steps",
                data=DecompositionFigures(
                    speedup=d.speedup, mal=d.mal, step_cost=d.step_cost
                ).model_dump(),
            )
        )
    return reasons, rate, mal


def _identity(base: Arm, cand: Arm) -> Reason | None:
    if base.spec.sampling.temperature != 0.0:
        return None
    b_by = {s.sample_id: s for s in base.first}
    ids = [s.sample_id for s in cand.first if s.sample_id in b_by]
    pairs = []
    for i in ids:
        bs, cs = b_by[i], next(s for s in cand.first if s.sample_id == i)
        pairs.append(
            (
                [ord(ch) for ch in bs.text] if bs.status == "ok" else None,
                [ord(ch) for ch in cs.text] if cs.status == "ok" else None,
            )
        )
    gi = greedy_identity(pairs)
    if gi.share is None:
        return None
    first = ", ".join(f"{ids[d.index]}@{d.position}" for d in gi.divergences[:5])
    msg = f"{gi.identical} of {gi.n} greedy outputs identical to the baseline's"
    if gi.missing:
        msg += f" ({gi.missing} not answered on both arms, not compared)"
    if gi.divergences:
        msg += f"; first divergent character: {first}"
    lossless = lossy_mode(cand.spec) is None
    if lossless and gi.share < LOSSLESS_IDENTITY_FLOOR:
        msg += (
            " (lossless speculation should be near 100%: numerics, a lossy mode or a broken path)"
        )
    return Reason(
        gate="identity",
        status="info",
        message=msg,
        data=IdentityFigures(
            share=gi.share, divergences={ids[d.index]: d.position for d in gi.divergences}
        ).model_dump(),
    )


def run_identity(base: Arm, run: Sequence[SampleRecord]) -> float | None:
    """Share of one execution's greedy answers whose text equals the baseline's (None when
    sampling, or with nothing to compare)."""
    if base.spec.sampling.temperature != 0.0:
        return None
    b_by = {s.sample_id: s.text for s in base.first if s.status == "ok"}
    pairs = [(b_by[s.sample_id], s.text) for s in run if s.status == "ok" and s.sample_id in b_by]
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def _triage(cand: Arm, expected: float | None, identity: dict[str, float | None]) -> Reason | None:
    """Acceptance that collapsed against an earlier run of the same configuration, or against
    the campaign's expectation. With outputs still identical to the baseline's, the verifier is
    fine and the drafts got worse: suspect the draft path (loader, patches, overrides) before
    the checkpoint (the source document's costliest mistake was to blame the checkpoint)."""
    series: list[tuple[str, float | None]] = list(cand.history)
    for run_id, acc in zip(cand.run_ids, cand.acceptances, strict=False):
        series.append((run_id, acc.acceptance_rate if acc is not None else None))
    for i, (run_id, rate) in enumerate(series):
        if rate is None:
            continue
        refs = [(r, x) for r, x in series[:i] if x is not None]
        ref_name, ref = max(refs, key=lambda t: t[1]) if refs else ("", None)
        if expected is not None and (ref is None or expected > ref):
            # a figure read from a golden file names it (``audit.golden.GoldenRate.origin``)
            origin = getattr(expected, "origin", None)
            ref_name, ref = origin or "the campaign's expected_acceptance", expected
        if ref is None or not (rate < TRIAGE_RATIO * ref and ref - rate >= TRIAGE_MIN_GAP):
            continue
        share = identity.get(run_id)
        against = ref_name if ref_name.startswith("the ") else f"run {ref_name}"
        msg = f"run {run_id}: acceptance {rate:.3f} against {ref:.3f} of {against}"
        if share is not None and share >= 0.95:
            msg += (
                f"; greedy outputs still {100 * share:.0f}% identical to the baseline's, so "
                "the target verifies correctly: suspect the draft path (loader, patches, "
                "overrides) before the checkpoint"
            )
        elif share is not None:
            msg += (
                f"; greedy outputs only {100 * share:.0f}% identical: the target's path "
                "changed too (numerics, a lossy mode, a different model)"
            )
        else:
            msg += "; suspect the draft path (loader, patches, overrides) before the checkpoint"
        findings = audit_findings(cand.manifests)
        msg += (
            "; audits: " + "; ".join(findings)
            if findings
            else "; no audit findings recorded (configure audits: loader and overrides)"
        )
        return Reason(
            gate="triage",
            status="info",
            message=msg,
            data={"run_id": run_id, "rate": rate, "reference": ref, "findings": findings},
        )
    return None


def _drift(cand: Arm, base: Arm) -> Reason | None:
    """An override recorded as present by one execution and absent by a later one."""
    for arm in (base, cand):
        for d in override_drift(list(zip(arm.run_ids, arm.manifests, strict=False))):
            return Reason(
                gate="overrides",
                status="invalid",
                message=f"overrides drifted: {d.path} was in place for an earlier run of "
                f"this configuration and is {d.status} for run {d.run_id}",
                data={"path": d.path, "run_id": d.run_id, "status": d.status},
            )
    return None


def _judge_acceptance(pair: Pair, found: Findings) -> None:
    reasons, rate, mal = _acceptance(pair.cand, found.speed.means, pair.rng)
    found.add(*reasons)
    found.acceptance = Acceptance(rate, mal)


def _judge_identity(pair: Pair, found: Findings) -> None:
    found.add(_identity(pair.base, pair.cand))


def _judge_drift(pair: Pair, found: Findings) -> None:
    found.add(_drift(pair.cand, pair.base))


def _judge_triage(pair: Pair, found: Findings) -> None:
    shares = {
        rid: run_identity(pair.base, run)
        for rid, run in zip(pair.cand.run_ids, pair.cand.samples, strict=False)
    }
    found.add(_triage(pair.cand, pair.expected_acceptance, shares))


ACCEPTANCE = Gate("acceptance", _judge_acceptance)
IDENTITY = Gate("identity", _judge_identity)
DRIFT = Gate("acceptance.drift", _judge_drift)
TRIAGE = Gate("triage", _judge_triage)
