"""Simulated weight quantization: the encoders against hand-computed values, and error bounds."""

from __future__ import annotations

import numpy as np
import pytest

from specverdict.reference.quant import (
    fake_quantize,
    quantize_activations,
    round_bf16,
    round_e2m1,
    round_e4m3,
)


def test_e4m3_grid_by_hand() -> None:
    x = np.array([0.0, 1.0, 1.0625, 1.1, 1.2, 17.0, 300.0, 448.0, 500.0, -3.3, 2**-9, 2**-10])
    # 1.0625 is halfway between 1 and 1.125: ties to even mantissa (1.0); 1.1 -> 1.125;
    # 1.2 -> 1.25; 17 lies on the 2-step grid of [16, 32): 16 (tie, even); 300 -> 288
    # (step 32 in [256, 448]); saturation at 448; -3.3 -> -3.25; 2^-9 is the smallest
    # subnormal; 2^-10 is halfway to 0 and rounds to even (0).
    want = [0.0, 1.0, 1.0, 1.125, 1.25, 16.0, 288.0, 448.0, 448.0, -3.25, 2**-9, 0.0]
    assert round_e4m3(x).tolist() == want


def test_e2m1_grid_by_hand() -> None:
    x = np.array([0.2, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0, -0.6, -4.9])
    want = [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 6.0, -0.5, -4.0]
    assert round_e2m1(x).tolist() == want


def test_bf16_keeps_eight_bits_of_mantissa() -> None:
    x = np.array([1.0, 1.0 + 2**-8, 1.0 + 3 * 2**-9, 3.14159265])
    assert round_bf16(x).tolist() == [1.0, 1.0, 1.0 + 2**-7, 3.140625]


@pytest.mark.parametrize(
    "scheme, bound",
    [
        ("bf16", 2**-8),  # relative, per element
        ("fp8", 2**-4),  # relative to the channel max: half a step of 3 mantissa bits
        ("int4", 1 / 14),  # half a step of amax/7, relative to the group max
        (
            "nvfp4",
            0.25,
        ),  # E2M1 steps are up to 2 wide near 6: half a step relative to 6 is 1/6, plus scale rounding
    ],
)
def test_round_trip_within_the_format_error_bound(scheme: str, bound: float) -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 48)) * rng.uniform(0.01, 2.0, 48)  # channels of varied scale
    q = fake_quantize(w, scheme)  # type: ignore[arg-type]
    assert q.shape == w.shape and not np.array_equal(q, w)
    if scheme == "bf16":
        assert np.all(np.abs(q - w) <= bound * np.abs(w))
    else:
        ref = np.abs(w).max(axis=0)  # the channel max bounds every group/block max below it
        assert np.all(np.abs(q - w) <= bound * ref[None, :] + 1e-12)
    # quantizing twice changes nothing more (the values are on the grid)
    assert np.allclose(fake_quantize(q, scheme), q, rtol=0, atol=1e-12)  # type: ignore[arg-type]


def test_nvfp4_uses_16_element_blocks_along_the_input_dimension() -> None:
    w = np.zeros((32, 2))
    w[:16, 0] = 0.1  # block 0 of channel 0: small values
    w[16:, 0] = 6.0  # block 1 of channel 0: large values
    w[:, 1] = 1.0
    q = fake_quantize(w, "nvfp4")
    # each block has its own scale: the small block is not crushed to zero by the large one
    assert np.allclose(q[:16, 0], 0.1, rtol=0.05)
    assert np.allclose(q[16:, 0], 6.0, rtol=0.05)
    assert np.allclose(q[:, 1], 1.0, rtol=0.05)


def test_unknown_scheme_and_vectors() -> None:
    with pytest.raises(ValueError, match="unknown quantization"):
        fake_quantize(np.ones((2, 2)), "fp2")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="quantizes matrices"):
        fake_quantize(np.ones(3), "fp8")
    assert fake_quantize(np.ones(3), "none").tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("scheme", ["fp8", "nvfp4", "int4"])
def test_activation_rows_are_quantized_independently_of_their_batch(scheme: str) -> None:
    # a verify pass quantizes every row of the batch at once: one request's row must come out
    # the same whether a neighbour with 100x larger activations shares the batch or not
    rng = np.random.default_rng(3)
    row = rng.normal(size=(1, 40))
    loud = 100 * rng.normal(size=(3, 40))
    alone = quantize_activations(row, scheme)  # type: ignore[arg-type]
    batched = quantize_activations(np.vstack([loud, row]), scheme)  # type: ignore[arg-type]
    assert np.array_equal(batched[3:], alone)
    assert not np.array_equal(alone, row)  # it did quantize


def test_nvfp4_activation_row_by_hand() -> None:
    # 16 features, amax 6: second-level scale 6 / (448 * 6) = 1/448, block scale 1 (on E4M3);
    # the values then round on the E2M1 grid itself; a padded tail block is dropped again
    x = np.array([[6.0, 0.2, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, -0.6, -4.9, 0, 0, 0, 0, 0, 1.0, 2.9]])
    want = [6.0, 0.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, -0.5, -4.0, 0, 0, 0, 0, 0, 1.0]
    q = quantize_activations(x, "nvfp4")
    assert q.shape == x.shape
    assert q[0, :16].tolist() == want
    # the tail block, one value 2.9 under the row's scale 1/448: block scale
    # round_e4m3(2.9 / 6 * 448 = 216.5) = 224 (step 16 in [128, 256)), so 224/448 = 0.5;
    # 2.9 / 0.5 = 5.8 -> 6 -> 3.0
    assert q[0, 16] == 3.0
