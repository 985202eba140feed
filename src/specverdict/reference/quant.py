"""Weight quantization, simulated: quantize to a low-precision format, then dequantize to float64.

The engine still computes in float64; what changes is the set of values the weights can take,
which is what moves a model's outputs (and a draft's agreement with its target) on real hardware.

- ``bf16``: round to nearest even on the top 16 bits of the float32 pattern.
- ``fp8`` (OCP FP8 E4M3, as in vLLM's fp8 weights): per output channel, scale = amax / 448;
  values on the E4M3 grid (exponent bias 7, 3 mantissa bits, subnormal step 2^-9, max 448).
- ``nvfp4`` (NVIDIA NVFP4): E2M1 values {0, 0.5, 1, 1.5, 2, 3, 4, 6} in blocks of 16 along the
  input dimension, each block with an E4M3 scale, and one float32 scale per tensor so that the
  block scales fit E4M3's range (block scale = amax_block / 6 / tensor scale, rounded to E4M3).
- ``int4``: symmetric per group of 32 along the input dimension, scale = amax / 7, values -8..7.

Rounding is to nearest, ties to even (``numpy.rint``), as the reference converters do.
References: Micikevicius P. et al. (2022), "FP8 formats for deep learning", arXiv 2209.05433;
OCP Microscaling Formats (MX) v1.0 specification (E2M1, E4M3); NVIDIA, "Introducing NVFP4"
(2025) for the two-level scaling.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from specverdict.reference.options import SCHEMES, Scheme

F64 = NDArray[np.float64]

E4M3_MAX = 448.0
E2M1_MAX = 6.0
NVFP4_BLOCK = 16
INT4_GROUP = 32


def round_bf16(x: F64) -> F64:
    """Round to bfloat16 (nearest, ties to even), returned as float64."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def round_e4m3(x: F64) -> F64:
    """Round to the nearest FP8 E4M3 value, saturating at ±448 (no infinities in E4M3)."""
    a = np.abs(np.asarray(x, dtype=np.float64))
    # exponent of each value, clamped to the normal range [-6, 8]; below 2^-6 the step is fixed
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.clip(e, -6, 8)
    step = np.exp2(e - 3)
    q = np.minimum(np.rint(a / step) * step, E4M3_MAX)
    out: F64 = np.copysign(q, x)
    return out


_E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


_E2M1_MID = (_E2M1[1:] + _E2M1[:-1]) / 2


def round_e2m1(x: F64) -> F64:
    """Round to the nearest FP4 E2M1 value (ties to the even code), saturating at ±6."""
    a = np.minimum(np.abs(np.asarray(x, dtype=np.float64)), E2M1_MAX)
    # code j covers (mid[j-1], mid[j]]; a value exactly on mid[j] goes to the even of j, j+1
    code = np.searchsorted(_E2M1_MID, a, side="left")
    on_mid = (code < len(_E2M1_MID)) & (a == _E2M1_MID[np.minimum(code, len(_E2M1_MID) - 1)])
    code = code + (on_mid & (code % 2 == 1))
    out: F64 = np.copysign(_E2M1[code], x)
    return out


def _blocks(w: F64, size: int) -> tuple[F64, int]:
    """Rows of ``size`` along the input dimension (axis 0 of a [in, out] matrix), zero-padded."""
    t = np.ascontiguousarray(w.T)  # [out, in]: blocks run along the input dimension
    pad = (-t.shape[1]) % size
    if pad:
        t = np.pad(t, ((0, 0), (0, pad)))
    return t.reshape(t.shape[0], -1, size), pad


def _unblocks(b: F64, pad: int, shape: tuple[int, ...]) -> F64:
    t = b.reshape(b.shape[0], -1)
    if pad:
        t = t[:, :-pad]
    out: F64 = np.ascontiguousarray(t.T).reshape(shape)
    return out


def _nvfp4(blocks: F64, amax: F64 | float) -> F64:
    """E2M1 blocks with E4M3 block scales under the second-level scale ``amax / (448 * 6)``:
    one for the whole tensor (a float), or one per output row (an array ``[rows, 1, 1]``)."""
    amax_t = np.broadcast_to(np.asarray(amax, dtype=np.float64), (blocks.shape[0], 1, 1))
    tensor_scale = np.where(amax_t > 0, amax_t / (E4M3_MAX * E2M1_MAX), 1.0)
    amax_b = np.abs(blocks).max(axis=-1, keepdims=True)
    block_scale = round_e4m3(amax_b / E2M1_MAX / tensor_scale) * tensor_scale
    safe = np.where(block_scale > 0, block_scale, 1.0)
    out: F64 = np.where(block_scale > 0, round_e2m1(blocks / safe) * safe, 0.0)
    return out


def fake_quantize(w: F64, scheme: Scheme) -> F64:
    """Quantize-dequantize a weight stored ``[in, out]`` (GPT-2's Conv1D layout) or a vector."""
    w = np.asarray(w, dtype=np.float64)
    if scheme == "none":
        return w
    if scheme == "bf16":
        return round_bf16(w)
    if w.ndim != 2:
        raise ValueError(f"{scheme} quantizes matrices, got shape {w.shape}")
    if scheme == "fp8":
        amax = np.abs(w).max(axis=0, keepdims=True)  # per output channel
        scale = np.where(amax > 0, amax / E4M3_MAX, 1.0)
        out: F64 = round_e4m3(w / scale) * scale
        return out
    if scheme == "nvfp4":
        blocks, pad = _blocks(w, NVFP4_BLOCK)
        return _unblocks(_nvfp4(blocks, np.abs(w).max()), pad, w.shape)
    if scheme == "int4":
        blocks, pad = _blocks(w, INT4_GROUP)
        amax = np.abs(blocks).max(axis=-1, keepdims=True)
        scale = np.where(amax > 0, amax / 7.0, 1.0)
        q = np.clip(np.rint(blocks / scale), -8, 7) * scale
        return _unblocks(q, pad, w.shape)
    raise ValueError(f"unknown quantization {scheme!r}; known: {', '.join(SCHEMES)}")


def quantize_activations(x: F64, scheme: Scheme) -> F64:
    """Quantize-dequantize activations ``[rows, features]`` the way a low-precision GEMM reads
    them: per row for ``fp8`` (one E4M3 scale per token), in blocks of 16 features for ``nvfp4``
    (W4A4), in groups of 32 for ``int4``; ``bf16`` rounds; ``none`` returns ``x``.

    Every row is quantized on its own, so a token's activations never depend on which other
    sequences share its batch: for ``nvfp4`` the second-level scale is the row's own (an NVFP4
    checkpoint ships a static, calibrated activation scale that does not move with the batch
    either; a scale over the whole batch would make one request's output depend on its
    neighbours')."""
    if scheme == "none":
        return x
    if scheme == "bf16":
        return round_bf16(x)
    if scheme == "nvfp4":
        x = np.asarray(x, dtype=np.float64)
        rows = np.ascontiguousarray(x)  # [rows, features]: blocks run along the features
        pad = (-rows.shape[1]) % NVFP4_BLOCK
        if pad:
            rows = np.pad(rows, ((0, 0), (0, pad)))
        blocks = rows.reshape(rows.shape[0], -1, NVFP4_BLOCK)
        amax = np.abs(blocks).max(axis=(1, 2), keepdims=True)
        q = _nvfp4(blocks, amax).reshape(rows.shape[0], -1)
        out_rows: F64 = q[:, : x.shape[1]] if pad else q
        return np.ascontiguousarray(out_rows)
    out: F64 = np.ascontiguousarray(fake_quantize(np.ascontiguousarray(x.T), scheme).T)
    return out
