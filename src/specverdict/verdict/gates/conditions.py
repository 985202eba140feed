"""The conditions of the measurement: token counts the server and the client agree on, a host loaded during the run, and what a forced pre-flight said."""

from __future__ import annotations

from specverdict.measure.summary import (
    counted_tokens,
)
from specverdict.verdict.gates._common import Arm, Findings, Gate, Pair, clock_of
from specverdict.verdict.model import Reason

#: the host's 1-minute load average per core above which a wall-clock measurement is said
#: to have shared the CPU
LOADED = 1.0


def _loaded(base: Arm, cand: Arm) -> Reason | None:
    """A wall-clock pair measured while the host was loaded (load average per core above
    ``LOADED`` at the end of a segment) says so: its speeds include the contention, which
    the blocks spread over both arms but which a user's production host may not have."""
    if clock_of(base, cand) != "host":
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


def _judge_tokens(pair: Pair, found: Findings) -> None:
    found.add(*_token_counts(pair.base, pair.cand))


def _judge_loaded(pair: Pair, found: Findings) -> None:
    found.add(_loaded(pair.base, pair.cand))


def _judge_preflight(pair: Pair, found: Findings) -> None:
    """What the servers' pre-flight said when the run was measured with ``--force``."""
    forced = [line for arm in (pair.base, pair.cand) for m in arm.manifests for line in m.preflight]
    if forced:
        found.add(
            Reason(
                gate="preflight",
                status="info",
                message="measured with --force although the server said: "
                + "; ".join(dict.fromkeys(forced)),
                data={"preflight": list(dict.fromkeys(forced))},
            )
        )


TOKENS = Gate("tokens", _judge_tokens)
LOADED_HOST = Gate("host", _judge_loaded)
PREFLIGHT = Gate("preflight", _judge_preflight)
