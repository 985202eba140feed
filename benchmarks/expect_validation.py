"""Validate ``specverdict expect``'s predictor against the reference engine's measured speed-ups.

In-process (no HTTP), greedy, concurrency 1, device time model ``accel-8b``: the built-in suite's
16 prompts are decoded with ``none`` and ``draft_model`` at k = 1..4 on the dense and on the MoE
(8 experts, top 2) target. Measured per configuration, in the device model's time
(``EngineCore.modeled_s``: the roofline time of the work each step really did, which the host's
load does not move): tokens per engine step, step time relative to ``none`` R_meas, and the
speed-up S_meas = throughput / throughput of ``none``. The wall-clock speed-up on this host
(S wall) is shown beside it; on a shared CPU it moves with the other load.

Two predictions per k, each through :func:`specverdict.verdict.expect.resolve_inputs` and
:func:`~specverdict.verdict.expect.expect` (the code behind the CLI):

- **naive**: what a user can say before measuring costs: c_verify = 1 (a verify pass costs one
  decode step) and c_draft = draft bytes / target bytes from the checkpoint inventories
  (:func:`~specverdict.audit.inventory.inventory_checkpoint`).
- **fitted**: R(k) = c_verify + k·c_draft fitted on the measured step costs at k = 1 and k = 4
  (so k = 2, 3 are out of sample).

Both use the per-position conditional acceptance measured in the k = 4 run, truncated to k (so
acceptance is out of sample for k = 1..3). The error is (S_pred - S_meas) / S_meas.

    python benchmarks/expect_validation.py [--max-tokens 48] [--targets dense,moe] [--repeats 1]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field

from specverdict.audit.inventory import inventory_checkpoint
from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.engine import EngineCore, GenerationRequest, RequestOutput
from specverdict.reference.model import MoESpec
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.weights import shipped
from specverdict.suites import get_suite
from specverdict.verdict.expect import expect, resolve_inputs

KS = (1, 2, 3, 4)


@dataclass
class Tally:
    tokens: int = 0
    steps: int = 0  # engine iterations (one request in flight: one step each)
    wall_s: float = 0.0
    modeled_s: float = 0.0  # the device model's time for the steps (host load does not move it)
    spec_steps: int = 0
    reached: list[int] = field(default_factory=lambda: [0] * 8)  # position i drafted, i-1 accepted
    accepted_at: list[int] = field(default_factory=lambda: [0] * 8)  # position i accepted


def make(target: str, k: int | None) -> EngineCore:
    spec = {"method": "draft_model", "num_speculative_tokens": k} if k else None
    return EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="validate",
            speculative=SpeculativeConfig.model_validate(spec) if spec else None,
            moe=MoESpec(num_experts=8, top_k=2) if target == "moe" else None,
            device_model="accel-8b",
        )
    )


def run(core: EngineCore, prompts: list[str], max_tokens: int) -> Tally:
    tally = Tally()
    m0 = core.modeled_s
    t0 = time.perf_counter()
    for i, prompt in enumerate(prompts):
        state = core.start(
            GenerationRequest(
                f"r{i}",
                tuple(core.tokenizer.encode(prompt)),
                max_tokens,
                SamplingParams(temperature=0.0),
            )
        )
        while True:
            (out,) = core.step_batch([state])
            tally.steps += 1
            assert isinstance(out, RequestOutput), out
            if out.finish_reason is None:
                continue
            tally.tokens += out.completion_tokens
            if out.spec is not None:
                for drafted, accepted in zip(
                    out.spec.per_step_drafted, out.spec.per_step_accepted, strict=True
                ):
                    if drafted == 0:
                        continue
                    tally.spec_steps += 1
                    for pos in range(1, drafted + 1):
                        if accepted >= pos - 1:
                            tally.reached[pos - 1] += 1
                        if accepted >= pos:
                            tally.accepted_at[pos - 1] += 1
            break
    tally.wall_s = time.perf_counter() - t0
    tally.modeled_s = core.modeled_s - m0
    return tally


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--targets", default="dense,moe")
    ap.add_argument("--repeats", type=int, default=1, help="medians over repeats")
    args = ap.parse_args()
    prompts = [s.prompt or "" for s in get_suite("builtin-code@1").samples()]
    c_draft_naive = (
        inventory_checkpoint(shipped("draft")).total_bytes
        / inventory_checkpoint(shipped("target")).total_bytes
    )
    print(f"naive draft cost (draft bytes / target bytes) = {c_draft_naive:.3f}")
    header = (
        "| target | k | tok/step | R meas | S meas | S wall | S naive | err naive | S fitted "
        "| err fitted |"
    )
    rows = [header, "|---|---|---|---|---|---|---|---|---|---|"]
    summary = []
    for target in args.targets.split(","):
        cores = {k: make(target, k or None) for k in (0, *KS)}
        reps: dict[int, list[Tally]] = {k: [] for k in cores}
        for _ in range(args.repeats):  # alternate configurations within each repeat
            for k, core in cores.items():
                reps[k].append(run(core, prompts, args.max_tokens))
        tallies = {k: v[0] for k, v in reps.items()}  # greedy: the same tokens every repeat
        step_s = {k: statistics.median(t.modeled_s / t.steps for t in v) for k, v in reps.items()}
        tps = {k: statistics.median(t.tokens / t.modeled_s for t in v) for k, v in reps.items()}
        wall_tps = {k: statistics.median(t.tokens / t.wall_s for t in v) for k, v in reps.items()}
        r_meas = {k: step_s[k] / step_s[0] for k in KS}
        big = tallies[max(KS)]
        conditional = [
            big.accepted_at[i] / big.reached[i] if big.reached[i] else 0.0 for i in range(max(KS))
        ]
        # fit R(k) = v + k·c on the two anchors k = 1 and k = 4
        c_fit = (r_meas[4] - r_meas[1]) / 3
        v_fit = r_meas[1] - c_fit
        errs: dict[str, list[float]] = {"naive": [], "fitted": []}
        for k in KS:
            t = tallies[k]
            s_meas = tps[k] / tps[0]
            s_wall = wall_tps[k] / wall_tps[0]
            mal = t.tokens / t.steps
            preds = {}
            for name, v, c in (("naive", 1.0, c_draft_naive), ("fitted", v_fit, c_fit)):
                inputs = resolve_inputs(
                    per_position=conditional[:k], verify_cost=[v], draft_cost=max(c, 0.0)
                )
                preds[name] = expect(inputs).expected_speedup
                errs[name].append((preds[name] - s_meas) / s_meas)
            rows.append(
                f"| {target} | {k} | {mal:.2f} | {r_meas[k]:.3f} | {s_meas:.3f}x | {s_wall:.3f}x | "
                f"{preds['naive']:.3f}x | {errs['naive'][-1]:+.1%} | {preds['fitted']:.3f}x | "
                f"{errs['fitted'][-1]:+.1%} |"
            )
        summary.append(
            f"{target}: fitted R(k) = {v_fit:.3f} + k·{c_fit:.3f}; conditional acceptance "
            f"{', '.join(f'{a:.3f}' for a in conditional)}; mean |error| naive "
            f"{sum(abs(e) for e in errs['naive']) / len(KS):.1%}, fitted "
            f"{sum(abs(e) for e in errs['fitted']) / len(KS):.1%}"
        )
        print(f"{target} done", flush=True)
    print("\n".join(rows))
    print("\n".join(summary))


if __name__ == "__main__":
    main()
