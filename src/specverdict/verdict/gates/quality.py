"""Quality (rules 2 and 4): paired non-inferiority, McNemar and the score interval on the suite's pass/fail scores; the output distribution under sampling (Fisher)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from specverdict.campaign.lossy import lossy_mode
from specverdict.campaign.model import Gates
from specverdict.records import SampleRecord
from specverdict.records.failures import failure_kind
from specverdict.stats import (
    mcnemar_exact,
    paired_noninferiority,
    tango_statistic,
)
from specverdict.stats.looks import LookShare
from specverdict.stats.sequential import MAX_NEEDED, betting_noninferiority
from specverdict.verdict.gates._common import (
    Arm,
    Findings,
    Gate,
    Pair,
    Quality,
    level_text,
    pp,
    reject_level,
)
from specverdict.verdict.model import DiscordantSample, NonInferiorityFigures, Reason
from specverdict.verdict.order import betting_order, order_seed

#: the fewest pairs a fixed design's non-inferiority is decided on by Tango's score test, an
#: asymptotic one (4 of 4 against 0 of 4 passes it); below, by betting, exact at any n. At 50
#: pairs worse by the margin Tango's false pass was 1.75% for 2.5% (simulated, 2,000 pairs)
TANGO_MIN_PAIRS = 50


def _distribution(
    base: Arm, cand: Arm, gates: Gates, look: LookShare | None = None
) -> Reason | None:
    """With sampling (temperature > 0) a lossless method leaves the output distribution as it
    was, so the share of answers cut at max_tokens must not move: a two-sided Fisher exact test
    on (cut, finished) counts. A significant shift is a quality failure that needs no scorer (a
    sampler that ignores the temperature on the speculative path, say). At temperature 0 the
    greedy identity check covers this."""
    from scipy.stats import fisher_exact

    if base.spec.sampling.temperature == 0.0:
        return None
    if lossy_mode(cand.spec) is not None:
        return None  # lossy by design: the quality gates decide
    counts = []
    for arm in (base, cand):
        ok = [s for s in arm.first if s.status == "ok"]
        cut = sum(s.finish_reason == "length" for s in ok)
        counts.append((cut, len(ok) - cut))
    if min(sum(c) for c in counts) == 0:
        return None
    p = float(fisher_exact(counts).pvalue)
    (bc, bf), (cc, cf) = counts
    data = {"base_cut": bc, "base_n": bc + bf, "cand_cut": cc, "cand_n": cc + cf, "p_value": p}
    shares = f"cut at max_tokens: baseline {bc}/{bc + bf}, candidate {cc}/{cc + cf}"
    if p <= reject_level(gates, look):
        return Reason(
            gate="quality.distribution",
            status="reject",
            message=f"output distribution shifted ({shares}; Fisher p = {p:.3g}): lossless "
            "speculation must not change what the model says",
            data=data,
        )
    return Reason(
        gate="quality.distribution",
        status="info",
        message=f"no shift in finish reasons ({shares}; Fisher p = {p:.3g})",
        data=data,
    )


def _passed(s: SampleRecord | None) -> bool:
    return s is not None and s.passed


def _outcome(s: SampleRecord | None) -> str:
    if s is None:
        return "missing"
    if s.status != "ok":
        return s.status
    return s.score.outcome if s.score is not None else "unscored"


def _excluded(
    shared: Sequence[str], b_by: dict[str, SampleRecord], c_by: dict[str, SampleRecord]
) -> Reason:
    """The shared samples left out of quality pairing because an arm's request failed, with
    the failure kinds per arm."""
    kinds: dict[str, dict[str, int]] = {"baseline": {}, "candidate": {}}
    left = 0
    for i in shared:
        b, c = b_by[i], c_by[i]
        if b.status == "ok" and c.status == "ok":
            continue
        left += 1
        for name, sample in (("baseline", b), ("candidate", c)):
            kind = failure_kind(sample.status, sample.error)
            if kind is not None:
                kinds[name][kind] = kinds[name].get(kind, 0) + 1
    parts = [
        f"{name}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        for name, counts in kinds.items()
        if counts
    ]
    message = (
        f"{left} of {len(shared)} paired samples excluded from quality, not answered on both "
        f"arms ({'; '.join(parts)})"
        if left
        else f"all {len(shared)} paired samples answered on both arms"
    )
    return Reason(
        gate="quality.pairing",
        status="info",
        message=message,
        data={"excluded": left, "shared": len(shared), "kinds": kinds},
    )


def _quality(
    base: Arm, cand: Arm, gates: Gates, look: LookShare | None = None
) -> tuple[str, list[Reason], tuple[DiscordantSample, ...], float | None, float | None]:
    """Quality outcome (pass | reject | inconclusive), reasons, supplement and pass rates."""
    from scipy.stats import norm

    b_by = {s.sample_id: s for s in base.first}
    c_by = {s.sample_id: s for s in cand.first}
    scored = any(s.score is not None for s in (*base.first, *cand.first))
    if not scored:
        msg = f"no quality signal: suite {base.spec.suite} has no scorer, so quality is unknown"
        if not any(s.status == "ok" for s in (*base.first, *cand.first)):
            msg = "no quality signal: no request was answered, so nothing was scored"
        return (
            "inconclusive",
            [Reason(gate="quality.signal", status="inconclusive", message=msg)],
            (),
            None,
            None,
        )
    shared = sorted(b_by.keys() & c_by.keys())
    # A failed request says nothing of the output's quality (the failures gate counts it):
    # quality pairs only the samples answered on both arms, and says what it left out.
    ids = [i for i in shared if b_by[i].status == "ok" and c_by[i].status == "ok"]
    excluded = _excluded(shared, b_by, c_by)
    table = {"both_pass": 0, "base_only": 0, "cand_only": 0, "both_fail": 0}
    supplement: list[DiscordantSample] = []
    for i in ids:
        bp, cp = _passed(b_by[i]), _passed(c_by[i])
        key = ("both_pass" if cp else "base_only") if bp else ("cand_only" if cp else "both_fail")
        table[key] += 1
        if bp != cp:
            supplement.append(
                DiscordantSample(
                    sample_id=i,
                    base_passed=bp,
                    cand_passed=cp,
                    base_outcome=_outcome(b_by[i]),
                    cand_outcome=_outcome(c_by[i]),
                    base_text=b_by[i].text,
                    cand_text=c_by[i].text,
                )
            )
    n = len(ids)
    if n == 0:
        msg = "no paired samples: the two runs share no sample ids"
        if shared:
            msg = f"no paired samples: none of {len(shared)} shared samples {excluded.message}"
        return (
            "inconclusive",
            [Reason(gate="quality.signal", status="inconclusive", message=msg)],
            (),
            None,
            None,
        )
    base_rate = (table["both_pass"] + table["base_only"]) / n
    cand_rate = (table["both_pass"] + table["cand_only"]) / n
    reasons: list[Reason] = [excluded] if excluded.data["excluded"] else []
    # One rejection budget (alpha) for a candidate that is truly as good: the finish-reason
    # test spends alpha/2, and McNemar and the score interval, which test the same drop, alpha/4
    # each in the harmful direction (two-sided at alpha/2).
    # at a sequential look the fixed-n tests get the look's share of their level; past the
    # declared looks none is left, and they describe without deciding
    r_level = reject_level(gates, look)
    can_reject = r_level > 0
    mc = mcnemar_exact(
        table["base_only"], table["cand_only"], r_level if can_reject else reject_level(gates)
    )
    mc_data = {"b": mc.b, "c": mc.c, "p_value": mc.p_value, "min_attainable_p": mc.min_attainable_p}
    drop_significant = can_reject and mc.significant and mc.b > mc.c
    if not can_reject:
        assert look is not None
        reasons.append(
            Reason(
                gate="quality.mcnemar",
                status="info",
                message=f"{mc.d} discordant pairs, p = {mc.p_value:.3g}; no REJECT: "
                f"{look.describe()}",
                data=mc_data,
            )
        )
    elif mc.vacuous:
        reasons.append(
            Reason(
                gate="quality.mcnemar",
                status="vacuous",
                message=f"vacuous ({mc.d} discordant pairs, min attainable p = "
                f"{mc.min_attainable_p:.3g} > its level {level_text(r_level)})",
                data=mc_data,
            )
        )
    elif drop_significant:
        reasons.append(
            Reason(
                gate="quality.mcnemar",
                status="reject",
                message=f"significant drop (baseline-only passes {mc.b}, candidate-only "
                f"{mc.c}, p = {mc.p_value:.3g})",
                data=mc_data,
            )
        )
    else:
        reasons.append(
            Reason(
                gate="quality.mcnemar",
                status="pass",
                message=f"no significant drop ({mc.d} discordant pairs, p = {mc.p_value:.3g})",
                data=mc_data,
            )
        )
    ni = paired_noninferiority(
        **table, margin=gates.margin, alpha=r_level if can_reject else reject_level(gates)
    )
    # Non-inferiority: a design fixed before its first sample (no declared looks) is decided by
    # Tango's score test at the look's share of its level, at full power (80% power at about
    # 205 pairs where betting needs 510, 5% discordant); the looks of a sequential design by
    # betting, anytime-valid over them. Re-runs of a fixed design on other samples or seeds are
    # looks too, each with its share (``stats.looks.rerun_share``). ``resample`` spends a share
    # kept from the start (so that a resample after an undecided verdict is one more test
    # under the same budget, not a second full-alpha look).
    reserve = gates.resample_reserve(cand.spec.sampling.temperature)
    diffs = {i: int(_passed(c_by[i])) - int(_passed(b_by[i])) for i in ids}
    ni_data: dict[str, object] = {
        "resample_reserve": reserve,
        **NonInferiorityFigures(
            drop=ni.drop, lower=ni.lower, upper=ni.upper, margin=ni.margin
        ).model_dump(),
        "n": ni.n,
        "decision": ni.decision,
        "decidable": ni.decidable,
    }
    if (look is None or look.undeclared) and n >= TANGO_MIN_PAIRS:
        share = 1.0 if look is None else look.share
        level = gates.alpha / 2 * (1.0 - reserve) * share
        fixed = paired_noninferiority(**table, margin=gates.margin, alpha=2 * level)
        p_one = float(norm.cdf(tango_statistic(gates.margin, fixed.base_only, fixed.cand_only, n)))
        decided = fixed.upper < gates.margin and fixed.decision != "reject"
        ni_data |= {
            "rule": "tango",
            "level": level,
            "look_p_value": p_one,
            # on the scale of alpha/2, as the family control reads it
            "p_value": min(1.0, p_one / ((1.0 - reserve) * share)),
            "n_needed": fixed.n_needed,
            "upper_at_level": fixed.upper,
        }
        holds, fails = "<", ">="  # the upper bound against the margin
        bound = (
            f"Tango upper bound {pp(fixed.upper)} {{}} margin {pp(gates.margin)} at "
            f"{100 * (1 - level):.2f}% one-sided"
        )
        if fixed.n_needed is not None:
            need = f"about {fixed.n_needed} samples needed at these outcomes"
        else:
            need = "no sample size can pass at these outcomes"
        smallest = fixed.upper if 0.0 < fixed.upper <= 0.5 else None
        ni_data["smallest_margin"] = smallest
        decidable = (
            f"these data decide a margin of {pp(smallest)}"
            if smallest is not None
            else "these data decide no margin up to 50 pp"
        )
        undecided_tail = f"{need}; {decidable}"
    else:
        # a fixed design's re-run (below TANGO_MIN_PAIRS) is a new sequence: it bets at its
        # look's share; the looks of a sequential design extend one sequence and share none
        share = look.share if look is not None and look.undeclared else 1.0
        level = gates.alpha / 2 * (1.0 - reserve) * share
        # in a random order drawn when the candidate's execution was created
        # (``verdict.order``), never the suite's: a suite whose losses sit late would otherwise
        # pass on its early wealth
        head = cand.manifests[0] if cand.manifests else None
        seed = order_seed(cand.run_ids[0] if cand.run_ids else "", head)
        design = head.sequential if head is not None else None
        order = betting_order(
            ids,
            seed,
            [s.sample_id for s in cand.first],
            design.batch if design else None,
            design.looks if design else None,
        )
        bet = betting_noninferiority([diffs[i] for i in order], gates.margin, level)
        decided = bet.decided
        ni_data |= {
            "rule": "betting",
            "level": level,
            # on the scale of alpha/2, as the family control reads it
            "p_value": min(1.0, bet.p_value / ((1.0 - reserve) * share)),
            "e_value": bet.max_wealth,
            "smallest_margin": bet.smallest_margin,
            "n_needed": bet.n_needed,
            "order": seed,
        }
        holds, fails = ">=", "<"  # the e-value against 1 / level
        bound = f"e-value {bet.max_wealth:.3g} {{}} {1 / level:g} at margin {pp(ni.margin)}"
        need = (
            f"about {bet.n_needed} samples needed at these outcomes"
            if bet.n_needed is not None
            else f"no sample size up to {MAX_NEEDED:,} can pass at these outcomes"
        )
        decidable = (
            f"these data decide a margin of {pp(bet.smallest_margin)}"
            if bet.smallest_margin is not None
            else "these data decide no margin up to 50 pp"
        )
        undecided_tail = f"{need}; {decidable}"
    if not ni.decidable and base_rate == 0.0 and cand_rate == 0.0:
        msg = (
            f"no quality signal: both arms pass 0 of {n} samples, so the suite says nothing "
            "about this model"
        )
        reasons.append(
            Reason(gate="quality.noninferiority", status="inconclusive", message=msg, data=ni_data)
        )
        outcome = "reject" if drop_significant else "inconclusive"
        return outcome, reasons, tuple(supplement), base_rate, cand_rate
    drop = f"drop {pp(ni.drop)} [{pp(ni.lower)}, {pp(ni.upper)}]"
    if reserve > 0:
        bound += f", {100 * reserve:.0f}% of alpha kept for resample"
    if ni.decision == "reject" and can_reject:
        msg = f"reject ({drop}: lower bound > 0; n = {n})"
        status = "reject"
    elif decided:
        msg = f"pass ({bound.format(holds)}; {drop}; n = {n})"
        status = "pass"
    else:
        msg = f"inconclusive ({bound.format(fails)}; {drop}; n = {n}; {undecided_tail})"
        status = "inconclusive"
    reasons.append(Reason(gate="quality.noninferiority", status=status, message=msg, data=ni_data))
    gained = can_reject and mc.significant and mc.c > mc.b
    if gained and lossy_mode(cand.spec) is None:
        # lossless means equal: a method that must reproduce the target's outputs (or their
        # distribution) cannot be significantly better either; the arms are not comparable
        reasons.append(
            Reason(
                gate="quality.lossless",
                status="invalid",
                message=f"a lossless method passed significantly more samples than the baseline "
                f"(candidate-only {mc.c}, baseline-only {mc.b}, p = {mc.p_value:.3g}): the arms "
                "are not comparable (a broken baseline, an engine fault, another model), not "
                "better",
                data=mc_data,
            )
        )
    if status == "reject" or drop_significant:
        outcome = "reject"
    elif status == "pass":
        outcome = "pass"
    else:
        outcome = "inconclusive"
    return outcome, reasons, tuple(supplement), base_rate, cand_rate


def _judge_quality(pair: Pair, found: Findings) -> None:
    outcome, reasons, supplement, base_rate, cand_rate = _quality(
        pair.base, pair.cand, pair.gates, pair.look
    )
    found.add(*reasons)
    found.quality = Quality(outcome, supplement, base_rate, cand_rate)


def _judge_distribution(pair: Pair, found: Findings) -> None:
    shift = _distribution(pair.base, pair.cand, pair.gates, pair.look)
    found.add(shift)
    if shift is not None and shift.status == "reject":
        found.quality = replace(found.quality, outcome="reject")


QUALITY = Gate("quality", _judge_quality)
DISTRIBUTION = Gate("distribution", _judge_distribution)
