"""An accelerator time model for the reference engine's steps (opt-in: ``--device-model``).

The engine computes every token for real, in numpy, on the host CPU. On that CPU a tiny model's
step time is dominated by per-step interpreter overhead, which is not how an accelerator
behaves: a decode step there is bound by reading the weights (memory bandwidth) until the batch
holds enough tokens to make it bound by arithmetic. That crossover is what makes speculative
gains shrink under load, and routed experts are what make an MoE target's verify step expensive.

With a device model, each engine step is *paced* to the duration a roofline gives for the work
the step really did (tokens computed, distinct experts read, draft steps run), as if the model
were ``scale`` times larger:

    t_target = max(bytes_read / bandwidth, 2 · active_params · rows / (peak_flops · rate))
    t_draft  = passes · max(draft_bytes / bandwidth, 2 · params_per_row · rows / peak_flops)
    t_step   = overhead + t_target + t_draft

The draft term counts the method's real work (``proposers.DraftWork``): an autoregressive
drafter (draft model, MTP head, EAGLE-3's layer) runs one pass per drafted token, one row per request; Medusa's
heads run one pass for all of them, reading each head used once and computing one row per head;
a block drafter (dflash) runs one pass whatever k is, computing one row per block position;
a DSpark drafter runs the block drafter's one pass plus, per block position, its rank-r Markov
correction (r x (d + V) parameters a row, a few percent of the pass); a model-free method
(n-gram, suffix) costs nothing on the device. Only the rows the target verifies are charged to
the target: with adaptive verification, fewer than the drafter computed.

``bytes_read`` counts every non-expert weight once per step plus, on an MoE target, each expert
routed to by any token of the step; bytes per parameter follow the weight format (bf16 2,
fp8 1, nvfp4 4.5 bits, int4 4.5 bits with group scales), and so does the arithmetic ``rate``: a
format with tensor-core support of its own runs its GEMMs faster than bf16 does (fp8 twice, as
on H100; nvfp4 four times, as on B200), while int4 is weight-only and computes in bf16. KV-cache
reads are not modelled. When paced, a step the host computed more slowly than the model says
takes the host's time; on the virtual clock (``--device-clock virtual``) it takes the model's.
Outputs and acceptance never depend on the device model; only timing does.
"""

from __future__ import annotations

from dataclasses import dataclass

BYTES_PER_PARAM = {"none": 2.0, "bf16": 2.0, "fp8": 1.0, "nvfp4": 0.5625, "int4": 0.5625}
#: GEMM throughput of a weight format relative to bf16 (weight-only int4 dequantizes to bf16)
COMPUTE_RATE = {"none": 1.0, "bf16": 1.0, "fp8": 2.0, "nvfp4": 4.0, "int4": 1.0}


@dataclass(frozen=True)
class DeviceModel:
    name: str
    scale: float  # virtual parameters per real parameter
    bandwidth: float  # bytes per second
    peak_flops: float  # FLOP per second
    overhead_s: float  # fixed cost of a step (launches, scheduling)

    def target_time(self, bytes_read: float, active_params_rows: float, rate: float = 1.0) -> float:
        mem = bytes_read * self.scale / self.bandwidth
        compute = 2.0 * active_params_rows * self.scale / (self.peak_flops * rate)
        return max(mem, compute)

    def draft_time(
        self, passes: int, draft_bytes: float, params_per_row: float, rows: int
    ) -> float:
        """``passes`` sequential draft passes, each reading ``draft_bytes`` and computing ``rows``
        rows (over the batch) of ``params_per_row`` parameters."""
        if passes == 0:
            return 0.0
        mem = draft_bytes * self.scale / self.bandwidth
        compute = 2.0 * params_per_row * rows * self.scale / self.peak_flops
        return passes * max(mem, compute)


#: Profiles: a model about 8B parameters large (our target times 5,000) on an accelerator whose
#: arithmetic-to-bandwidth ratio puts the memory/compute crossover near 32 tokens per step, so
#: that it shows within the concurrencies a CPU test can drive (real GPUs cross over at a few
#: hundred tokens per step).
PROFILES: dict[str, DeviceModel] = {
    "accel-8b": DeviceModel(
        "accel-8b", scale=5000.0, bandwidth=1.0e12, peak_flops=3.2e13, overhead_s=5e-4
    ),
    # The same accelerator serving a model about 2.6B large (our target times 800): a decode
    # step of about 5 ms, well above the host's own step time even on a loaded 2-core machine,
    # so that the demo's speed verdicts come from the modelled device, not from host noise.
    "accel-2b": DeviceModel(
        "accel-2b", scale=800.0, bandwidth=1.0e12, peak_flops=3.2e13, overhead_s=5e-4
    ),
    # ... serving a model about 5B large (our target times 1,600): at fp8 (one byte per weight)
    # a decode step reads what the 2.6B model reads at 16 bits, about 5 ms. Measured on 2 cores
    # at concurrency 8, the host's own step (6-9 ms) is still longer at times, so host noise
    # passes through, less than at accel-2b, where an fp8 step is about 2.5 ms.
    "accel-5b": DeviceModel(
        "accel-5b", scale=1600.0, bandwidth=1.0e12, peak_flops=3.2e13, overhead_s=5e-4
    ),
}

#: the profile whose step cost adaptive verification optimises when the engine runs without a
#: device model (the rule needs a cost of a verify row; outputs never depend on it)
DEFAULT_COST_PROFILE = "accel-2b"
