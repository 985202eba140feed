"""Train the reference engine's models: ``python -m specverdict.reference.train``.

Seeded and reproducible for a given interpreter (the corpus is its standard library) and torch
build. Trains a BPE tokenizer, the target, a smaller draft model, and an MTP head on the frozen
target, then exports safetensors in Hugging Face GPT-2 layout plus configs, a model card and a
golden-logits fixture that pins the numpy inference to the torch forward.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import save_file

from specverdict.reference.chat import CHAT_TEMPLATE, EOS_TOKEN, IM_END, IM_START
from specverdict.reference.train.card import render_model_card
from specverdict.reference.train.corpus import Corpus, build_corpus, train_tokenizer
from specverdict.reference.train.nets import GPT, GPTShape, MTPHead

PACKAGE_WEIGHTS = Path(__file__).resolve().parent.parent / "weights"


def log(msg: str) -> None:
    print(f"[train {time.strftime('%H:%M:%S')}] {msg}", flush=True)


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


def run_steps(
    name: str,
    params: list[tuple[str, torch.nn.Parameter]],
    loss_fn: Callable[[torch.Tensor], torch.Tensor],
    data: np.ndarray,
    steps: int,
    batch: int,
    ctx: int,
    peak_lr: float,
    seed: int,
) -> float:
    opt = make_optimizer(params, peak_lr)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps, peak_lr, warmup=max(1, steps // 20))
        idx = windows(data, rng, batch, ctx)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = loss_fn(idx)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for _, p in params], 1.0)
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            log(
                f"{name} step {step}/{steps} loss {loss.item():.3f} {time.perf_counter() - t0:.0f}s"
            )
    return time.perf_counter() - t0


def lm_loss(model: GPT) -> Callable[[torch.Tensor], torch.Tensor]:
    def fn(idx: torch.Tensor) -> torch.Tensor:
        logits = model(idx[:, :-1])
        return F.cross_entropy(logits.flatten(0, 1).float(), idx[:, 1:].flatten())

    return fn


def mtp_loss(target: GPT, head: MTPHead, depth: int) -> Callable[[torch.Tensor], torch.Tensor]:
    wte = target.transformer.wte.weight

    def fn(idx: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            h = target.hidden(idx[:, :-1])
        t = idx.shape[1] - 1 - depth
        h = h[:, :t]
        total = torch.zeros(())
        for s in range(depth):
            emb = target.transformer.wte(idx[:, 1 + s : 1 + s + t]).detach()
            h, out = head.step(h, emb)
            logits = out @ wte.detach().T
            total = total + F.cross_entropy(
                logits.flatten(0, 1).float(), idx[:, 2 + s : 2 + s + t].flatten()
            )
        return total / depth

    return fn


@torch.no_grad()
def eval_loss(model: GPT, data: np.ndarray, ctx: int, n: int = 16) -> float:
    rng = np.random.default_rng(12345)
    idx = windows(data, rng, n, ctx)
    return float(lm_loss(model)(idx))


@torch.no_grad()
def agreement(
    target: GPT, data: np.ndarray, ctx: int, draft: GPT | None, head: MTPHead | None, depth: int
) -> list[float]:
    """Greedy top-1 agreement with the target per draft position (teacher-forced on the target's
    own greedy tokens is not needed here: this is the acceptance proxy on held-out text)."""
    rng = np.random.default_rng(54321)
    idx = windows(data, rng, 8, ctx)
    h = target.hidden(idx[:, :-1])
    tgt = target.logits(h).argmax(-1)  # tgt[:, t] = target's prediction of token t+1
    if draft is not None:
        d = draft(idx[:, :-1]).argmax(-1)
        return [float((d == tgt).float().mean())]
    assert head is not None
    t = idx.shape[1] - 1 - depth
    hh = h[:, :t]
    out_rates = []
    for s in range(depth):
        emb = target.transformer.wte(idx[:, 1 + s : 1 + s + t])
        hh, out = head.step(hh, emb)
        pred = (out @ target.transformer.wte.weight.T).argmax(-1)
        out_rates.append(float((pred == tgt[:, 1 + s : 1 + s + t]).float().mean()))
    return out_rates


def gpt_config(shape: GPTShape, eos_id: int, stop_ids: list[int]) -> dict[str, Any]:
    return {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "vocab_size": shape.vocab_size,
        "n_positions": shape.n_positions,
        "n_ctx": shape.n_positions,
        "n_embd": shape.n_embd,
        "n_layer": shape.n_layer,
        "n_head": shape.n_head,
        "n_inner": None,
        "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-5,
        "initializer_range": 0.02,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "attn_pdrop": 0.0,
        "scale_attn_weights": True,
        "tie_word_embeddings": True,
        "bos_token_id": eos_id,
        "eos_token_id": eos_id,
        "torch_dtype": "float32",
    }


def export_gpt(model: GPT, out: Path, tokenizer_json: str, stop_ids: list[int]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tensors = {
        name: p.detach().float().contiguous()
        for name, p in model.state_dict().items()
        if not name.startswith("lm_head")
    }
    save_file(tensors, str(out / "model.safetensors"), metadata={"format": "pt"})
    eos_id = stop_ids[0]
    (out / "config.json").write_text(
        json.dumps(gpt_config(model.shape, eos_id, stop_ids), indent=2)
    )
    (out / "generation_config.json").write_text(
        json.dumps({"bos_token_id": eos_id, "eos_token_id": stop_ids}, indent=2)
    )
    (out / "tokenizer.json").write_text(tokenizer_json)
    tok_cfg = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": model.shape.n_positions,
        "bos_token": EOS_TOKEN,
        "eos_token": EOS_TOKEN,
        "unk_token": EOS_TOKEN,
        "pad_token": EOS_TOKEN,
        "additional_special_tokens": [IM_START, IM_END],
        "add_prefix_space": False,
        "clean_up_tokenization_spaces": False,
        "chat_template": CHAT_TEMPLATE,
    }
    (out / "tokenizer_config.json").write_text(json.dumps(tok_cfg, indent=2))
    (out / "special_tokens_map.json").write_text(
        json.dumps(
            {
                "bos_token": EOS_TOKEN,
                "eos_token": EOS_TOKEN,
                "unk_token": EOS_TOKEN,
                "pad_token": EOS_TOKEN,
                "additional_special_tokens": [IM_START, IM_END],
            },
            indent=2,
        )
    )


def export_mtp(head: MTPHead, target_shape: GPTShape, out: Path, depth: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tensors = {f"mtp.{n}": p.detach().float().contiguous() for n, p in head.state_dict().items()}
    save_file(tensors, str(out / "model.safetensors"), metadata={"format": "pt"})
    cfg = {
        "architectures": ["SpecverdictMTPHead"],
        "model_type": "specverdict_mtp",
        "n_embd": target_shape.n_embd,
        "vocab_size": target_shape.vocab_size,
        "trained_depth": depth,
        "shares": "transformer.wte.weight of the target (tied LM head and token embedding)",
    }
    (out / "config.json").write_text(json.dumps(cfg, indent=2))


@torch.no_grad()
def golden(target: GPT, draft: GPT, head: MTPHead, tokens: list[int]) -> dict[str, Any]:
    idx = torch.tensor([tokens])
    h = target.hidden(idx)
    t_logits = target.logits(h)[0]
    d_logits = draft(idx)[0]
    _, out = head.step(h[:, -1:], target.transformer.wte(idx[:, -1:]))
    m_logits = (out @ target.transformer.wte.weight.T)[0]
    return {
        "tokens": tokens,
        "target_last_logits": [round(x, 5) for x in t_logits[-1].tolist()],
        "target_first_logits": [round(x, 5) for x in t_logits[0].tolist()],
        "draft_last_logits": [round(x, 5) for x in d_logits[-1].tolist()],
        "mtp_logits_from_last": [round(x, 5) for x in m_logits[-1].tolist()],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m specverdict.reference.train", description=__doc__)
    p.add_argument("--out", type=Path, default=PACKAGE_WEIGHTS)
    p.add_argument("--golden", type=Path, default=Path("tests/fixtures/golden_logits.json"))
    p.add_argument("--seed", type=int, default=20261130)
    p.add_argument("--vocab", type=int, default=2048)
    p.add_argument("--ctx", type=int, default=1024)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--target-steps", type=int, default=1500)
    p.add_argument("--draft-steps", type=int, default=600)
    p.add_argument("--mtp-steps", type=int, default=600)
    p.add_argument("--mtp-depth", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t_start = time.perf_counter()
    log("building corpus")
    corpus: Corpus = build_corpus(args.seed)
    log(f"{corpus.n_files} files, {corpus.n_chat} chat exchanges, sha256 {corpus.sha256[:12]}")
    tok = train_tokenizer(corpus.train, args.vocab)
    eos_id, im_end_id = tok.token_to_id(EOS_TOKEN), tok.token_to_id(IM_END)
    if eos_id is None or im_end_id is None:
        raise RuntimeError("the tokenizer lost its special tokens")
    stop_ids = [eos_id, im_end_id]

    def encode(docs: list[str]) -> np.ndarray:
        ids: list[int] = []
        for enc in tok.encode_batch(docs):
            ids.extend(enc.ids)
            ids.append(eos_id)
        return np.asarray(ids, dtype=np.int32)

    train_ids, valid_ids = encode(corpus.train), encode(corpus.valid)
    chars = sum(len(d) for d in corpus.train)
    log(
        f"tokens: train {len(train_ids)}, valid {len(valid_ids)}, {chars / len(train_ids):.2f} chars/token"
    )

    target_shape = GPTShape(args.vocab, args.ctx, n_embd=128, n_layer=6, n_head=4)
    draft_shape = GPTShape(args.vocab, args.ctx, n_embd=64, n_layer=1, n_head=2)
    target, draft, head = GPT(target_shape), GPT(draft_shape), MTPHead(target_shape.n_embd)
    report: dict[str, Any] = {}
    for name, model, steps, lr in (
        ("target", target, args.target_steps, 3e-3),
        ("draft", draft, args.draft_steps, 4e-3),
    ):
        seconds = run_steps(
            name,
            list(model.named_parameters()),
            lm_loss(model),
            train_ids,
            steps,
            args.batch,
            args.ctx,
            lr,
            args.seed + len(name),
        )
        model.eval()
        report[name] = {
            "params": sum(p.numel() for p in model.parameters()),
            "steps": steps,
            "train_seconds": round(seconds, 1),
            "valid_loss": round(eval_loss(model, valid_ids, args.ctx), 4),
        }
        log(f"{name}: {report[name]}")

    target.requires_grad_(False)
    seconds = run_steps(
        "mtp",
        list(head.named_parameters()),
        mtp_loss(target, head, args.mtp_depth),
        train_ids,
        args.mtp_steps,
        args.batch,
        args.ctx,
        3e-3,
        args.seed + 7,
    )
    head.eval()
    report["mtp"] = {
        "params": sum(p.numel() for p in head.parameters()),
        "steps": args.mtp_steps,
        "train_seconds": round(seconds, 1),
        "top1_agreement_by_position": [
            round(x, 3) for x in agreement(target, valid_ids, 256, None, head, args.mtp_depth)
        ],
    }
    report["draft"]["top1_agreement"] = [
        round(x, 3) for x in agreement(target, valid_ids, 256, draft, None, 1)
    ]
    log(f"mtp: {report['mtp']}; draft agreement {report['draft']['top1_agreement']}")

    export_gpt(target, args.out / "target", tok.to_str(), stop_ids)
    export_gpt(draft, args.out / "draft", tok.to_str(), stop_ids)
    export_mtp(head, target_shape, args.out / "mtp", args.mtp_depth)
    args.golden.parent.mkdir(parents=True, exist_ok=True)
    args.golden.write_text(json.dumps(golden(target, draft, head, valid_ids[:48].tolist())))
    report["run"] = {
        "command": "python -m specverdict.reference.train " + " ".join(argv or sys.argv[1:]),
        "seed": args.seed,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "threads": args.threads,
        "corpus_files": corpus.n_files,
        "corpus_chat_exchanges": corpus.n_chat,
        "corpus_sha256": corpus.sha256,
        "train_tokens": len(train_ids),
        "valid_tokens": len(valid_ids),
        "batch": args.batch,
        "ctx": args.ctx,
        "vocab": args.vocab,
        "total_seconds": round(time.perf_counter() - t_start, 1),
    }
    (args.out / "training_report.json").write_text(json.dumps(report, indent=2))
    (args.out / "MODEL_CARD.md").write_text(render_model_card(report, args.out))
    log(f"done in {report['run']['total_seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
