"""Train the speculation modules that sit on the frozen target: Medusa's heads and the block
drafter (``--heads-only`` of ``python -m specverdict.lab.train``).

The target, the draft model and the MTP head are neither trained nor written: their weights
define the verdicts already recorded. The target's final hidden states are computed once for a
pool of training windows; every step then trains on a random subset of their positions against
the target's own next-token distributions (self-distillation, as Medusa-2 and EAGLE train:
acceptance is agreement with the target, not with the text). Each module is shipped beside the
others with its top-1 agreement per draft position on held-out text, recorded in
``training_report.json`` and rendered into the model card.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

from specverdict.lab.train.card import render_model_card
from specverdict.lab.train.dspark import (
    DSPARK_POSITIONS,
    DSPARK_RANK,
    dspark_config,
    dspark_evaluate,
    dspark_golden,
    dspark_loss,
    warm_start,
)
from specverdict.lab.train.nets import (
    GPT,
    BlockDrafter,
    DSparkDrafter,
    Eagle3Drafter,
    GPTShape,
    MedusaHeads,
    hidden_and_layers,
)

#: training windows whose target hidden states are computed once (rows of ``ctx + 1`` tokens)
POOL_WINDOWS = 192
#: positions per training step
POSITIONS = 1536
#: the target layers whose outputs EAGLE-3 fuses (low, middle, high of the six)
EAGLE3_LAYERS = (1, 3, 5)
#: EAGLE-3 trains on crops of windows (its layer attends): windows and crop length per step
EAGLE3_CROPS, EAGLE3_CROP = 6, 256
EAGLE3_POOL_WINDOWS = 64


def log(msg: str) -> None:
    print(f"[heads {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def load_target(path: Path) -> GPT:
    cfg = json.loads((path / "config.json").read_text())
    shape = GPTShape(
        cfg["vocab_size"], cfg["n_positions"], cfg["n_embd"], cfg["n_layer"], cfg["n_head"]
    )
    target = GPT(shape)
    target.load_state_dict(load_file(str(path / "model.safetensors")))
    target.eval()
    target.requires_grad_(False)
    return target


@torch.no_grad()
def hidden_pool(target: GPT, ids: np.ndarray, batch: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    """(final hidden states [W, T, d], tokens [W, T]) of windows ``ids`` [W, T]."""
    toks = torch.from_numpy(ids.astype(np.int64))
    hs = [target.hidden(toks[i : i + batch]) for i in range(0, len(toks), batch)]
    return torch.cat(hs), toks


def distill_loss(
    wte: torch.Tensor, outs: torch.Tensor, teacher_hidden: torch.Tensor
) -> torch.Tensor:
    """Cross-entropy of the module's distributions against the target's at the same positions."""
    with torch.no_grad():
        p = F.softmax(teacher_hidden @ wte.T, dim=-1)
    return -(p * F.log_softmax(outs @ wte.T, dim=-1)).sum(-1).mean()


def sample_positions(
    rng: np.random.Generator, w: int, t: int, n: int, depth: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` random (window, position) pairs whose ``depth + 1`` following positions exist."""
    rows = torch.from_numpy(rng.integers(0, w, size=n))
    cols = torch.from_numpy(rng.integers(0, t - 1 - depth, size=n))
    return rows, cols


def run(
    name: str,
    module: torch.nn.Module,
    loss_at: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    pool: tuple[torch.Tensor, torch.Tensor],
    steps: int,
    depth: int,
    lr: float,
    seed: int,
    positions: int = POSITIONS,
) -> float:
    from specverdict.lab.train.optim import lr_at, make_optimizer

    hidden, _ = pool
    w, t = hidden.shape[0], hidden.shape[1]
    params = list(module.named_parameters())
    opt = make_optimizer(params, lr)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps, lr, warmup=max(1, steps // 20))
        rows, cols = sample_positions(rng, w, t, positions, depth)
        loss = loss_at(rows, cols)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for _, p in params], 1.0)
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            log(
                f"{name} step {step}/{steps} loss {loss.item():.3f} {time.perf_counter() - t0:.0f}s"
            )
    return time.perf_counter() - t0


def medusa_loss(
    target: GPT, heads: MedusaHeads, pool: tuple[torch.Tensor, torch.Tensor]
) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    wte = target.transformer.wte.weight
    hidden, _ = pool

    def fn(rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
        outs = heads(hidden[rows, cols])
        # head i, from h_s, drafts token s+2+i: the target predicts it from h_{s+1+i}
        total = sum(distill_loss(wte, o, hidden[rows, cols + 1 + i]) for i, o in enumerate(outs))
        return torch.as_tensor(total) / len(outs)

    return fn


def dflash_loss(
    target: GPT, drafter: BlockDrafter, pool: tuple[torch.Tensor, torch.Tensor]
) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    wte = target.transformer.wte.weight
    hidden, toks = pool

    def fn(rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
        emb = target.transformer.wte(toks[rows, cols + 1])
        outs = drafter(hidden[rows, cols], emb)  # [n, block, d]
        idx = cols[:, None] + 1 + torch.arange(drafter.n)[None]
        teacher = hidden[rows[:, None], idx]
        return distill_loss(wte, outs, teacher)

    return fn


def eagle3_loss(
    target: GPT, drafter: Eagle3Drafter, pool: tuple[torch.Tensor, torch.Tensor, torch.Tensor]
) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    wte = target.transformer.wte.weight
    hidden, feats, toks = pool

    def fn(rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
        rows, starts = rows[:EAGLE3_CROPS], cols[:EAGLE3_CROPS]
        span = starts[:, None] + torch.arange(EAGLE3_CROP)[None]
        g = drafter.fc(feats[rows[:, None], span])
        emb = target.transformer.wte(toks[rows[:, None], span + 1])
        o1, o2 = drafter.two_steps(g, emb)
        teacher = hidden[rows[:, None], span + 1]  # position i drafts token i + 2
        return distill_loss(wte, o1, teacher) + distill_loss(wte, o2[:, 1:], teacher[:, 1:])

    return fn


@torch.no_grad()
def eagle3_agreement(target: GPT, valid_ids: np.ndarray, drafter: Eagle3Drafter) -> list[float]:
    """Top-1 agreement of drafting steps 1 and 2 (the training-time test's two steps)."""
    from specverdict.lab.train.optim import windows

    idx = windows(valid_ids, np.random.default_rng(54321), 8, 256)
    h, f = hidden_and_layers(target, idx[:, :-1], EAGLE3_LAYERS)
    wte = target.transformer.wte.weight
    tgt = (h @ wte.T).argmax(-1)
    t = h.shape[1] - 1
    o1, o2 = drafter.two_steps(drafter.fc(f[:, :t]), target.transformer.wte(idx[:, 1 : 1 + t]))
    rates = []
    for o, skip in ((o1, 0), (o2, 1)):
        pred = (o[:, skip:] @ wte.T).argmax(-1)
        rates.append(round(float((pred == tgt[:, 1 + skip : 1 + t]).float().mean()), 3))
    return rates


@torch.no_grad()
def agreement(
    target: GPT, valid_ids: np.ndarray, medusa: MedusaHeads | None, dflash: BlockDrafter | None
) -> list[float]:
    """Greedy top-1 agreement with the target per draft position, teacher-forced on held-out
    text (the same windows as the draft's and the MTP head's figures)."""
    from specverdict.lab.train.optim import windows

    idx = windows(valid_ids, np.random.default_rng(54321), 8, 256)
    h = target.hidden(idx[:, :-1])
    wte = target.transformer.wte.weight
    tgt = (h @ wte.T).argmax(-1)  # tgt[:, t]: the target's prediction of token t + 1
    n = medusa.n if medusa is not None else dflash.n if dflash is not None else 0
    t = h.shape[1] - 1 - n
    if medusa is not None:
        outs = [o[:, :t] for o in medusa(h)]
    else:
        assert dflash is not None
        block = dflash(h[:, :t], target.transformer.wte(idx[:, 1 : 1 + t]))
        outs = [block[:, :, i] for i in range(n)]
    rates = []
    for i, o in enumerate(outs):
        pred = (o @ wte.T).argmax(-1)
        rates.append(round(float((pred == tgt[:, 1 + i : 1 + i + t]).float().mean()), 3))
    return rates


def export(module: torch.nn.Module, prefix: str, out: Path, config: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tensors = {
        f"{prefix}.{n}": p.detach().float().contiguous() for n, p in module.state_dict().items()
    }
    save_file(tensors, str(out / "model.safetensors"), metadata={"format": "pt"})
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")


@torch.no_grad()
def golden(
    target: GPT, medusa: MedusaHeads | None, dflash: BlockDrafter | None, tokens: list[int]
) -> dict[str, Any]:
    """Logits of the modules from the target's last hidden state of ``tokens`` (the numpy
    inference is tested against them)."""
    idx = torch.tensor([tokens])
    h = target.hidden(idx)[0, -2]
    wte = target.transformer.wte.weight
    out: dict[str, Any] = {"tokens": tokens}
    if medusa is not None:
        out["medusa_logits"] = [[round(x, 5) for x in (o @ wte.T).tolist()] for o in medusa(h)]
    if dflash is not None:
        block = dflash(h, wte[tokens[-1]])
        out["dflash_logits"] = [[round(x, 5) for x in (o @ wte.T).tolist()] for o in block]
    return out


@torch.no_grad()
def eagle3_golden(target: GPT, drafter: Eagle3Drafter, tokens: list[int]) -> dict[str, Any]:
    """Step-1 logits of the EAGLE-3 drafter at every position of ``tokens`` but the last (each
    position i reads the target's features at i and token i + 1), teacher-forced."""
    idx = torch.tensor([tokens])
    _, f = hidden_and_layers(target, idx[:, :-1], EAGLE3_LAYERS)
    x = drafter.inputs(drafter.fc(f), target.transformer.wte(idx[:, 1:]))
    q, k, v = drafter.qkv(x)
    o = drafter.finish(x, F.scaled_dot_product_attention(q, k, v, is_causal=True))
    logits = drafter.ln_out(o)[0, -1] @ target.transformer.wte.weight.T
    return {"eagle3_last_logits": [round(v, 5) for v in logits.tolist()]}


def train_dspark(
    args: argparse.Namespace,
    target: GPT,
    pool: tuple[torch.Tensor, torch.Tensor],
    valid_ids: np.ndarray,
    report: dict[str, Any],
    common: dict[str, Any],
) -> DSparkDrafter:
    """The DSpark drafter: backbone from the shipped block drafter, then trained with its
    Markov and confidence heads; written to ``--out``/dspark."""
    torch.manual_seed(args.seed + 51)
    d, vocab = target.shape.n_embd, target.shape.vocab_size
    drafter = DSparkDrafter(d, args.dflash_block, vocab, DSPARK_RANK)
    warm_start(drafter, args.out / "dflash")
    seconds = run(
        "dspark",
        drafter,
        dspark_loss(target, drafter, pool),
        pool,
        args.dspark_steps,
        drafter.n,
        2e-3,
        args.seed + 51,
        DSPARK_POSITIONS,
    )
    drafter.eval()
    report["dspark"] = {
        "params": sum(p.numel() for p in drafter.parameters()),
        "steps": args.dspark_steps,
        "train_seconds": round(seconds, 1),
        "initialised_from": "the shipped block drafter (dflash); Markov head at zero",
        **dspark_evaluate(target, valid_ids, drafter),
        **common,
        "positions_per_step": DSPARK_POSITIONS,
    }
    log(f"dspark: {report['dspark']}")
    export(drafter, "dspark", args.out / "dspark", dspark_config(drafter, vocab))
    return drafter


def train_heads(
    args: argparse.Namespace, argv: list[str] | None, packed_ids: np.ndarray, valid_ids: np.ndarray
) -> int:
    if args.init_target is None:
        raise SystemExit(
            "--heads-only needs --init-target (the frozen target, e.g. the shipped one)"
        )
    t_start = time.perf_counter()
    target = load_target(args.init_target)
    d = target.shape.n_embd
    pick = np.random.default_rng(args.seed + 11).choice(
        len(packed_ids), size=min(POOL_WINDOWS, len(packed_ids)), replace=False
    )
    log(f"target hidden states of {len(pick)} windows")
    pool = hidden_pool(target, packed_ids[np.sort(pick), :-1])
    log(f"pool ready in {time.perf_counter() - t_start:.0f} s")
    report_path = args.out / "training_report.json"
    report: dict[str, Any] = json.loads(report_path.read_text())
    command = "python -m specverdict.lab.train " + " ".join(argv or sys.argv[1:])
    common = {
        "command": command,
        "seed": args.seed,
        "torch": torch.__version__,
        "threads": args.threads,
        "pool_windows": len(pick),
        "positions_per_step": POSITIONS,
        "trained_on": f"the frozen target in {args.init_target}, its own next-token distributions",
    }
    golden_medusa: MedusaHeads | None = None
    golden_dflash: BlockDrafter | None = None
    if args.medusa_steps:
        torch.manual_seed(args.seed + 21)
        heads = MedusaHeads(d, args.medusa_heads)
        seconds = run(
            "medusa",
            heads,
            medusa_loss(target, heads, pool),
            pool,
            args.medusa_steps,
            heads.n,
            3e-3,
            args.seed + 21,
        )
        heads.eval()
        report["medusa"] = {
            "params": sum(p.numel() for p in heads.parameters()),
            "steps": args.medusa_steps,
            "train_seconds": round(seconds, 1),
            "top1_agreement_by_position": agreement(target, valid_ids, heads, None),
            **common,
        }
        log(f"medusa: {report['medusa']}")
        export(
            heads,
            "medusa",
            args.out / "medusa",
            {
                "architectures": ["SpecverdictMedusaHeads"],
                "model_type": "specverdict_medusa",
                "n_embd": d,
                "vocab_size": target.shape.vocab_size,
                "num_heads": heads.n,
                "shares": "transformer.wte.weight of the target (tied LM head)",
            },
        )
        golden_medusa = heads
    if args.dflash_steps:
        torch.manual_seed(args.seed + 31)
        drafter = BlockDrafter(d, args.dflash_block)
        seconds = run(
            "dflash",
            drafter,
            dflash_loss(target, drafter, pool),
            pool,
            args.dflash_steps,
            drafter.n,
            3e-3,
            args.seed + 31,
        )
        drafter.eval()
        report["dflash"] = {
            "params": sum(p.numel() for p in drafter.parameters()),
            "steps": args.dflash_steps,
            "train_seconds": round(seconds, 1),
            "top1_agreement_by_position": agreement(target, valid_ids, None, drafter),
            **common,
        }
        log(f"dflash: {report['dflash']}")
        export(
            drafter,
            "dflash",
            args.out / "dflash",
            {
                "architectures": ["SpecverdictBlockDrafter"],
                "model_type": "specverdict_dflash",
                "n_embd": d,
                "vocab_size": target.shape.vocab_size,
                "block_size": drafter.n,
                "shares": "transformer.wte.weight of the target (tied LM head and embedding)",
            },
        )
        golden_dflash = drafter
    golden_eagle3: Eagle3Drafter | None = None
    if args.eagle3_steps:
        torch.manual_seed(args.seed + 41)
        toks = torch.from_numpy(
            packed_ids[np.sort(pick[:EAGLE3_POOL_WINDOWS]), :-1].astype(np.int64)
        )
        with torch.no_grad():
            parts = [
                hidden_and_layers(target, toks[i : i + 8], EAGLE3_LAYERS)
                for i in range(0, len(toks), 8)
            ]
        epool = (torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts]), toks)
        del parts
        eagle = Eagle3Drafter(d, len(EAGLE3_LAYERS))
        seconds = run(
            "eagle3",
            eagle,
            eagle3_loss(target, eagle, epool),
            (epool[0], epool[2]),
            args.eagle3_steps,
            EAGLE3_CROP,
            2e-3,
            args.seed + 41,
        )
        eagle.eval()
        report["eagle3"] = {
            "params": sum(p.numel() for p in eagle.parameters()),
            "steps": args.eagle3_steps,
            "train_seconds": round(seconds, 1),
            "top1_agreement_by_position": eagle3_agreement(target, valid_ids, eagle),
            **common,
            "pool_windows": len(epool[2]),
            "positions_per_step": EAGLE3_CROPS * EAGLE3_CROP,
        }
        log(f"eagle3: {report['eagle3']}")
        export(
            eagle,
            "eagle3",
            args.out / "eagle3",
            {
                "architectures": ["SpecverdictEagle3Drafter"],
                "model_type": "specverdict_eagle3",
                "n_embd": d,
                "vocab_size": target.shape.vocab_size,
                "target_layers": list(EAGLE3_LAYERS),
                "n_head": eagle.n_head,
                "head_dim": eagle.head_dim,
                "shares": "transformer.wte.weight of the target (tied LM head and embedding)",
            },
        )
        golden_eagle3 = eagle
    golden_dspark: DSparkDrafter | None = None
    if args.dspark_steps:
        golden_dspark = train_dspark(args, target, pool, valid_ids, report, common)
    report_path.write_text(json.dumps(report, indent=2))
    (args.out / "MODEL_CARD.md").write_text(render_model_card(report, args.out))
    gold_path: Path = args.golden_heads
    gold = json.loads(gold_path.read_text()) if gold_path.exists() else {}
    gold.update(golden(target, golden_medusa, golden_dflash, valid_ids[:48].tolist()))
    if golden_eagle3 is not None:
        gold.update(eagle3_golden(target, golden_eagle3, valid_ids[:48].tolist()))
    if golden_dspark is not None:
        gold.update(dspark_golden(target, golden_dspark, valid_ids[:48].tolist()))
    gold_path.parent.mkdir(parents=True, exist_ok=True)
    gold_path.write_text(json.dumps(gold))
    log(f"done in {time.perf_counter() - t_start:.0f} s")
    return 0
