"""Train the DSpark-style drafter on the frozen target (``--dspark-steps`` of ``--heads-only``).

The backbone starts from the shipped block drafter (DSpark's backbone is a DFlash-style block
drafter); the Markov head starts at zero, so training begins where the block drafter is. Each
step distils every block position against the target's own next-token distribution with the
Markov head fed the token before the position as the target would have it (the pending token
first, then the target's top-1: drafts that were all accepted are those tokens), and trains the
confidence head with binary cross-entropy against the target's agreement with the draft at that
position, on detached inputs (the confidence head never changes the drafts). Held-out figures:
top-1 agreement per position and the confidence head's calibration (Brier score, expected
calibration error over ten bins, mean confidence against agreement per position).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file

from specverdict.lab.train.nets import GPT, BlockDrafter, DSparkDrafter

#: the Markov head's rank
DSPARK_RANK = 16
#: positions a step (the backbone starts trained, so fewer than the other modules' 1,536)
DSPARK_POSITIONS = 512
#: calibration bins of the expected calibration error
ECE_BINS = 10


def warm_start(drafter: DSparkDrafter, dflash_dir: Path) -> None:
    """Copy the shipped block drafter's weights into the backbone."""
    path = dflash_dir / "model.safetensors"
    if not path.exists():
        return
    state = {k.removeprefix("dflash."): v for k, v in load_file(str(path)).items()}
    missing, unexpected = drafter.load_state_dict(state, strict=False)
    assert not unexpected, unexpected
    assert all(m.startswith(("markov_head.", "confidence_head.")) for m in missing), missing


def _teacher(hidden: torch.Tensor, wte: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad():
        logits = hidden @ wte.T
        return F.softmax(logits, dim=-1), logits.argmax(-1)


def prev_tokens(pending: torch.Tensor, teacher_top1: torch.Tensor) -> torch.Tensor:
    """The token before each block position: the pending token, then the target's top-1 at the
    positions before (``teacher_top1`` [..., n] is the target's top-1 at each position)."""
    return torch.cat([pending[..., None], teacher_top1[..., :-1]], dim=-1)


def dspark_loss(
    target: GPT, drafter: DSparkDrafter, pool: tuple[torch.Tensor, torch.Tensor]
) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    wte_mod = target.transformer.wte
    wte = wte_mod.weight
    hidden, toks = pool

    def fn(rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
        pending = toks[rows, cols + 1]
        idx = cols[:, None] + 1 + torch.arange(drafter.n)[None]
        p, top1 = _teacher(hidden[rows[:, None], idx], wte)
        prev = prev_tokens(pending, top1)
        o, logits = drafter.block(hidden[rows, cols], wte_mod(pending), wte_mod(prev), wte)
        distill = -(p * F.log_softmax(logits, dim=-1)).sum(-1).mean()
        agree = (logits.detach().argmax(-1) == top1).float()
        conf = drafter.confidence_logit(o.detach(), logits.detach())
        return distill + F.binary_cross_entropy_with_logits(conf, agree)

    return fn


@torch.no_grad()
def dspark_evaluate(target: GPT, valid_ids: np.ndarray, drafter: DSparkDrafter) -> dict[str, Any]:
    """Held-out top-1 agreement per position (each position given that the target's top-1 came
    before it) and the confidence head's calibration against that agreement."""
    from specverdict.lab.train.optim import windows

    idx = windows(valid_ids, np.random.default_rng(54321), 8, 256)
    h = target.hidden(idx[:, :-1])
    wte = target.transformer.wte.weight
    tgt = (h @ wte.T).argmax(-1)  # tgt[:, j]: the target's prediction of token j + 1
    n = drafter.n
    t = h.shape[1] - 1 - n
    pending = idx[:, 1 : 1 + t]
    top1 = torch.stack([tgt[:, 1 + i : 1 + i + t] for i in range(n)], dim=-1)  # [b, t, n]
    prev = prev_tokens(pending, top1)
    o, logits = drafter.block(
        h[:, :t], target.transformer.wte(pending), target.transformer.wte(prev), wte
    )
    agree = (logits.argmax(-1) == top1).float()
    conf = torch.sigmoid(drafter.confidence_logit(o, logits))
    a, c = agree.reshape(-1).numpy(), conf.reshape(-1).numpy()
    bins = np.minimum((c * ECE_BINS).astype(int), ECE_BINS - 1)
    ece = sum(
        abs(float(a[bins == b].mean()) - float(c[bins == b].mean())) * float((bins == b).mean())
        for b in range(ECE_BINS)
        if (bins == b).any()
    )
    return {
        "top1_agreement_by_position": [round(float(x), 3) for x in agree.mean((0, 1))],
        "confidence_by_position": [round(float(x), 3) for x in conf.mean((0, 1))],
        "confidence_brier": round(float(((c - a) ** 2).mean()), 4),
        "confidence_ece": round(ece, 4),
        "calibration_positions": int(a.size),
    }


@torch.no_grad()
def dspark_golden(target: GPT, drafter: DSparkDrafter, tokens: list[int]) -> dict[str, Any]:
    """The greedy chain's corrected logits and confidences from the target's last hidden state
    of ``tokens`` (each position's Markov input is the top-1 drafted before it), for the numpy
    inference to be tested against."""
    idx = torch.tensor([tokens])
    h = target.hidden(idx)[0, -2]
    wte = target.transformer.wte.weight
    o = BlockDrafter.forward(drafter, h, wte[tokens[-1]])
    prev = tokens[-1]
    rows, confs = [], []
    for i in range(drafter.n):
        row = o[i] @ wte.T + drafter.markov_head(wte[prev])
        rows.append([round(x, 5) for x in row.tolist()])
        confs.append(round(float(torch.sigmoid(drafter.confidence_logit(o[i], row))), 6))
        prev = int(row.argmax())
    return {"dspark_logits": rows, "dspark_confidence": confs}


def dspark_config(drafter: DSparkDrafter, vocab: int) -> dict[str, Any]:
    return {
        "architectures": ["SpecverdictDSparkDrafter"],
        "model_type": "specverdict_dspark",
        "n_embd": drafter.ln_out.weight.shape[0],
        "vocab_size": vocab,
        "block_size": drafter.n,
        "markov_rank": drafter.rank,
        "shares": "transformer.wte.weight of the target (tied LM head and embedding)",
    }


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dspark-steps",
        type=int,
        default=0,
        help="with --heads-only: train the DSpark drafter (alone with --medusa-steps 0 "
        "--dflash-steps 0 --eagle3-steps 0, which leaves the other modules' files untouched)",
    )
