"""The precision the trainer computes in: bf16 autocast or fp32.

bf16 autocast pays where the CPU multiplies bf16 natively (AVX512-BF16, AMX). Where it does not
(an AVX2-only CPU), PyTorch converts every operand and the same training step takes several
times longer than in fp32: measured on a 2-core AVX2 EPYC, one target step of batch 4 took
about 20 s under bf16 autocast against about 3 s in fp32. ``auto`` therefore times one
forward and backward pass of a layer of the target's width both ways and keeps the faster.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Literal, cast

import torch

Precision = Literal["bf16", "fp32"]
CHOICES = ("auto", "bf16", "fp32")


def autocast(precision: Precision) -> AbstractContextManager[object]:
    """The context a training step's forward pass runs in."""
    if precision == "bf16":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def _seconds(step: Callable[[], None], repeats: int) -> float:
    step()  # the first call allocates and picks kernels
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - t0)
    return best


def probe(width: int = 160, rows: int = 4096, repeats: int = 3) -> dict[str, float]:
    """Seconds of one forward and backward pass through a width x 4 width MLP over ``rows``
    tokens, in each precision (the best of ``repeats``)."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(rows, width, generator=gen)
    up = torch.randn(width, 4 * width, generator=gen, requires_grad=True)
    down = torch.randn(4 * width, width, generator=gen, requires_grad=True)
    out: dict[str, float] = {}
    for precision in ("fp32", "bf16"):

        def step(precision: Precision = precision) -> None:
            with autocast(precision):
                y = torch.nn.functional.gelu(x @ up) @ down
            y.float().square().mean().backward()
            up.grad = down.grad = None

        out[precision] = round(_seconds(step, repeats), 5)
    return out


def choose(requested: str) -> tuple[Precision, dict[str, float] | None]:
    """The precision to train in, and the probe's timings when ``requested`` is ``auto``."""
    if requested in {"bf16", "fp32"}:
        return cast(Precision, requested), None
    if requested != "auto":
        raise ValueError(f"--precision: {requested!r}; expected one of {', '.join(CHOICES)}")
    timings = probe()
    return ("bf16" if timings["bf16"] < timings["fp32"] else "fp32"), timings
