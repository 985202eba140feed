"""Confidence-scheduled verification: the rule (``reference.adaptive``) on the device model's
step cost, and the engine verifying fewer drafts than it proposed under load."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from specverdict.reference.adaptive import verify_lengths
from specverdict.reference.config import EngineConfig
from specverdict.reference.device import PROFILES
from specverdict.reference.engine import EngineCore, GenerationRequest
from specverdict.reference.options import SpeculativeConfig
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.weights import shipped
from tests.unit.reference.test_decoding import stdlib_prompts

#: a drafter fairly sure of its first drafts and less of the later ones
CONFIDENCE = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.45, 0.4])


def roofline(params: float = 2.2e6, scale: float = 800.0) -> object:
    """A step's time for ``rows`` rows on accel-2b for a target of ``params`` parameters."""
    device = PROFILES["accel-2b"]

    def seconds(rows: int) -> float:
        return device.overhead_s + device.target_time(2.0 * params, params * rows)

    return seconds


def lengths_at(batch: int) -> tuple[int, ...]:
    plan = verify_lengths([CONFIDENCE] * batch, roofline())  # type: ignore[arg-type]
    return plan.lengths


def test_the_verify_length_shrinks_as_the_batch_grows() -> None:
    """While the verify pass is memory-bound an extra row is free and every draft is verified;
    past the crossover each row costs compute, and the rule keeps only the drafts whose
    cumulative confidence pays for it: fewer per request the fuller the batch."""
    by_batch = {b: lengths_at(b) for b in (1, 2, 4, 8, 16, 32, 64)}
    assert by_batch[1] == (7,) and by_batch[2] == (7, 7)
    means = [float(np.mean(by_batch[b])) for b in sorted(by_batch)]
    assert all(a >= b for a, b in itertools.pairwise(means))
    assert means[-1] < 3 and means[-1] >= 1
    thresholds = [
        verify_lengths([CONFIDENCE] * b, roofline()).threshold  # type: ignore[arg-type]
        for b in (1, 8, 32, 64)
    ]
    assert thresholds[0] == 0.0 and thresholds == sorted(thresholds) and thresholds[-1] > 0.3


def test_each_request_verifies_a_prefix_of_at_least_one_draft() -> None:
    """A confident request keeps more than an unsure one in the same step; none falls under one
    draft; a request that drafted nothing verifies nothing."""
    sure, unsure = np.full(7, 0.97), np.full(7, 0.2)
    plan = verify_lengths([sure, unsure] * 16 + [np.empty(0)], roofline())  # type: ignore[arg-type]
    assert plan.lengths[-1] == 0
    assert all(n >= 1 for n in plan.lengths[:-1])
    assert plan.lengths[0] > plan.lengths[1] == 1


def test_the_chosen_lengths_maximise_expected_tokens_per_second() -> None:
    """Against every uniform verify length at a saturated batch, the rule's is at least as good
    in expected tokens per modelled second."""
    batch, cost = 32, roofline()
    cum = np.cumprod(CONFIDENCE)

    def rate(lengths: list[int]) -> float:
        tokens = sum(1 + cum[:n].sum() for n in lengths)
        return float(tokens / cost(sum(1 + n for n in lengths)))  # type: ignore[operator]

    chosen = list(lengths_at(batch))
    assert all(rate(chosen) >= rate([n] * batch) - 1e-9 for n in range(1, 8))


def test_adaptive_verification_needs_a_confidence_signal() -> None:
    with pytest.raises(ValueError, match="enable_adaptive_verification with method 'eagle3'"):
        SpeculativeConfig.model_validate(
            {"method": "eagle3", "num_speculative_tokens": 2, "enable_adaptive_verification": True}
        )


def virtual_core(spec: dict[str, object] | None) -> EngineCore:
    return EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="reference-target",
            speculative=SpeculativeConfig.model_validate(spec) if spec else None,
            device_model="accel-2b",
            device_clock="virtual",
        )
    )


def drafts_by_step(
    adaptive: bool, batch: int, spec: dict[str, object] | None = None
) -> tuple[list[int], list[int], float, int]:
    """Every request of one batch stepped together on the virtual device clock: the drafts each
    step verified, the ones the drafter computed, the modelled seconds and the tokens."""
    core = virtual_core(
        spec
        if spec is not None
        else {
            "method": "dspark",
            "num_speculative_tokens": 7,
            "enable_adaptive_verification": adaptive,
        }
    )
    states = [
        core.start(
            GenerationRequest(
                f"r{i}", tuple(core.tokenizer.encode(p)), 16, SamplingParams(temperature=0.0)
            )
        )
        for i, p in enumerate(stdlib_prompts(batch))
    ]
    verified: list[int] = []
    proposed: list[int] = []
    active = list(states)
    while active:
        core.step_batch(active)
        for s in active:
            if s.decoder.last_proposed:
                verified.append(s.decoder.last_drafts)
                proposed.append(s.decoder.last_proposed)
        active = [s for s in active if not s.finished]
    tokens = sum(len(s.output_ids) for s in states)
    return verified, proposed, core.modeled_s, tokens


def test_the_engine_verifies_fewer_drafts_under_load_and_all_of_them_alone() -> None:
    alone, alone_proposed, _, _ = drafts_by_step(True, 1)
    assert alone == alone_proposed  # one request: the pass stays memory-bound
    loaded, proposed, _, _ = drafts_by_step(True, 24)
    assert all(1 <= v <= p <= 7 for v, p in zip(loaded, proposed, strict=True))
    assert sum(loaded) < 0.7 * sum(proposed)
    fixed, fixed_proposed, _, _ = drafts_by_step(False, 24)
    assert fixed == fixed_proposed


def test_under_load_adaptive_verification_costs_less_device_time_per_token() -> None:
    """A saturated batch on the modelled accelerator: fixed k=7 pays for seven verify rows a
    request, adaptive verification for the ones its confidence pays for; alone, the two take
    the same time."""
    *_, fixed_s, fixed_tokens = drafts_by_step(False, 24)
    *_, adaptive_s, adaptive_tokens = drafts_by_step(True, 24)
    assert fixed_tokens == adaptive_tokens  # the same outputs
    assert adaptive_s < 0.85 * fixed_s
    *_, fixed_one, _ = drafts_by_step(False, 1)
    *_, adaptive_one, _ = drafts_by_step(True, 1)
    assert adaptive_one == pytest.approx(fixed_one)
