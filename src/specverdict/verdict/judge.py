"""The decision rules: from the stored samples of a baseline and a candidate to a verdict.

Pure: the inputs are records, the output a :class:`PairVerdict`; resampling uses a seeded
generator. The rules (design note 005):

1. Validity. The pair must differ in one speculation axis only (``check_pair``); neither arm may
   have more than ``max_failure_rate`` of its requests failed; no execution of either arm may
   have acceptance polluted by foreign traffic; the arms must have run the same suite data and
   the same overrides, and the speculation they declared. Any breach: ``INVALID``.
2. Quality, paired by sample on the suite's pass/fail scores (samples answered on both arms).
   Non-inferiority passes, in a fixed design of at least ``TANGO_MIN_PAIRS`` pairs, by Tango's
   score test (design note 032); otherwise by betting (``stats.sequential``): an e-value of at
   least 1/(alpha/2) against "worse by the margin", anytime-valid, so that adding samples and
   re-reading the verdict cannot raise the error; exact at any n. A significant drop rejects: the score
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

Each rule is a gate of ``verdict.gates`` (one module per family, run in the order of
``GATES``); this module composes their findings into the verdict.

Verdict: ``INVALID`` > ``REJECT`` > ``INCONCLUSIVE`` > ``ADOPT``.
"""

from __future__ import annotations

import numpy as np

from specverdict.campaign.model import Gates, default_speed_metric
from specverdict.measure.summary import (
    SPEED_METRIC_WORDS,
)
from specverdict.stats.looks import LookShare
from specverdict.stats.speed import (
    ExecutionDrift,
)
from specverdict.verdict.gates import GATES, Findings, Pair
from specverdict.verdict.gates._common import Arm, clock_of, find_reason, reject_level
from specverdict.verdict.gates.speed import execution_speeds
from specverdict.verdict.model import DecidingFigures, PairVerdict, Reason, Verdict

__all__ = ["Arm", "execution_speeds", "judge_pair", "reject_level"]


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
    pair = Pair(
        base,
        cand,
        gates,
        np.random.default_rng(seed),
        metric,
        drift=drift,
        look=look,
        look_note=look_note,
        expected_acceptance=expected_acceptance,
    )
    found = Findings()
    for gate in GATES:
        gate.judge(pair, found)
    reasons, quality, speed = found.reasons, found.quality, found.speed
    q_outcome, s_outcome = quality.outcome, speed.outcome
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
    q_gate, s_gate = (
        find_reason(reasons, "quality.noninferiority"),
        find_reason(reasons, f"speed.{metric}"),
    )
    q_p, s_p = DecidingFigures.of(q_gate), DecidingFigures.of(s_gate)
    if q_p is not None and s_p is not None:
        p_adopt = max(q_p.p_value, s_p.p_value)
    keep_supplement = verdict != "ADOPT" or any(r.status == "vacuous" for r in reasons)
    return PairVerdict(
        **head,
        verdict=verdict,
        reasons=tuple(reasons),
        speedup=speed.point,
        speedup_interval=speed.interval,
        clock=clock_of(base, cand),
        base_pass_rate=quality.base_rate,
        cand_pass_rate=quality.cand_rate,
        acceptance_rate=found.acceptance.rate,
        mean_accepted_length=found.acceptance.mal,
        p_adopt=p_adopt,
        supplement=quality.supplement if keep_supplement else (),
    )
