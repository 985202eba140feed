"""Validity (rule 1): pairing, failed requests, pollution, suite data, overrides, clocks and the speculation an arm declared against what its engine did."""

from __future__ import annotations

from collections.abc import Callable

from specverdict.campaign.lossy import lossy_mode
from specverdict.campaign.model import FIXED_K_FLOOR, FIXED_K_METHODS, Gates
from specverdict.campaign.spec import PairingError, check_pair
from specverdict.records import RunManifest
from specverdict.verdict.gates._common import Arm, Findings, Gate, Pair, audit_findings
from specverdict.verdict.model import Reason


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
    reasons.extend(_prompts(base, cand))
    reasons.extend(_synthetic(base, cand))
    reasons.extend(_actual_speculation(base, cand))
    return reasons


#: what SPEED-Bench's authors measured random-token prompts to overstate speculative
#: throughput by, in the words the warning gives
RANDOM_WARNING = (
    "speed judged on random-token prompts: a drafter's acceptance and speed-up on random "
    "tokens are not those of real prompts (SPEED-Bench's authors measure random tokens "
    "overstating speculative throughput by about 23%); confirm on a corpus or a real workload"
)


def _synthetic(base: Arm, cand: Arm) -> list[Reason]:
    """A synthetic stage's warnings: prompts of random tokens, and answers that stopped before
    their length (``ignore_eos`` off, or not honoured by the server)."""
    syn = cand.spec.synthetic
    if syn is None:
        return []
    reasons = []
    if syn.source == "random":
        reasons.append(
            Reason(
                gate="workload", status="info", message=RANDOM_WARNING, data={"source": "random"}
            )
        )
    early = {
        name: (
            sum(s.status == "ok" and s.finish_reason != "length" for s in arm.first),
            len(arm.first),
        )
        for name, arm in (("baseline", base), ("candidate", cand))
    }
    if any(n for n, _ in early.values()):
        shown = "; ".join(f"{name} {n} of {m}" for name, (n, m) in early.items())
        reasons.append(
            Reason(
                gate="workload",
                status="info",
                message=f"answers that stopped before their fixed length: {shown}"
                + (
                    " (ignore_eos is off)"
                    if not syn.ignore_eos
                    else " (the server did not honour ignore_eos)"
                )
                + "; their TPOT is over fewer tokens than the stage asks",
                data={name: n for name, (n, _) in early.items()},
            )
        )
    return reasons


def _prompts(base: Arm, cand: Arm) -> list[Reason]:
    """A prompt made when its run started (a synthetic stage's, cut by the engine's tokenizer)
    must be the same on every execution of the pair: the arms serve one target, so they cut
    the same prompts unless their tokenizers differ, which is checked here, not assumed."""
    seen: dict[str, dict[str, str]] = {}  # sample -> digest -> first run that sent it
    for name, arm in (("baseline", base), ("candidate", cand)):
        for run_id, samples in zip(arm.run_ids, arm.samples, strict=False):
            for s in samples:
                if s.extra.prompt_sha256 is not None:
                    seen.setdefault(s.sample_id, {}).setdefault(
                        s.extra.prompt_sha256, f"{name} run {run_id}"
                    )
    differ = sorted(k for k, digests in seen.items() if len(digests) > 1)
    if not differ:
        return []
    first = seen[differ[0]]
    shown = "; ".join(f"{where}: {d[:12]}" for d, where in first.items())
    return [
        Reason(
            gate="pairing",
            status="invalid",
            message=f"{len(differ)} of {len(seen)} prompts made at the runs' start differ "
            f"between executions (sample {differ[0]}: {shown}): the engines' tokenizers cut "
            "them differently, so the arms were not asked the same",
            data={"samples": differ[:20], "differ": len(differ), "of": len(seen)},
        )
    ]


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
                findings = audit_findings(arm.manifests)
                if findings:
                    msg += "; audits: " + "; ".join(findings)
                reasons.append(Reason(gate="speculation", status="invalid", message=msg, data=data))
    reasons += _declared_k(cand)
    reasons += _lossy(cand)
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


def _lossy(cand: Arm) -> list[Reason]:
    """A lossy mode the candidate's configuration asks for (``campaign.lossy``): INVALID when
    its outputs are not the model's (synthetic or forced acceptance), else a marker that the
    quality gates, not the lossless checks, decide."""
    mode = lossy_mode(cand.spec)
    if mode is None:
        return []
    data = {"kind": mode.kind, "setting": mode.setting}
    if not mode.judgeable:
        message = f"{mode.describe()}: neither quality nor speed can be judged; measure it without"
        return [Reason(gate="speculation.lossy", status="invalid", message=message, data=data)]
    return [Reason(gate="speculation.lossy", status="info", message=mode.describe(), data=data)]


def _declared_k(cand: Arm) -> list[Reason]:
    """Declared against actual k, from the engine's own counts in each execution: drafted
    tokens per verify step (draft tokens / drafts) and the per-position counters. INVALID when
    the server drafts more per step, or counts more positions, than the declared k; when a
    fixed-k method drafts well under k per step; and when every step drafted the same number
    of tokens as there are position counters, below k (the server's cap is that number, as a
    llama.cpp server started with a smaller --spec-draft-n-max shows).

    With a k schedule, steps run at several batch sizes (at concurrency C at most C requests,
    fewer while the load ramps up and drains), so a step drafts any k the schedule gives a
    batch of 1..C: "more" is more than the largest of them, "well under" under the smallest
    above 0 (a k of 0 is no verify step), and a cap a count below that smallest.

    With adaptive verification a step verifies 1 to k drafts per request (the drafter's
    confidence against the load decides), so only more than k per step is INVALID."""
    sp = cand.spec.speculation
    bounds = sp.k_bounds(cand.spec.load.concurrency)
    if sp.method == "none" or sp.k is None or bounds is None:
        return []
    k = sp.k
    low, high = bounds
    if sp.k_schedule is not None and low == 0:
        top = max(cand.spec.load.concurrency or 0, 1)
        low = min(
            (r[2] for r in sp.k_schedule if r[0] <= top and r[2] > 0)
            if cand.spec.load.concurrency is not None
            else (r[2] for r in sp.k_schedule if r[2] > 0),
            default=0,
        )
    declared = (
        f"k={k}" if sp.k_schedule is None else f"k_schedule={[list(r) for r in sp.k_schedule]}"
    )
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
            **(
                {"declared_k_range": [low, high]}
                if sp.k_schedule is not None or sp.adaptive_verification
                else {}
            ),
            "per_step": per_step,
            "positions": positions,
            "source": acc.source,
        }
        what = (
            f"candidate run {run_id} declared {sp.label} but its engine drafted "
            f"{per_step:.2f} tokens per verify step ({acc.draft_tokens:g} in {acc.drafts:g} "
            f"steps, {positions} per-position counters)"
        )
        at = (
            f" (the schedule's k at {_batches(cand)})"
            if sp.k_schedule is not None
            else " (adaptive verification verifies 1 to k per step)"
            if sp.adaptive_verification
            else ""
        )
        if per_step > high + 1e-6 or positions > k:
            why = f"more than the declared k{at}: the server runs a larger k"
        elif positions and positions < low and abs(per_step - positions) < 0.05:
            why = (
                f"every step drafted {positions}: the server's draft cap is {positions}, "
                f"not {low if low == high else f'{low} to {high}'}{at}"
            )
        elif (
            sp.method in FIXED_K_METHODS
            and cand.spec.engine.kind != "llamacpp"
            and not sp.params
            and per_step < FIXED_K_FLOOR * low
        ):
            why = f"{sp.method} drafts k tokens per step{at}: the server runs a smaller k"
        else:
            continue
        data["engine_k"] = positions or per_step
        reasons.append(
            Reason(
                gate="speculation.k",
                status="invalid",
                message=f"{what}, {why}; declare the k the server runs, or restart it with "
                f"{declared}",
                data=data,
            )
        )
    return reasons


def _batches(cand: Arm) -> str:
    """The batch sizes a run's steps can have, in words: 1..C at concurrency C."""
    c = cand.spec.load.concurrency
    return "any batch size" if c is None else "batch size 1" if c == 1 else f"batch sizes 1..{c}"


def _judge_validity(pair: Pair, found: Findings) -> None:
    found.add(*_validity(pair.base, pair.cand, pair.gates))


VALIDITY = Gate("validity", _judge_validity)
