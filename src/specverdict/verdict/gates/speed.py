"""Speed (rule 3): the ratio of the stage's speed metric with its interval, widened by run-to-run drift, or read by rank over blocks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from specverdict.campaign.model import Gates
from specverdict.measure.summary import (
    SPEED_METRIC_WORDS,
    output_tokens,
    speed_value,
)
from specverdict.stats import (
    noise_floor,
    speedup_geometric_mean,
    speedup_ratio_of_means,
    throughput_ratio,
)
from specverdict.stats.looks import LookShare
from specverdict.stats.signed_rank import min_count
from specverdict.stats.speed import (
    BlockedEstimate,
    ExecutionDrift,
    blocked_speedup,
    blocks_needed,
    execution_drift,
    interval_with_drift,
)
from specverdict.verdict.gates._common import Arm, Findings, Gate, Pair, Speed, look_data, look_said
from specverdict.verdict.model import Reason

#: minimum evidence for speed: the bootstrap under-covers on few samples (0.80 at n = 4, 0.89
#: at n = 10, 0.93 at n = 20), so fewer paired samples than this get no speed decision at all
#: (quality needs no such floor: the betting test is exact at any n)
MIN_SPEED_SAMPLES = 20


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
    from scipy.stats import t as student_t

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
        data["look"] = look_data(look)
        if look_said(look):
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
            if s.extra.block is not None:
                block_of[s.sample_id] = s.extra.block
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
        data["look"] = look_data(look)
        if not look.undeclared:
            data["futile"] = look.index >= look.declared
        if look_said(look):
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
    from scipy.stats import t as student_t

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


def _judge_speed(pair: Pair, found: Findings) -> None:
    outcome, reasons, point, interval, means = _speed(
        pair.base, pair.cand, pair.gates, pair.rng, pair.drift, pair.look, pair.metric
    )
    found.add(*reasons)
    found.speed = Speed(outcome, point, interval, means)


SPEED = Gate("speed", _judge_speed)
