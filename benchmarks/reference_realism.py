"""Reference engine realism: dense vs MoE target, the quantization grid, and concurrency.

In-process (no HTTP), greedy: the built-in suite's prompts are decoded by ``EngineCore.step_batch``
with C requests in flight (continuous batching: a finished request's slot is refilled at once),
so throughput = output tokens / wall time of the whole batch. Every speculative configuration is
compared with ``none`` on the same target, quantization and concurrency, run alternately in one
process. What the issue expects to see: the MoE target gains less from speculation than the dense
one at the same acceptance (its verify step routes k+1 tokens to more experts), and gains shrink
as concurrency grows (a batched step is already efficient without drafts).

    python benchmarks/reference_realism.py [--max-tokens 64] [--repeats 2] [--write RESULTS.md]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _results import write_section
from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.engine import EngineCore, GenerationRequest, RequestOutput
from specverdict.reference.model import MoESpec
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.weights import shipped
from specverdict.suites import get_suite

SECTION = "## Reference engine realism: MoE target, quantization, concurrency"


@dataclass
class Tally:
    tokens: int = 0
    wall_s: float = 0.0
    drafted: int = 0
    accepted: int = 0
    steps: int = 0


def make(target: str, quant: str, spec: dict[str, Any] | None, device: str | None) -> EngineCore:
    return EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="bench",
            speculative=SpeculativeConfig.model_validate(spec) if spec else None,
            quantization=quant,  # type: ignore[arg-type]
            moe=MoESpec(num_experts=8, top_k=2) if target == "moe" else None,
            device_model=device,
        )
    )


def run(core: EngineCore, prompts: list[str], concurrency: int, max_tokens: int) -> Tally:
    """Requests: the prompts, repeated to at least four per concurrency slot."""
    tally = Tally()
    prompts = (prompts * (1 + (4 * concurrency - 1) // len(prompts)))[
        : max(len(prompts), 4 * concurrency)
    ]
    queue = [
        GenerationRequest(
            f"r{i}", tuple(core.tokenizer.encode(p)), max_tokens, SamplingParams(temperature=0.0)
        )
        for i, p in enumerate(prompts)
    ]
    active = []
    core.pace = False  # device time is read from the model, not waited for
    t0, m0 = time.perf_counter(), core.modeled_s
    while queue or active:
        while queue and len(active) < concurrency:
            active.append(core.start(queue.pop(0)))
        outs = core.step_batch(active)
        for state, out in zip(list(active), outs, strict=True):
            assert isinstance(out, RequestOutput), out
            if out.finish_reason is not None:
                active.remove(state)
                tally.tokens += out.completion_tokens
                if out.spec is not None:
                    tally.drafted += out.spec.num_draft_tokens
                    tally.accepted += out.spec.num_accepted_draft_tokens
                    tally.steps += out.spec.num_spec_steps
    tally.wall_s = core.modeled_s - m0 if core.device is not None else time.perf_counter() - t0
    return tally


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--write", type=Path, help="replace this benchmark's section of a RESULTS.md")
    ap.add_argument(
        "--device-model",
        default="accel-8b",
        help="pace steps to this device time model ('host' = the CPU's own time)",
    )
    args = ap.parse_args()
    device = None if args.device_model == "host" else args.device_model
    prompts = [s.prompt or "" for s in get_suite("builtin-code@1").samples()]
    mtp = {"method": "mtp", "num_speculative_tokens": 2}
    ngram = {"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 2}
    grid: list[tuple[str, str, str, dict[str, Any] | None, int]] = []
    for target in ("dense", "moe"):
        for conc in (1, 4, 16, 64):
            grid += [
                (target, "bf16", "none", None, conc),
                (target, "bf16", "mtp k=2", mtp, conc),
                (target, "bf16", "ngram k=4", ngram, conc),
            ]
    for tq in ("bf16", "fp8"):
        for dq in ("bf16", "fp8", "nvfp4"):
            grid.append(("dense", tq, f"mtp k=2 draft {dq}", {**mtp, "quantization": dq}, 1))
        if tq != "bf16":
            grid.append(("dense", tq, "none", None, 1))
    cores = {(t, q, label): make(t, q, spec, device) for t, q, label, spec, _ in grid}
    results: dict[tuple[str, str, str, int], list[Tally]] = {}
    for rep in range(args.repeats):
        for t, q, label, _, conc in grid:
            tally = run(cores[(t, q, label)], prompts, conc, args.max_tokens)
            results.setdefault((t, q, label, conc), []).append(tally)
        print(f"repeat {rep + 1}/{args.repeats} done", flush=True)

    def tps(key: tuple[str, str, str, int]) -> float:
        return statistics.median(x.tokens / x.wall_s for x in results[key])

    lines = [
        "| target | weights | config | concurrency | tok/s | speed-up vs none | acceptance | MAL |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t, q, label, _, conc in grid:
        key = (t, q, label, conc)
        runs = results[key]
        drafted = sum(x.drafted for x in runs)
        steps = sum(x.steps for x in runs)
        acc = f"{sum(x.accepted for x in runs) / drafted:.3f}" if drafted else "-"
        mal = f"{1 + sum(x.accepted for x in runs) / steps:.2f}" if steps else "-"
        base = tps((t, q, "none", conc))
        lines.append(
            f"| {t} | {q} | {label} | {conc} | {tps(key):.0f} | {tps(key) / base:.2f}x | "
            f"{acc} | {mal} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.write:
        body = (
            f"{SECTION}\n\n- date: {time.strftime('%Y-%m-%d')}\n- command: `python "
            f"benchmarks/reference_realism.py --max-tokens {args.max_tokens} --repeats "
            f"{args.repeats} --device-model {args.device_model} --write {args.write}`\n"
            "- workload: the 16 prompts of builtin-code@1, repeated to at least 4 requests per "
            f"concurrency slot, greedy, up to {args.max_tokens} tokens, continuous batching at "
            "the given concurrency; step "
            f"times from the device model `{args.device_model}` "
            "(`src/specverdict/reference/device.py`: `EngineCore.modeled_s`, the roofline time "
            "of the work each step did, so the host's load does not move it); medians over "
            "repeats; the baseline is "
            "`none` on the same target, weights and concurrency\n\n" + table + "\n"
        )
        write_section(args.write, SECTION, body)


if __name__ == "__main__":
    main()
