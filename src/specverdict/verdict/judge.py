"""The decision rules: from the stored samples of a baseline and a candidate to a verdict.

Pure: the inputs are records, the output a :class:`PairVerdict`; resampling uses a seeded
generator. The rules (design note 005):

1. Validity. The pair must differ in one speculation axis only (``check_pair``); neither arm may
   have more than ``max_failure_rate`` of its requests failed; no execution of either arm may
   have acceptance polluted by foreign traffic; the arms must have run the same suite data and
   the same overrides, and the speculation they declared. Any breach: ``INVALID``.
2. Quality, paired by sample on the suite's pass/fail scores (samples answered on both arms).
   Non-inferiority passes by betting (``stats.sequential``): an e-value of at least 1/(alpha/2)
   against "worse by the margin", anytime-valid, so that adding samples and re-reading the
   verdict cannot raise the error; exact at any n. A significant drop rejects: the score
   (Tango) interval's lower bound above 0, or exact McNemar (vacuity reported). A lossless
   method significantly better is not comparable (INVALID). No scores, or both arms at 0%: no
   quality signal, so at best ``INCONCLUSIVE``.
3. Speed, paired by sample on the stage's speed metric (``Campaign.speed_metric``: TPOT for
   completion stages, end-to-end latency for agent and repository stages; mean over the repeats
   of each arm; gate ``speed.<metric>``, design note 023). The ratio of the metric's means
   (baseline over candidate: lower is faster) with a paired bootstrap interval, widened by run-to-run drift (the between-execution variance
   of the campaign's repeated executions, Student's t), clears when its lower bound exceeds
   max(1, ``min_speedup``) (the bar is tested, not compared with the point); it rejects when its
   upper bound is under ``min_speedup`` (slower, or a gain too small to be worth it); else
   inconclusive. Fewer than ``MIN_SPEED_SAMPLES`` pairs, or no configuration executed twice (no
   drift measured): no speed decision.
4. With sampling, a significant shift in the share of answers cut at max_tokens (Fisher exact)
   rejects a lossless candidate: its sampler changed the output distribution.
5. Acceptance, the speed-up decomposition and greedy identity are reported, never decisive.

Verdict: ``INVALID`` > ``REJECT`` > ``INCONCLUSIVE`` > ``ADOPT``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import fisher_exact, norm
from scipy.stats import t as student_t

from specverdict.campaign.model import FIXED_K_FLOOR, FIXED_K_METHODS, Gates, default_speed_metric
from specverdict.campaign.spec import PairingError, RunSpec, check_pair
from specverdict.measure.summary import (
    SPEED_METRIC_WORDS,
    counted_tokens,
    output_tokens,
    speed_value,
)
from specverdict.records import RunManifest, SampleRecord, override_drift
from specverdict.records.acceptance import AcceptanceSummary, RequestAcceptance
from specverdict.records.failures import failure_kind
from specverdict.stats import (
    decompose_speedup,
    greedy_identity,
    mcnemar_exact,
    noise_floor,
    paired_noninferiority,
    speedup_geometric_mean,
    speedup_ratio_of_means,
    tango_statistic,
    throughput_ratio,
)
from specverdict.stats.acceptance import acceptance_interval, mal_interval
from specverdict.stats.looks import LookShare
from specverdict.stats.sequential import MAX_NEEDED, betting_noninferiority
from specverdict.stats.signed_rank import min_count
from specverdict.stats.speed import (
    BlockedEstimate,
    ExecutionDrift,
    blocked_speedup,
    blocks_needed,
    execution_drift,
    interval_with_drift,
)
from specverdict.verdict.model import DiscordantSample, PairVerdict, Reason, Verdict
from specverdict.verdict.order import betting_order, order_seed

#: the fewest pairs a fixed design's non-inferiority is decided on by Tango's score test, an
#: asymptotic one (4 of 4 against 0 of 4 passes it); below, by betting, exact at any n. At 50
#: pairs worse by the margin Tango's false pass was 1.75% for 2.5% (simulated, 2,000 pairs)
TANGO_MIN_PAIRS = 50
#: methods whose greedy outputs must equal the baseline's (exact verification)
LOSSLESS_IDENTITY_FLOOR = 0.9
#: acceptance below this share of a reference (an earlier run, the campaign's expectation) is
#: a collapse worth a triage, when it is also at least TRIAGE_MIN_GAP below it
TRIAGE_RATIO = 0.75
TRIAGE_MIN_GAP = 0.05
#: minimum evidence for speed: the bootstrap under-covers on few samples (0.80 at n = 4, 0.89
#: at n = 10, 0.93 at n = 20), so fewer paired samples than this get no speed decision at all
#: (quality needs no such floor: the betting test is exact at any n)
MIN_SPEED_SAMPLES = 20


@dataclass(frozen=True)
class Arm:
    """One side of a comparison: its spec, the completed executions (repeats) used, their
    samples (one tuple per execution, in the same order) and the acceptance of the first."""

    spec: RunSpec
    run_ids: tuple[str, ...]
    samples: tuple[tuple[SampleRecord, ...], ...]
    acceptance: AcceptanceSummary | None = None
    #: per execution, in ``run_ids`` order: acceptance and run manifest (audits live there)
    acceptances: tuple[AcceptanceSummary | None, ...] = ()
    manifests: tuple[RunManifest, ...] = ()
    #: earlier executions of the same fingerprint outside this arm: (run_id, acceptance rate)
    history: tuple[tuple[str, float | None], ...] = ()

    @property
    def first(self) -> tuple[SampleRecord, ...]:
        return self.samples[0] if self.samples else ()


def _find(reasons: Sequence[Reason], gate: str) -> Reason | None:
    return next((r for r in reasons if r.gate == gate), None)


def _pp(x: float) -> str:
    return f"{100.0 * x:.1f} pp"


def _recorded(
    base: Arm, cand: Arm, field: Callable[[RunManifest], str | None]
) -> dict[str, tuple[str, str]]:
    """Each distinct value a manifest field took over both arms' executions, with the arm and
    run that first recorded it (executions that recorded none are left out)."""
    out: dict[str, tuple[str, str]] = {}
    for name, arm in (("baseline", base), ("candidate", cand)):
        for run_id, m in zip(arm.run_ids, arm.manifests, strict=False):
            value = field(m)
            if value is not None:
                out.setdefault(value, (name, run_id))
    return out


def _validity(base: Arm, cand: Arm, gates: Gates) -> list[Reason]:
    reasons: list[Reason] = []
    try:
        axes = check_pair(base.spec, cand.spec)
        reasons.append(
            Reason(
                gate="pairing",
                status="pass",
                message=f"comparable: differs in speculation only ({', '.join(axes)})",
                data={"axes": axes},
            )
        )
    except PairingError as exc:
        reasons.append(Reason(gate="pairing", status="invalid", message=str(exc)))
    for name, arm in (("baseline", base), ("candidate", cand)):
        n = len(arm.first)
        failed = sum(s.status != "ok" for s in arm.first)
        rate = failed / n if n else 1.0
        data = {"arm": name, "failed": failed, "requests": n, "rate": rate}
        if n == 0:
            msg = f"{name} has no samples"
            reasons.append(Reason(gate="failures", status="invalid", message=msg, data=data))
        elif rate > gates.max_failure_rate:
            msg = (
                f"{name}: {failed} of {n} requests failed ({100 * rate:.0f}% > "
                f"{100 * gates.max_failure_rate:.0f}% allowed)"
            )
            reasons.append(Reason(gate="failures", status="invalid", message=msg, data=data))
    for name, arm in (("baseline", base), ("candidate", cand)):
        for run_id, acc in zip(arm.run_ids, arm.acceptances or (arm.acceptance,), strict=False):
            if acc is not None and acc.polluted:
                reasons.append(
                    Reason(
                        gate="acceptance",
                        status="invalid",
                        message=f"{name} run {run_id}: {acc.why}"
                        if acc.why and acc.why.startswith("restarted")
                        else f"polluted ({name} run {run_id}): {acc.why}",
                        data={"source": acc.source, "arm": name, "run_id": run_id},
                    )
                )
    hashes = _recorded(base, cand, lambda m: m.suite_data_sha256)
    if len(hashes) > 1:
        shown = "; ".join(f"{n} run {r}: {h[:12]}" for h, (n, r) in hashes.items())
        reasons.append(
            Reason(
                gate="pairing",
                status="invalid",
                message=f"the executions ran different data of suite {cand.spec.suite} under one "
                f"version ({shown}): the samples are not the same",
                data={"hashes": {h: r for h, (_, r) in hashes.items()}},
            )
        )
    scorings = _recorded(base, cand, lambda m: m.suite_scoring)
    if len(scorings) > 1:
        shown = "; ".join(f"run {r}: {sc}" for sc, (_, r) in scorings.items())
        reasons.append(
            Reason(
                gate="pairing",
                status="invalid",
                message=f"the executions were scored by different tests ({shown}): their pass "
                "rates are not comparable; score them again with one version",
                data={"scorings": {sc: r for sc, (_, r) in scorings.items()}},
            )
        )
    reasons.extend(_clocks(base, cand))
    reasons.extend(_actual_speculation(base, cand))
    return reasons


def _clocks(base: Arm, cand: Arm) -> list[Reason]:
    """Which clock timed each execution: the host's wall clock, or the engine's modelled device
    clock (the reference engine's ``--device-clock virtual``). Speeds on different clocks are not
    comparable; speeds on the device clock are said to be modelled."""
    clocks: dict[str, list[str]] = {}
    for name, arm in (("baseline", base), ("candidate", cand)):
        for run_id, samples in zip(arm.run_ids, arm.samples, strict=False):
            ok = {s.clock for s in samples if s.status == "ok"}
            if ok:
                clock = ok.pop() if len(ok) == 1 else "mixed"
                clocks.setdefault(clock, []).append(f"{name} run {run_id}")
    if len(clocks) > 1 or "mixed" in clocks:
        shown = "; ".join(f"{c}: {', '.join(runs)}" for c, runs in sorted(clocks.items()))
        return [
            Reason(
                gate="pairing",
                status="invalid",
                message="the executions were timed on different clocks (host wall clock against "
                f"the engine's modelled device clock; {shown}): their speeds are not comparable",
                data={"clocks": clocks},
            )
        ]
    if "device" in clocks:
        return [
            Reason(
                gate="pairing",
                status="info",
                message="speed on the engine's modelled device clock (--device-clock virtual), "
                "not the host's wall clock: every token is computed for real, its time is the "
                "device model's, so the speed interval covers the modelled device's mean speed-up, "
                "not what an A/B on real hardware (with its run-to-run drift) would measure",
                data={"clock": "device"},
            )
        ]
    return []


def _clock(base: Arm, cand: Arm) -> str | None:
    """The clock the pair's answered samples were timed on (``host`` or ``device``), or
    ``mixed``; None when nothing was answered."""
    seen = {s.clock for arm in (base, cand) for run in arm.samples for s in run if s.status == "ok"}
    if not seen:
        return None
    return seen.pop() if len(seen) == 1 else "mixed"


#: the host's 1-minute load average per core above which a wall-clock measurement is said
#: to have shared the CPU
LOADED = 1.0


def _loaded(base: Arm, cand: Arm) -> Reason | None:
    """A wall-clock pair measured while the host was loaded (load average per core above
    ``LOADED`` at the end of a segment) says so: its speeds include the contention, which
    the blocks spread over both arms but which a user's production host may not have."""
    if _clock(base, cand) != "host":
        return None
    loads = [
        seg.host_load
        for arm in (base, cand)
        for m in arm.manifests
        for seg in m.segments
        if seg.host_load is not None
    ]
    if not loads or max(loads) <= LOADED:
        return None
    return Reason(
        gate="speed.host",
        status="info",
        message=f"timed on the host's wall clock while the host was loaded (load average up "
        f"to {max(loads):.2f} per core): the speeds include that contention",
        data={"max_load_per_core": max(loads)},
    )


#: how far a run's reported output tokens may stray from the harness's count of its texts
#: before its server's counts are not believed: an honest server counts a few tokens the text
#: does not hold (the end-of-sequence token, a stop string cut off), under a tenth of an answer
#: of coding length
TOKEN_TOLERANCE = 0.15


def _token_counts(base: Arm, cand: Arm) -> list[Reason]:
    """The server's ``usage.completion_tokens`` against the harness's count of the same texts
    (``engines.tokens``), per execution. Speed is measured on the counted figure either way; a
    server whose counts stray from it by more than ``TOKEN_TOLERANCE`` is not measuring what it
    says (a doubled count makes a 2x "speed-up" out of identical timing), so the pair is
    INVALID with both figures. Executions with nothing counted say so."""
    reasons: list[Reason] = []
    uncounted: list[str] = []
    for name, arm in (("baseline", base), ("candidate", cand)):
        for run_id, samples in zip(arm.run_ids, arm.samples, strict=False):
            pairs = [
                (s.completion_tokens, n)
                for s in samples
                if s.status == "ok"
                and s.completion_tokens is not None
                and (n := counted_tokens(s)) is not None
            ]
            if not pairs:
                uncounted.append(f"{name} run {run_id}")
                continue
            reported, counted = sum(r for r, _ in pairs), sum(c for _, c in pairs)
            if counted and abs(reported / counted - 1.0) <= TOKEN_TOLERANCE:
                continue
            ratio = reported / counted if counted else float("inf")
            reasons.append(
                Reason(
                    gate="speed.tokens",
                    status="invalid",
                    message=f"{name} run {run_id}: the server reported {reported:,} output "
                    f"tokens for {len(pairs)} answers whose texts count {counted:,} "
                    f"({ratio:.2f}x, beyond {TOKEN_TOLERANCE:.0%}): its token counts are not "
                    "what it sent, so its figures are not believed (speed is on the counted "
                    "tokens)",
                    data={
                        "arm": name,
                        "run_id": run_id,
                        "reported": reported,
                        "counted": counted,
                        "answers": len(pairs),
                        "tolerance": TOKEN_TOLERANCE,
                    },
                )
            )
    if uncounted and len(uncounted) == sum(len(a.run_ids) for a in (base, cand)):
        endpoint = all(m.token_counter for a in (base, cand) for m in a.manifests)
        why = (
            "the answers are agent episodes, whose turns are not counted yet"
            if endpoint and (base.manifests or cand.manifests)
            else "the server has no tokenize endpoint it could use"
        )
        reasons.append(
            Reason(
                gate="speed.tokens",
                status="info",
                message=f"output tokens not counted by the harness ({why}): speed rests on "
                "the server's usage counts",
                data={"uncounted": uncounted},
            )
        )
    return reasons


def _actual_speculation(base: Arm, cand: Arm) -> list[Reason]:
    """Declared against actual: the engine's own count of drafted tokens in each execution. A
    baseline whose server drafted, or a candidate whose server drafted nothing, did not run
    the configuration it is compared as (a launch flag or override lost when a container was
    re-created, a baseline sent to a speculating server): its speed-up, if any, is drift."""
    reasons: list[Reason] = []
    unknown: list[str] = []
    for name, arm in (("baseline", base), ("candidate", cand)):
        declared = arm.spec.speculation.method != "none"
        accs = arm.acceptances or (arm.acceptance,)
        for run_id, acc, samples in zip(arm.run_ids, accs, arm.samples, strict=False):
            answered = sum(s.status == "ok" for s in samples)
            drafted = acc.drafted if acc is not None else None
            if drafted is None or answered == 0:
                unknown.append(f"{name} run {run_id}")
                continue
            assert acc is not None and acc.draft_tokens is not None
            data = {
                "arm": name,
                "run_id": run_id,
                "declared": arm.spec.speculation.label,
                "draft_tokens": acc.draft_tokens,
                "accepted": acc.accepted,
                "requests": answered,
                "source": acc.source,
            }
            if drafted and not declared:
                msg = (
                    f"baseline run {run_id} drafted {acc.draft_tokens:g} tokens "
                    f"({acc.accepted or 0:g} accepted) in {answered} requests: the server "
                    "speculates, so it is no baseline (a speculative flag or override it should "
                    "not have)"
                )
                reasons.append(Reason(gate="speculation", status="invalid", message=msg, data=data))
            elif declared and not drafted:
                msg = (
                    f"candidate run {run_id} ({arm.spec.speculation.label}) drafted 0 tokens in "
                    f"{answered} requests: speculation is off on this server (a launch flag or "
                    "override lost, or sent to a server without it)"
                )
                findings = _audit_findings(arm.manifests)
                if findings:
                    msg += "; audits: " + "; ".join(findings)
                reasons.append(Reason(gate="speculation", status="invalid", message=msg, data=data))
    reasons += _declared_k(cand)
    if not reasons:
        checked = len(base.run_ids) + len(cand.run_ids) - len(unknown)
        msg = f"actual speculation matches the declared one in {checked} execution(s)"
        if unknown:
            msg += f"; not verifiable for {', '.join(unknown)} (the engine gave no draft counts)"
        reasons.append(
            Reason(
                gate="speculation",
                status="pass" if checked else "info",
                message=msg,
                data={"checked": checked, "unverified": unknown},
            )
        )
    return reasons


def _declared_k(cand: Arm) -> list[Reason]:
    """Declared against actual k, from the engine's own counts in each execution: drafted
    tokens per verify step (draft tokens / drafts) and the per-position counters. INVALID when
    the server drafts more per step, or counts more positions, than the declared k; when a
    fixed-k method drafts well under k per step; and when every step drafted the same number
    of tokens as there are position counters, below k (the server's cap is that number, as a
    llama.cpp server started with a smaller --spec-draft-n-max shows)."""
    sp = cand.spec.speculation
    if sp.method == "none" or sp.k is None:
        return []
    k = sp.k
    accs = cand.acceptances or (cand.acceptance,)
    reasons = []
    for run_id, acc in zip(cand.run_ids, accs, strict=False):
        if acc is None or acc.polluted or not acc.drafts or not acc.draft_tokens:
            continue
        per_step = acc.draft_tokens / acc.drafts
        positions = len(acc.accepted_per_pos)
        data = {
            "run_id": run_id,
            "declared_k": k,
            "per_step": per_step,
            "positions": positions,
            "source": acc.source,
        }
        what = (
            f"candidate run {run_id} declared {sp.label} but its engine drafted "
            f"{per_step:.2f} tokens per verify step ({acc.draft_tokens:g} in {acc.drafts:g} "
            f"steps, {positions} per-position counters)"
        )
        if per_step > k + 1e-6 or positions > k:
            why = "more than the declared k: the server runs a larger k"
        elif positions and positions < k and abs(per_step - positions) < 0.05:
            why = f"every step drafted {positions}: the server's draft cap is {positions}, not {k}"
        elif (
            sp.method in FIXED_K_METHODS
            and cand.spec.engine.kind != "llamacpp"
            and not sp.params
            and per_step < FIXED_K_FLOOR * k
        ):
            why = f"{sp.method} drafts k tokens per step: the server runs a smaller k"
        else:
            continue
        data["engine_k"] = positions or per_step
        reasons.append(
            Reason(
                gate="speculation.k",
                status="invalid",
                message=f"{what}, {why}; declare the k the server runs, or restart it with k={k}",
                data=data,
            )
        )
    return reasons


def _distribution(
    base: Arm, cand: Arm, gates: Gates, look: LookShare | None = None
) -> Reason | None:
    """With sampling (temperature > 0) a lossless method leaves the output distribution as it
    was, so the share of answers cut at max_tokens must not move: a two-sided Fisher exact test
    on (cut, finished) counts. A significant shift is a quality failure that needs no scorer (a
    sampler that ignores the temperature on the speculative path, say). At temperature 0 the
    greedy identity check covers this."""
    if base.spec.sampling.temperature == 0.0:
        return None
    if dict(cand.spec.speculation.params).get("acceptance", "exact") == "relaxed":
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


def reject_level(gates: Gates, look: LookShare | None = None) -> float:
    """The two-sided level of each test that can REJECT a candidate on quality or output
    distribution: alpha/2, so that McNemar and the score interval (the same drop, alpha/4 each
    in the harmful direction) and the finish-reason test (alpha/2) share one budget of alpha.
    At a look of a sequential campaign, the look's share of it (``stats.looks``): over the
    declared looks the shares add up to the same budget. 0 past the declared looks."""
    return gates.alpha / 2 * (1.0 if look is None else look.share)


def _level_text(level: float) -> str:
    return f"{level:.3g}"


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
                f"{mc.min_attainable_p:.3g} > its level {_level_text(r_level)})",
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
        "drop": ni.drop,
        "lower": ni.lower,
        "upper": ni.upper,
        "margin": ni.margin,
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
            f"Tango upper bound {_pp(fixed.upper)} {{}} margin {_pp(gates.margin)} at "
            f"{100 * (1 - level):.2f}% one-sided"
        )
        if fixed.n_needed is not None:
            need = f"about {fixed.n_needed} samples needed at these outcomes"
        else:
            need = "no sample size can pass at these outcomes"
        smallest = fixed.upper if 0.0 < fixed.upper <= 0.5 else None
        ni_data["smallest_margin"] = smallest
        decidable = (
            f"these data decide a margin of {_pp(smallest)}"
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
        bound = f"e-value {bet.max_wealth:.3g} {{}} {1 / level:g} at margin {_pp(ni.margin)}"
        need = (
            f"about {bet.n_needed} samples needed at these outcomes"
            if bet.n_needed is not None
            else f"no sample size up to {MAX_NEEDED:,} can pass at these outcomes"
        )
        decidable = (
            f"these data decide a margin of {_pp(bet.smallest_margin)}"
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
    drop = f"drop {_pp(ni.drop)} [{_pp(ni.lower)}, {_pp(ni.upper)}]"
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
    if gained and dict(cand.spec.speculation.params).get("acceptance", "exact") == "exact":
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


def _per_run(arm: Arm, metric: str) -> list[dict[str, float | None]]:
    """Per execution, each answered sample's value of ``metric``."""
    return [
        {s.sample_id: speed_value(s, metric) for s in run if s.status == "ok"}
        for run in arm.samples
    ]


def _mean_speeds(arm: Arm, ids: Sequence[str], metric: str = "tpot") -> np.ndarray:
    """Per sample, the mean of ``metric`` over the arm's executions that measured it (NaN if
    none)."""
    per_run = _per_run(arm, metric)
    out = np.full(len(ids), np.nan)
    for j, i in enumerate(ids):
        values = [t for run in per_run if (t := run.get(i)) is not None]
        if values:
            out[j] = float(np.mean(values))
    return out


def execution_speeds(
    arm: Arm, ids: Sequence[str] | None = None, metric: str = "tpot"
) -> list[list[float]]:
    """Each execution's values of ``metric`` on the samples (of ``ids``, default all) that
    every execution of the arm measured, in one order: the arm's contribution to
    ``execution_drift`` on that metric."""
    if ids is None:
        ids = sorted({s.sample_id for run in arm.samples for s in run})
    per_run = _per_run(arm, metric)
    common = [i for i in ids if all(run.get(i) is not None for run in per_run)]
    return [[float(run[i]) for i in common] for run in per_run]  # type: ignore[arg-type]


def execution_tpots(arm: Arm, ids: Sequence[str] | None = None) -> list[list[float]]:
    """``execution_speeds`` on TPOT."""
    return execution_speeds(arm, ids, "tpot")


def _speed(
    base: Arm,
    cand: Arm,
    gates: Gates,
    rng: np.random.Generator,
    drift: ExecutionDrift | None = None,
    look: LookShare | None = None,
    metric: str = "tpot",
) -> tuple[str, list[Reason], float | None, tuple[float, float] | None, tuple[float, float] | None]:
    """Speed outcome, reasons, point, interval and the (base, cand) mean TPOTs (for the
    speed-up decomposition, whatever the metric).

    Every figure is on ``metric`` (``measure.summary.speed_value``: lower is faster, so the
    speed-up is the baseline's mean over the candidate's), the drift too: ``drift`` must be
    on the same metric. The gate is ``speed.<metric>`` and its messages name the metric.

    The interval holds whole executions' drift as well as the samples' noise
    (``interval_with_drift``): ``drift`` is the campaign's pooled estimate when given, else the
    one these two arms' own repeated executions give; without any (no configuration executed
    twice) no speed decision can be made. At a look of a sequential campaign the interval is
    two-sided at 1 - alpha x the look's share (each side at its share of alpha/2), so that
    over the declared looks neither a false ADOPT nor a false REJECT on speed exceeds alpha/2;
    the speed p for the family is the look's p divided by its share."""
    ids = sorted({s.sample_id for s in base.first} & {s.sample_id for s in cand.first})
    b, c = _mean_speeds(base, ids, metric), _mean_speeds(cand, ids, metric)
    words = SPEED_METRIC_WORDS[metric]
    gate = f"speed.{metric}"
    units = _blocks(base, cand, ids)
    if units is not None:
        size, block_of = units
        return _speed_blocked(base, cand, gates, rng, ids, b, c, size, block_of, look, metric)
    est = speedup_ratio_of_means(b, c, rng)
    # The noise floor: the spread of the baseline's own repeats over the samples all measured.
    noise = None
    if len(base.samples) >= 2:
        repeats = []
        for by in _per_run(base, metric):
            repeats.append([by.get(i) for i in ids])
        common = [j for j in range(len(ids)) if all(r[j] is not None for r in repeats)]
        noise = noise_floor([[r[j] for j in common] for r in repeats]) if common else None
    if drift is None:
        drift = execution_drift(
            [execution_speeds(base, ids, metric), execution_speeds(cand, ids, metric)]
        )
    spend = 1.0 if look is None else look.share
    confidence = None if look is None or spend <= 0 else 1.0 - gates.alpha * spend
    widened = (
        interval_with_drift(est, drift, len(base.samples), len(cand.samples), confidence)
        if drift is not None
        else None
    )
    reasons: list[Reason] = []
    data: dict[str, object] = {
        "metric": metric,
        "point": est.point,
        "interval": None if est.interval is None else [est.interval.lower, est.interval.upper],
        "samples_interval": None
        if est.interval is None
        else [est.interval.lower, est.interval.upper],
        "n": est.n,
        "min_speedup": gates.min_speedup,
        "noise_floor": None if noise is None else noise.floor,
        "drift": None
        if drift is None
        else {
            "sd": float(np.sqrt(drift.variance)),
            "df": drift.df,
            "executions": drift.executions,
            "calibration": drift.calibration,
            "calibration_use": drift.calibration_use,
            "note": drift.note,
        },
    }
    interval = None if est.interval is None else (est.interval.lower, est.interval.upper)
    if widened is not None:
        interval = (widened.interval.lower, widened.interval.upper)
        data["interval"] = list(interval)
    means = None
    tb, tc = (b, c) if metric == "tpot" else (_mean_speeds(base, ids), _mean_speeds(cand, ids))
    finite = np.isfinite(tb) & np.isfinite(tc)
    if finite.any():
        means = (float(np.mean(tb[finite])), float(np.mean(tc[finite])))
    if est.interval is None or est.point is None:
        reasons.append(
            Reason(
                gate=gate,
                status="inconclusive",
                message=f"no speed-up figure on {words}: {est.why}",
                data=data,
            )
        )
        return "inconclusive", reasons, est.point, interval, means
    assert interval is not None
    lo, hi = interval
    ci = f"{est.point:.3f}x [{lo:.3f}, {hi:.3f}] on {words}"
    held = ""
    if drift is not None and widened is not None:
        cal = f", {drift.calibration} of a calibration" if drift.calibration else ""
        # a calibration read alone or refused says so; pooled, its count above says enough
        said = f"; {drift.note}" if drift.calibration_use in ("alone", "refused") else ""
        held = (
            f" (run-to-run drift {100 * np.sqrt(drift.variance):.1f}% from {drift.executions} "
            f"executions{cal}, df {drift.df}: {100 * widened.drift_share:.0f}% of the "
            f"variance{said})"
        )
    bar = max(1.0, gates.min_speedup)
    if look is not None and not look.undeclared and drift is not None and widened is not None:
        # futility: the drift part of the interval does not shrink with samples, only with
        # executions; when it alone keeps the interval over the bar even at a level with all
        # of alpha/2 (more lenient than any look left), no number of further samples can
        # decide speed (stopping then only gives an INCONCLUSIVE: it spends no error)
        drift_se = float(np.sqrt(drift.variance * (1 / len(base.samples) + 1 / len(cand.samples))))
        q_all = float(student_t.ppf(1 - gates.alpha / 2, widened.df))
        data["futile"] = look.index >= look.declared or bool(
            q_all * drift_se >= abs(np.log(est.point / bar))
        )
    if est.n >= MIN_SPEED_SAMPLES and widened is not None and spend > 0:
        z = (np.log(est.point) - np.log(bar)) / widened.se_log
        data["look_p_value"] = float(student_t.sf(z, widened.df))
        data["p_value"] = min(1.0, data["look_p_value"] / spend)  # type: ignore[operator]
    if look is not None:
        data["look"] = _look_data(look)
        if _said(look):
            held += f" ({look.describe()}, interval at {100 * (1 - gates.alpha * spend):.2f}%)"
    if look is not None and spend <= 0:
        status = "inconclusive"
        msg = f"speed-up {est.point:.3f}x on {words}: no speed decision at {look.describe()}"
    elif est.n < MIN_SPEED_SAMPLES:
        status = "inconclusive"
        msg = (
            f"speed-up {ci} from n = {est.n} < {MIN_SPEED_SAMPLES} paired samples: too few for "
            "the interval's coverage, no speed decision"
        )
    elif widened is None and (lo > bar or hi < gates.min_speedup):
        # the samples' interval alone treats requests as independent: it holds neither the
        # drift of whole executions nor, at concurrency > 1, the requests sharing engine steps
        # (simulated at concurrency 16 it covered 0.21), so it decides neither way
        status, msg = (
            "inconclusive",
            f"speed-up {ci} from single executions (the baseline ran once, and no other "
            "configuration twice): run-to-run drift, the variance of whole executions, is not "
            "measured, and the samples' interval alone decides neither ADOPT nor REJECT "
            "(load.baseline_repeats: 2 or more, or a calibration: specverdict calibrate)",
        )
    elif hi < gates.min_speedup:
        what = (
            "slower than the baseline"
            if hi < 1.0
            else f"gain under min_speedup {gates.min_speedup:g}"
        )
        status, msg = "reject", f"no worthwhile speed-up: {ci}{held}, {what}"
    elif lo > bar:
        # the bar is a hypothesis: the interval's lower bound must clear it, not the point
        status, msg = "pass", f"speed-up {ci}{held} clears {bar:g}"
    elif lo > 1.0:
        status, msg = (
            "inconclusive",
            f"speed-up {ci}{held} is above 1, but its lower bound does not clear min_speedup "
            f"{gates.min_speedup:g}",
        )
    else:
        status, msg = "inconclusive", f"speed-up {ci}{held} not established: it includes 1"
    if (
        status == "inconclusive"
        and drift is not None
        and widened is not None
        and est.n >= MIN_SPEED_SAMPLES
    ):
        msg += _executions_advice(est.point, widened.se_log, drift, len(base.samples), gates)
    reasons.append(Reason(gate=gate, status=status, message=msg, data=data))
    if noise is not None and noise.floor is not None:
        ratios = ", ".join(f"{r.ratio:.3f}" for r in noise.ratios)
        reasons.append(
            Reason(
                gate="speed.noise",
                status="info",
                message=f"baseline against itself (A/A): {noise.n_repeats} executions, mean "
                f"{words} ratio {ratios}",
                data={
                    "metric": metric,
                    "floor": noise.floor,
                    "ratios": [r.ratio for r in noise.ratios],
                },
            )
        )
    reasons += _speed_info(base, cand, ids, b, c, rng, metric)
    return status, reasons, est.point, interval, means


def _speed_info(
    base: Arm,
    cand: Arm,
    ids: Sequence[str],
    b: np.ndarray,
    c: np.ndarray,
    rng: np.random.Generator,
    metric: str,
) -> list[Reason]:
    """The speed figures reported beside the gate, whatever its design: the geometric mean of
    the per-sample ratios and the throughput ratio."""
    out: list[Reason] = []
    geo = speedup_geometric_mean(b, c, rng)
    if geo.point is not None:
        geo_ci = (
            "" if geo.interval is None else f" [{geo.interval.lower:.3f}, {geo.interval.upper:.3f}]"
        )
        out.append(
            Reason(
                gate="speed.geometric_mean",
                status="info",
                message=f"per-sample {SPEED_METRIC_WORDS[metric]} ratios: geometric mean "
                f"{geo.point:.3f}x{geo_ci}",
                data={"metric": metric, "point": geo.point},
            )
        )
    thr = _throughput(base, cand, ids, rng)
    if thr is not None:
        out.append(thr)
    return out


def _blocks(base: Arm, cand: Arm, ids: Sequence[str]) -> tuple[int, dict[str, int]] | None:
    """The pair's blocked design, when both arms ran one (``load.blocks``): the block size
    and each sample's block (as the baseline's first execution sent it, else the candidate's).
    None when either arm has an execution in whole executions, or the sizes differ."""
    manifests = [*base.manifests, *cand.manifests]
    if len(base.manifests) != len(base.samples) or len(cand.manifests) != len(cand.samples):
        return None
    sizes = {m.blocks.size if m.blocks is not None else None for m in manifests}
    if len(sizes) != 1 or None in sizes:
        return None
    size = sizes.pop()
    assert size is not None
    block_of: dict[str, int] = {}
    for arm in (cand, base):  # the baseline's tags win
        for s in arm.first:
            tag = s.extra.get("block")
            if isinstance(tag, int) and not isinstance(tag, bool):
                block_of[s.sample_id] = tag
    if any(i not in block_of for i in ids):
        return None
    return size, block_of


def _speed_blocked(
    base: Arm,
    cand: Arm,
    gates: Gates,
    rng: np.random.Generator,
    ids: Sequence[str],
    b: np.ndarray,
    c: np.ndarray,
    size: int,
    block_of: dict[str, int],
    look: LookShare | None,
    metric: str,
) -> tuple[str, list[Reason], float | None, tuple[float, float] | None, tuple[float, float] | None]:
    """The speed gate of a blocked design (``stats.speed.blocked_speedup``): the units are the
    blocks the arms took turns in, so the interval's degrees of freedom are the blocks' minus
    one, and a drift slower than a block cancels in each block's pair. Same rules as
    ``_speed``: the lower bound must clear max(1, ``min_speedup``), the upper bound under
    ``min_speedup`` rejects; at a look of a sequential campaign the level is the look's share
    of alpha."""
    words = SPEED_METRIC_WORDS[metric]
    gate = f"speed.{metric}"
    spend = 1.0 if look is None else look.share
    confidence = 1.0 - gates.alpha * (spend if spend > 0 else 1.0)
    order = sorted(set(block_of[i] for i in ids))
    where = {j: k for k, j in enumerate(order)}
    per: list[tuple[list[float], list[float]]] = [([], []) for _ in order]
    for i, bv, cv in zip(ids, b, c, strict=True):
        k = where[block_of[i]]
        per[k][0].append(float(bv))
        per[k][1].append(float(cv))
    est = blocked_speedup(per, confidence)
    tb, tc = (b, c) if metric == "tpot" else (_mean_speeds(base, ids), _mean_speeds(cand, ids))
    finite = np.isfinite(tb) & np.isfinite(tc)
    means = (float(np.mean(tb[finite])), float(np.mean(tc[finite]))) if finite.any() else None
    interval = None if est.interval is None else (est.interval.lower, est.interval.upper)
    data: dict[str, object] = {
        "metric": metric,
        "design": "blocks",
        "point": est.point,
        "interval": None if interval is None else list(interval),
        "n": est.n,
        "blocks": est.blocks,
        "block_size": size,
        "df": est.df,
        "block_sd": est.sd_log,
        "rule": est.rule,
        "min_speedup": gates.min_speedup,
        "confidence": confidence,
    }
    reasons: list[Reason] = []
    design = f"{est.blocks} interleaved blocks of {size} requests ({est.rule}, df {est.df}"
    if est.sd_log is not None:
        design += f", blocks' spread {100 * est.sd_log:.1f}%"
    design += ")"
    if look is not None:
        data["look"] = _look_data(look)
        if not look.undeclared:
            data["futile"] = look.index >= look.declared
        if _said(look):
            design += f" ({look.describe()}, interval at {100 * confidence:.2f}%)"
    if est.point is None or interval is None:
        msg = f"no speed-up interval on {words}: {est.blocks} block(s) with paired samples"
        least = min_count(confidence)
        if est.rule == "signed-rank" and est.blocks < least:
            msg += (
                f"; the signed-rank interval at {100 * confidence:.2f}% needs at least {least} "
                f"blocks ({least * size} samples per arm)"
            )
        reasons.append(Reason(gate=gate, status="inconclusive", message=msg, data=data))
        return "inconclusive", reasons, est.point, interval, means
    bar = max(1.0, gates.min_speedup)
    lo, hi = interval
    ci = f"{est.point:.3f}x [{lo:.3f}, {hi:.3f}] on {words} from {design}"
    look_p = est.p_above(bar)
    if look_p is not None and spend > 0:
        data["look_p_value"] = look_p
        data["p_value"] = min(1.0, look_p / spend)
    if look is not None and spend <= 0:
        status, msg = "inconclusive", f"speed-up {ci}: no speed decision at {look.describe()}"
    elif est.n < MIN_SPEED_SAMPLES:
        status, msg = (
            "inconclusive",
            f"speed-up {ci} from n = {est.n} < {MIN_SPEED_SAMPLES} paired samples: too few, no "
            "speed decision",
        )
    elif hi < gates.min_speedup:
        what = (
            "slower than the baseline"
            if hi < 1.0
            else f"gain under min_speedup {gates.min_speedup:g}"
        )
        status, msg = "reject", f"no worthwhile speed-up: {ci}, {what}"
    elif lo > bar:
        status, msg = "pass", f"speed-up {ci} clears {bar:g}"
    else:
        status = "inconclusive"
        msg = f"speed-up {ci} " + (
            f"is above 1, but its lower bound does not clear min_speedup {gates.min_speedup:g}"
            if lo > 1.0
            else "not established: it includes 1"
        )
        msg += _blocks_advice(est, size, bar, gates.min_speedup, confidence)
    reasons.append(Reason(gate=gate, status=status, message=msg, data=data))
    reasons += _speed_info(base, cand, ids, b, c, rng, metric)
    return status, reasons, est.point, interval, means


def _executions_advice(
    point: float, se_log: float, drift: ExecutionDrift, executions: int, gates: Gates
) -> str:
    """What would decide an undecided speed gate of whole executions: the executions per
    configuration whose interval, at the drift and the samples' noise measured, would clear
    the bar or fall under min_speedup if the estimate held (each added execution adds a
    degree of freedom per configuration), and the cheaper way where it exists."""
    bar = max(1.0, gates.min_speedup)
    gap = float(np.log(point / bar) if point > bar else np.log(gates.min_speedup / point))
    if gap <= 0:
        return ""
    samples_var = max(0.0, se_log**2 - drift.variance * 2.0 / max(1, executions))
    calibrate = ""
    if student_t.ppf(1 - gates.alpha / 2, drift.df) * se_log >= gap:
        # the interval at these executions, with the drift read at more degrees of freedom
        for c in range(3, 65):
            if student_t.ppf(1 - gates.alpha / 2, drift.df + c - 1) * se_log < gap:
                calibrate = (
                    f"; or, at these executions, a calibration of about {c} A/A executions "
                    f"(specverdict calibrate --executions {c}), read by every campaign on this "
                    "engine"
                )
                break
    for k in range(max(2, executions + 1), 65):
        df = drift.df + 2 * (k - executions)
        half = student_t.ppf(1 - gates.alpha / 2, df) * np.sqrt(
            samples_var + drift.variance * 2.0 / k
        )
        if half < gap:
            return (
                f"; about {k} executions per configuration (load.repeats: {k}) would decide it "
                "if the estimate held; attached servers measured in blocks (load.blocks) need "
                f"no more executions{calibrate}"
            )
    if calibrate:
        return calibrate
    return (
        "; the run-to-run drift keeps this interval wide at any number of executions up to 64: "
        "attach the servers and measure in blocks (load.blocks)"
    )


def _blocks_advice(
    est: BlockedEstimate, size: int, bar: float, min_speedup: float, confidence: float
) -> str:
    """What would decide an undecided blocked speed gate: the blocks (and samples per arm)
    whose interval, at the spread measured, would clear the bar or fall under min_speedup if
    the estimate held."""
    if est.point is None or est.sd_log is None:
        return ""
    log_point = float(np.log(est.point))
    gap = log_point - np.log(bar) if est.point > bar else np.log(min_speedup) - log_point
    need = blocks_needed(est.sd_log, float(gap), confidence)
    if need is None:
        return (
            f"; at {est.point:.3f}x the estimate sits on the bar: no number of blocks would "
            "decide it"
        )
    what = "clear the bar" if est.point > bar else f"fall under min_speedup {min_speedup:g}"
    return (
        f"; at the blocks' spread measured, about {need} blocks ({need * size} samples per "
        f"arm, {max(0, need - est.blocks)} more blocks) would {what} if the estimate held"
    )


def _throughput(
    base: Arm, cand: Arm, ids: Sequence[str], rng: np.random.Generator
) -> Reason | None:
    def cols(arm: Arm) -> tuple[list[float | None], list[float | None]]:
        by = {s.sample_id: s for s in arm.first if s.status == "ok"}
        toks = [float(output_tokens(by[i]) or 0) if i in by and by[i].e2e_s else None for i in ids]
        lat = [by[i].e2e_s if i in by and by[i].e2e_s else None for i in ids]
        return toks, lat

    bt, bl = cols(base)
    ct, cl = cols(cand)
    est = throughput_ratio(bt, bl, ct, cl, rng)
    if est.point is None:
        return None
    ci = "" if est.interval is None else f" [{est.interval.lower:.3f}, {est.interval.upper:.3f}]"
    return Reason(
        gate="speed.throughput",
        status="info",
        message=f"output throughput ratio {est.point:.3f}x{ci} at {cand.spec.load.label}",
        data={"point": est.point},
    )


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
                data={"speedup": d.speedup, "mal": d.mal, "step_cost": d.step_cost},
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
    lossless = dict(cand.spec.speculation.params).get("acceptance", "exact") != "relaxed"
    if lossless and gi.share < LOSSLESS_IDENTITY_FLOOR:
        msg += (
            " (lossless speculation should be near 100%: numerics, a lossy mode or a broken path)"
        )
    return Reason(
        gate="identity",
        status="info",
        message=msg,
        data={"share": gi.share, "divergences": {ids[d.index]: d.position for d in gi.divergences}},
    )


def _audit_findings(manifests: Sequence[RunManifest]) -> list[str]:
    """One line per audit finding recorded in the runs' manifests."""
    return list(dict.fromkeys(line for m in manifests for line in m.audits.findings()))


def _run_identity(base: Arm, run: Sequence[SampleRecord]) -> float | None:
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
        findings = _audit_findings(cand.manifests)
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


def _futility(
    look: LookShare | None,
    reasons: Sequence[Reason],
    q_outcome: str,
    s_outcome: str,
    metric: str = "tpot",
) -> Reason | None:
    """At a look of a sequential campaign, whether more samples are futile: speed cannot be
    decided at any look left (the run-to-run drift alone keeps the interval over the bar),
    so there is no ADOPT and no speed REJECT to wait for, and quality points to no REJECT
    either (the observed drop is not above 0). The pair may stop as INCONCLUSIVE."""
    if look is None or look.undeclared or s_outcome != "inconclusive" or q_outcome == "reject":
        return None
    speed, quality = _find(reasons, f"speed.{metric}"), _find(reasons, "quality.noninferiority")
    if speed is None or not speed.data.get("futile"):
        return None
    drop = quality.data.get("drop") if quality is not None else None
    if drop is not None and float(drop) > 0:
        return None
    return Reason(
        gate="sequential.futility",
        status="info",
        message="more samples cannot settle this pair: the run-to-run drift alone keeps the "
        "speed interval over the bar at every look left, and quality shows no drop to reject "
        "on; more executions (load.repeats, load.baseline_repeats) would narrow it",
        data={"look": look.index},
    )


def _look_data(look: LookShare) -> dict[str, object]:
    """A look as the gates' data record it."""
    data: dict[str, object] = {"index": look.index, "declared": look.declared, "share": look.share}
    if look.undeclared:
        data["undeclared"] = True
    return data


def _said(look: LookShare) -> bool:
    """Whether a gate's message names the look: every look of a sequential design, and the
    re-runs of a fixed one (its first reading, the usual case, only in the gates' data)."""
    return not look.undeclared or look.index > 1


def _rerun_reason(look: LookShare, gates: Gates, note: str) -> Reason:
    """A fixed design's re-run read as one more look: which, and what it spends."""
    msg = (
        f"re-run: {look.describe()}; the fixed-n gates (speed, the score tests) at "
        f"{100 * look.share:.1f}% of their level (the speed interval at "
        f"{100 * (1 - gates.alpha * look.share):.2f}%); declare the looks before the first "
        "sample (run --until-decided) to spend alpha by design"
    )
    if note:
        msg += f" ({note})"
    return Reason(gate="looks", status="info", message=msg, data=_look_data(look))


def _look_reason(look: LookShare, gates: Gates, note: str) -> Reason:
    """Which look of a sequential campaign the verdict is read at, and its boundary."""
    if look.undeclared:
        return _rerun_reason(look, gates, note)
    speed = gates.alpha / 2 * look.share
    if look.beyond:
        rule = (
            "no error left for the fixed-n gates (speed, McNemar, the score interval, Fisher): "
            "they describe, they do not decide"
        )
    else:
        rule = (
            f"speed ADOPT and REJECT each one-sided at {_level_text(speed)} (the interval at "
            f"{100 * (1 - gates.alpha * look.share):.2f}%), quality REJECT tests two-sided at "
            f"{_level_text(reject_level(gates, look))}"
        )
    msg = (
        f"sequential: {look.describe()}; {rule}; quality non-inferiority by betting, "
        "anytime-valid at every look"
    )
    if note:
        msg += f" ({note})"
    return Reason(
        gate="sequential",
        status="info",
        message=msg,
        data={
            "index": look.index,
            "declared": look.declared,
            "share": look.share,
            "speed_level": speed,
            "reject_level": reject_level(gates, look),
            "spending": "lan-demets-pocock, union bound",
        },
    )


def judge_pair(
    base: Arm | None,
    cand: Arm | None,
    gates: Gates,
    seed: int = 0,
    *,
    stage: str = "",
    baseline_label: str = "",
    candidate_label: str = "",
    suite: str = "",
    load: str = "",
    expected_acceptance: float | None = None,
    drift: ExecutionDrift | None = None,
    look: LookShare | None = None,
    look_note: str = "",
    speed_metric: str | None = None,
) -> PairVerdict:
    """Decide one pair. A missing arm (not run, or not completed) is ``INCONCLUSIVE``.
    ``expected_acceptance`` (the campaign's, for this candidate) feeds the triage only;
    ``drift`` is the campaign's pooled run-to-run drift (``execution_drift``), else the pair's
    own repeated executions give it. ``look``: the look of a sequential campaign these data
    are (``stats.looks``): every fixed-n test that can decide (speed, McNemar, the score
    interval's REJECT, Fisher) spends only that look's share of its level; the betting test of
    non-inferiority is anytime-valid and spends nothing. ``look_note`` says how the look was
    counted. ``speed_metric``: what the speed gate compares (default: the stage's default,
    ``campaign.model.default_speed_metric``); ``drift`` must be on it."""
    head = {
        "stage": stage or (cand.spec.stage if cand else ""),
        "suite": suite or (str(cand.spec.suite) if cand else ""),
        "load": load or (cand.spec.load.label if cand else ""),
        "baseline": baseline_label or (base.spec.speculation.label if base else ""),
        "candidate": candidate_label or (cand.spec.speculation.label if cand else ""),
        "baseline_run_ids": base.run_ids if base else (),
        "candidate_run_ids": cand.run_ids if cand else (),
    }
    metric = speed_metric or default_speed_metric(str(head["stage"]))
    if metric not in SPEED_METRIC_WORDS:
        raise ValueError(f"unknown speed metric {metric!r}; known: {', '.join(SPEED_METRIC_WORDS)}")
    head["speed_metric"] = metric
    if base is None or cand is None or not base.samples or not cand.samples:
        missing = [
            n for n, a in (("baseline", base), ("candidate", cand)) if a is None or not a.samples
        ]
        msg = f"no completed run for the {' and '.join(missing)}: run the campaign first"
        return PairVerdict(
            **head,
            verdict="INCONCLUSIVE",
            reasons=(Reason(gate="runs", status="inconclusive", message=msg),),
        )
    rng = np.random.default_rng(seed)
    reasons = _validity(base, cand, gates)
    if look is not None and _said(look):
        reasons.append(_look_reason(look, gates, look_note))
    q_outcome, q_reasons, supplement, base_rate, cand_rate = _quality(base, cand, gates, look)
    s_outcome, s_reasons, point, interval, means = _speed(
        base, cand, gates, rng, drift, look, metric
    )
    a_reasons, rate, mal = _acceptance(cand, means, rng)
    reasons += q_reasons + s_reasons + a_reasons
    shift = _distribution(base, cand, gates, look)
    if shift is not None:
        reasons.append(shift)
        if shift.status == "reject":
            q_outcome = "reject"
    ident = _identity(base, cand)
    if ident is not None:
        reasons.append(ident)
    acceptance_drift = _drift(cand, base)
    if acceptance_drift is not None:
        reasons.append(acceptance_drift)
    shares = {
        rid: _run_identity(base, run) for rid, run in zip(cand.run_ids, cand.samples, strict=False)
    }
    triage = _triage(cand, expected_acceptance, shares)
    if triage is not None:
        reasons.append(triage)
    futility = _futility(look, reasons, q_outcome, s_outcome, metric)
    if futility is not None:
        reasons.append(futility)
    reasons += _token_counts(base, cand)
    loaded = _loaded(base, cand)
    if loaded is not None:
        reasons.append(loaded)
    forced = [line for arm in (base, cand) for m in arm.manifests for line in m.preflight]
    if forced:
        reasons.append(
            Reason(
                gate="preflight",
                status="info",
                message="measured with --force although the server said: "
                + "; ".join(dict.fromkeys(forced)),
                data={"preflight": list(dict.fromkeys(forced))},
            )
        )
    verdict: Verdict
    if any(r.status == "invalid" for r in reasons):
        verdict = "INVALID"
    elif "reject" in (q_outcome, s_outcome):
        verdict = "REJECT"
    elif q_outcome == "pass" and s_outcome == "pass":
        verdict = "ADOPT"
    else:
        verdict = "INCONCLUSIVE"
    p_adopt = None
    q_gate, s_gate = _find(reasons, "quality.noninferiority"), _find(reasons, f"speed.{metric}")
    if q_gate and s_gate and "p_value" in q_gate.data and "p_value" in s_gate.data:
        p_adopt = max(float(q_gate.data["p_value"]), float(s_gate.data["p_value"]))
    keep_supplement = verdict != "ADOPT" or any(r.status == "vacuous" for r in reasons)
    return PairVerdict(
        **head,
        verdict=verdict,
        reasons=tuple(reasons),
        speedup=point,
        speedup_interval=interval,
        clock=_clock(base, cand),
        base_pass_rate=base_rate,
        cand_pass_rate=cand_rate,
        acceptance_rate=rate,
        mean_accepted_length=mal,
        p_adopt=p_adopt,
        supplement=supplement if keep_supplement else (),
    )
