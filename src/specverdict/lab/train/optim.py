"""The optimiser, its learning-rate schedule and random training windows, shared by the
trainer (``lab.train.__main__``) and the drafting heads' training (``lab.train.heads``)."""

from __future__ import annotations

import math

import numpy as np
import torch


def lr_at(step: int, steps: int, peak: float, warmup: int) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def windows(data: np.ndarray, rng: np.random.Generator, batch: int, ctx: int) -> torch.Tensor:
    starts = rng.integers(0, len(data) - ctx - 1, size=batch)
    return torch.from_numpy(np.stack([data[s : s + ctx + 1] for s in starts]).astype(np.int64))


def make_optimizer(params: list[tuple[str, torch.nn.Parameter]], lr: float) -> torch.optim.AdamW:
    decay = [p for n, p in params if p.ndim >= 2]
    no_decay = [p for n, p in params if p.ndim < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))
