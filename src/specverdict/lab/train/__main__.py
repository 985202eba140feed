"""Train the reference engine's models: ``python -m specverdict.lab.train``.

Seeded and reproducible for a given interpreter (the corpus is its standard library) and torch
build. Trains a BPE tokenizer, the target, a smaller draft model, and an MTP head on the frozen
target, then exports safetensors in Hugging Face GPT-2 layout plus configs, a model card and a
golden-logits fixture that pins the numpy inference to the torch forward.
"""

from __future__ import annotations

import argparse
import json
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

from specverdict.lab.train.card import lineage_of, render_model_card
from specverdict.lab.train.corpus import Corpus, build_corpus, train_tokenizer
from specverdict.lab.train.nets import GPT, GPTShape, MTPHead
from specverdict.lab.train.optim import lr_at, make_optimizer, windows
from specverdict.lab.train.precision import CHOICES, Precision, autocast, choose
from specverdict.reference.chat import CHAT_TEMPLATE, EOS_TOKEN, IM_END, IM_START

PACKAGE_WEIGHTS = Path(__file__).resolve().parents[2] / "reference" / "weights"


def log(msg: str) -> None:
    print(f"[train {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Packed:
    """Training windows of ``ctx + 1`` tokens that each start at a document's first token
    (a chat prompt is always at position 0 when served), with a loss mask per target token."""

    def __init__(self, ids: np.ndarray, mask: np.ndarray) -> None:
        self.ids, self.mask = ids, mask

    @classmethod
    def pack(
        cls,
        docs: list[tuple[np.ndarray, np.ndarray]],
        fillers: list[np.ndarray],
        ctx: int,
        seed: int,
        pad_id: int,
    ) -> Packed:
        rng = np.random.default_rng(seed)
        order = rng.permutation(len(docs))
        rows_ids: list[np.ndarray] = []
        rows_mask: list[np.ndarray] = []
        cur_ids: list[np.ndarray] = []
        cur_mask: list[np.ndarray] = []
        used = 0
        width = ctx + 1

        def flush() -> None:
            nonlocal used
            room = width - used
            if room > 0:  # the rest of the row: a stdlib fragment, trained on
                f = fillers[int(rng.integers(len(fillers)))]
                start = int(rng.integers(0, max(1, len(f) - room)))
                piece = f[start : start + room]
                piece = np.concatenate([piece, np.full(room - len(piece), pad_id, np.int32)])
                m = np.ones(room, np.float32)
                m[len(f[start : start + room]) :] = 0.0
                cur_ids.append(piece)
                cur_mask.append(m)
            rows_ids.append(np.concatenate(cur_ids))
            rows_mask.append(np.concatenate(cur_mask))
            cur_ids.clear()
            cur_mask.clear()
            used = 0

        for i in order:
            ids, mask = docs[int(i)]
            ids, mask = ids[:width], mask[:width]
            if used + len(ids) > width:
                flush()
            cur_ids.append(ids)
            cur_mask.append(mask)
            used += len(ids)
        if cur_ids:
            flush()
        return cls(np.stack(rows_ids), np.stack(rows_mask))

    def batch(self, rng: np.random.Generator, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        rows = rng.integers(0, len(self.ids), size=batch)
        ids = torch.from_numpy(self.ids[rows].astype(np.int64))
        mask = torch.from_numpy(self.mask[rows][:, 1:])  # the mask of each predicted token
        return ids, mask


def run_steps(
    name: str,
    params: list[tuple[str, torch.nn.Parameter]],
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    data: Packed,
    steps: int,
    batch: int,
    peak_lr: float,
    seed: int,
    on_step: Callable[[int], None] | None = None,
    precision: Precision = "fp32",
) -> float:
    opt = make_optimizer(params, peak_lr)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps, peak_lr, warmup=max(1, steps // 20))
        idx, mask = data.batch(rng, batch)
        with autocast(precision):
            loss = loss_fn(idx, mask)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for _, p in params], 1.0)
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            log(
                f"{name} step {step}/{steps} loss {loss.item():.3f} {time.perf_counter() - t0:.0f}s"
            )
        if on_step is not None:
            on_step(step + 1)
    return time.perf_counter() - t0


def masked_ce(logits: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    losses = F.cross_entropy(logits.flatten(0, 1).float(), targets.flatten(), reduction="none")
    m = mask.flatten().float()
    return (losses * m).sum() / m.sum().clamp(min=1.0)


def lm_loss(model: GPT) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    def fn(idx: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return masked_ce(model(idx[:, :-1]), idx[:, 1:], mask)

    return fn


def mtp_loss(
    target: GPT, head: MTPHead, depth: int
) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    wte = target.transformer.wte.weight

    def fn(idx: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            h = target.hidden(idx[:, :-1])
        t = idx.shape[1] - 1 - depth
        h = h[:, :t]
        total = torch.zeros(())
        for s in range(depth):
            emb = target.transformer.wte(idx[:, 1 + s : 1 + s + t]).detach()
            h, out = head.step(h, emb)
            logits = out @ wte.detach().T
            total = total + masked_ce(logits, idx[:, 2 + s : 2 + s + t], mask[:, 1 + s : 1 + s + t])
        return total / depth

    return fn


@torch.no_grad()
def eval_loss(model: GPT, data: np.ndarray, ctx: int, n: int = 16) -> float:
    rng = np.random.default_rng(12345)
    idx = windows(data, rng, n, ctx)
    return float(lm_loss(model)(idx, torch.ones(idx.shape[0], idx.shape[1] - 1)))


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
def generate_greedy(model: GPT, prompt: list[int], stop_ids: list[int], max_new: int) -> list[int]:
    """Greedy continuation by full recomputation (training-time checks only)."""
    ids = list(prompt)
    for _ in range(max_new):
        nxt = int(model(torch.tensor([ids[-model.shape.n_positions :]]))[0, -1].argmax())
        if nxt in stop_ids:
            break
        ids.append(nxt)
    return ids[len(prompt) :]


def function_pass_rate(
    model: GPT, tok: Any, records: list[dict[str, Any]], stop_ids: list[int]
) -> float:
    """Greedy pass@1 of ``model`` on generated function tasks, tests run in one subprocess
    (a training-time progress figure; the suites score in the sandbox)."""
    import subprocess

    from specverdict.suites.codeextract import FUNCTION_STOPS, completion_program
    from specverdict.suites.values import decode

    programs = []
    for r in records:
        out = tok.decode(generate_greedy(model, tok.encode(r["prompt"]).ids, stop_ids, 128))
        program = completion_program(r["prompt"], out, FUNCTION_STOPS)
        ref_ns: dict[str, Any] = {}
        exec(r["solution"], ref_ns)
        cases = []
        for enc in r["inputs"]:
            a = tuple(decode(enc))
            cases.append((a, ref_ns[r["entry_point"]](*a)))
        programs.append((program, r["entry_point"], cases))
    script = (
        "import json, signal, sys\n"
        "def alarm(*_):\n    raise TimeoutError\n"
        "signal.signal(signal.SIGALRM, alarm)\n"
        "ok = 0\n"
        "for program, entry, cases in json.loads(sys.stdin.read()):\n"
        "    try:\n"
        "        signal.setitimer(signal.ITIMER_REAL, 1.0)\n"
        "        ns = {}\n"
        "        exec(program, ns)\n"
        "        good = all(json.dumps(ns[entry](*a)) == json.dumps(e) for a, e in cases)\n"
        "    except BaseException:\n"
        "        good = False\n"
        "    finally:\n"
        "        signal.setitimer(signal.ITIMER_REAL, 0)\n"
        "    ok += bool(good)\n"
        "print(ok)\n"
    )
    payload = json.dumps([(p or "", e, [(list(a), x) for a, x in c]) for p, e, c in programs])
    done = subprocess.run(
        [sys.executable, "-I", "-c", script],
        input=payload,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return int(done.stdout.strip() or 0) / len(records)


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


def encode_segments(
    tok: Any,
    segments: tuple[tuple[str, bool], ...],
    emphasis: list[tuple[int, int, int]] | None = None,
    weight: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Token ids and loss weights for a document given as (text, trained on) segments: 1 for a
    trained token, 0 for context, ``weight`` for a trained token overlapping an ``emphasis``
    span (segment, start, end)."""
    ids: list[int] = []
    mask: list[float] = []
    spans = emphasis if weight != 1.0 and emphasis else []
    for i, (text, trained) in enumerate(segments):
        enc = tok.encode(text)
        w = [float(trained)] * len(enc.ids)
        for seg, start, end in spans:
            if seg != i:
                continue
            for k, (t0, t1) in enumerate(enc.offsets):
                if t0 < end and t1 > start and trained:
                    w[k] = weight
        ids.extend(enc.ids)
        mask.extend(w)
    return np.asarray(ids, np.int32), np.asarray(mask, np.float32)


def main(argv: list[str] | None = None) -> int:
    from specverdict.lab.train.dspark import add_arguments as add_dspark_arguments

    p = argparse.ArgumentParser(prog="python -m specverdict.lab.train", description=__doc__)
    p.add_argument("--out", type=Path, default=PACKAGE_WEIGHTS)
    p.add_argument("--golden", type=Path, default=Path("tests/fixtures/golden_logits.json"))
    p.add_argument("--seed", type=int, default=20261201)
    p.add_argument("--vocab", type=int, default=2048)
    p.add_argument("--ctx", type=int, default=1024)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--target-steps", type=int, default=1800)
    p.add_argument("--draft-steps", type=int, default=600)
    p.add_argument("--mtp-steps", type=int, default=500)
    p.add_argument("--mtp-depth", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument(
        "--heads-only",
        action="store_true",
        help="train only the modules on the frozen target of --init-target (--medusa-steps, "
        "--dflash-steps, --eagle3-steps, --dspark-steps; a module whose steps are 0 is neither "
        "trained nor written); the target, draft and MTP head in --out are left as they are",
    )
    p.add_argument("--medusa-steps", type=int, default=0, help="with --heads-only")
    p.add_argument("--medusa-heads", type=int, default=4)
    p.add_argument("--dflash-steps", type=int, default=0, help="with --heads-only")
    p.add_argument("--dflash-block", type=int, default=8, help="the block drafter's block size")
    p.add_argument("--eagle3-steps", type=int, default=0, help="with --heads-only")
    add_dspark_arguments(p)
    p.add_argument("--golden-heads", type=Path, default=Path("tests/fixtures/golden_heads.json"))
    p.add_argument(
        "--precision",
        choices=CHOICES,
        default="auto",
        help="bf16 autocast or fp32; auto times both on this CPU and keeps the faster",
    )
    p.add_argument("--synth-function", type=int, default=40_000)
    p.add_argument("--synth-agent", type=int, default=6_000)
    p.add_argument("--synth-repository", type=int, default=6_000)
    p.add_argument("--eval-every", type=int, default=600, help="target steps between pass@1 logs")
    p.add_argument(
        "--init-target",
        type=Path,
        default=None,
        help="warm start: an exported target directory whose weights and tokenizer are reused "
        "(a second phase of training on fresh generated documents)",
    )
    p.add_argument(
        "--synth-seed", type=int, default=None, help="seed of the generated training documents"
    )
    p.add_argument(
        "--agent-recovery",
        type=float,
        default=0.0,
        help="share of agent documents that first make a mistake and recover from it",
    )
    p.add_argument(
        "--repository-single",
        type=float,
        default=0.0,
        help="share of repository documents holding one module with one function",
    )
    p.add_argument(
        "--repository-function",
        type=float,
        default=0.0,
        help="share of repository documents answered with a block replacing the whole function",
    )
    p.add_argument(
        "--agent-stub",
        type=float,
        default=0.0,
        help="share of agent documents that implement a stubbed function instead of fixing a bug",
    )
    p.add_argument(
        "--repository-stub",
        type=float,
        default=0.0,
        help="share of repository documents that implement a stubbed function",
    )
    p.add_argument(
        "--edit-weight",
        type=float,
        default=1.0,
        help="loss weight of the tokens where an agent or repository edit's new text differs "
        "from its old text (both sides)",
    )
    p.add_argument("--target-lr", type=float, default=2e-3)
    p.add_argument(
        "--stdlib-fraction",
        type=float,
        default=0.5,
        help="share of stdlib windows kept as documents",
    )
    args = p.parse_args(argv)

    from specverdict.lab.synth.build import TRAIN_SEED, eval_keys, training_documents
    from specverdict.suites.synth.data import FILES, load_eval

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t_start = time.perf_counter()
    precision, probed = choose(args.precision)
    log(f"precision {precision}" + (f" (one MLP pass, seconds: {probed})" if probed else ""))
    log("building corpus")
    corpus: Corpus = build_corpus(args.seed)
    log(f"{corpus.n_files} files, {corpus.n_chat} chat exchanges, sha256 {corpus.sha256[:12]}")
    evals = {stage: load_eval(stage) for stage in FILES}
    counts = {
        "function": args.synth_function,
        "agent": args.synth_agent,
        "repository": args.synth_repository,
    }
    synth_seed = args.synth_seed if args.synth_seed is not None else TRAIN_SEED
    synth = list(
        training_documents(
            counts,
            eval_keys(evals),
            synth_seed,
            args.agent_recovery,
            args.repository_single,
            args.repository_function,
            args.agent_stub,
            args.repository_stub,
        )
    )
    log(f"generated training documents: {counts}")
    synth_texts = ["".join(t for t, _ in d.segments) for d in synth]
    if args.init_target is not None:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(args.init_target / "tokenizer.json"))
    else:
        tok = train_tokenizer(
            corpus.train + synth_texts[:: max(1, len(synth_texts) // 20_000)], args.vocab
        )
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
    # stdlib text as documents of at most one window, and as fillers of rows' tails
    width = args.ctx + 1
    stdlib_docs = [
        (train_ids[i : i + width], np.ones(min(width, len(train_ids) - i), np.float32))
        for i in range(0, len(train_ids) - 1, width)
    ]
    keep = np.random.default_rng(args.seed).random(len(stdlib_docs)) < args.stdlib_fraction
    docs: list[tuple[np.ndarray, np.ndarray]] = [
        d for d, k in zip(stdlib_docs, keep, strict=False) if k
    ]
    synth_tokens = {k: 0 for k in counts}
    for d in synth:
        ids, mask = encode_segments(
            tok,
            (*d.segments, (EOS_TOKEN, d.stage == "function")),
            d.edit_spans() if args.edit_weight != 1.0 else None,
            args.edit_weight,
        )
        synth_tokens[d.stage] += len(ids)
        docs.append((ids, mask))
    fillers = [ids for ids, _ in stdlib_docs]
    data = Packed.pack(docs, fillers, args.ctx, args.seed, eos_id)
    log(
        f"tokens: stdlib {len(train_ids)}, generated {synth_tokens}, valid {len(valid_ids)}; "
        f"{len(data.ids)} packed windows of {width}"
    )
    if args.heads_only:
        from specverdict.lab.train.heads import train_heads

        return train_heads(args, argv, data.ids, valid_ids)

    target_shape = GPTShape(args.vocab, args.ctx, n_embd=160, n_layer=6, n_head=5)
    draft_shape = GPTShape(args.vocab, args.ctx, n_embd=64, n_layer=1, n_head=2)
    target, draft, head = GPT(target_shape), GPT(draft_shape), MTPHead(target_shape.n_embd)
    if args.init_target is not None:
        from safetensors.torch import load_file

        state = load_file(str(args.init_target / "model.safetensors"))
        target.load_state_dict(state)
        log(f"target initialised from {args.init_target}")
    report: dict[str, Any] = {}
    progress: list[dict[str, Any]] = []
    fn_eval = evals["function"][:: max(1, len(evals["function"]) // 40)]

    def eval_target(step: int) -> None:
        if step % args.eval_every and step != args.target_steps:
            return
        target.eval()
        rate = function_pass_rate(target, tok, fn_eval, stop_ids)
        target.train()
        progress.append({"step": step, "function_pass": round(rate, 3)})
        log(f"target step {step}: greedy pass@1 {rate:.3f} on {len(fn_eval)} function tasks")

    for name, model, steps, lr, hook in (
        ("target", target, args.target_steps, args.target_lr, eval_target),
        ("draft", draft, args.draft_steps, 4e-3, None),
    ):
        seconds = run_steps(
            name,
            list(model.named_parameters()),
            lm_loss(model),
            data,
            steps,
            args.batch,
            lr,
            args.seed + len(name),
            hook,
            precision,
        )
        model.eval()
        report[name] = {
            "params": sum(p.numel() for p in model.parameters()),
            "steps": steps,
            "train_seconds": round(seconds, 1),
            "valid_loss": round(eval_loss(model, valid_ids, args.ctx), 4),
        }
        log(f"{name}: {report[name]}")
    report["target"]["function_pass_by_step"] = progress

    target.requires_grad_(False)
    seconds = run_steps(
        "mtp",
        list(head.named_parameters()),
        mtp_loss(target, head, args.mtp_depth),
        data,
        args.mtp_steps,
        args.batch,
        3e-3,
        args.seed + 7,
        precision=precision,
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
        "command": "python -m specverdict.lab.train " + " ".join(argv or sys.argv[1:]),
        "seed": args.seed,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "threads": args.threads,
        "precision": precision,
        "precision_probe_seconds": probed,
        "corpus_files": corpus.n_files,
        "corpus_chat_exchanges": corpus.n_chat,
        "corpus_sha256": corpus.sha256,
        "train_tokens": len(train_ids),
        "valid_tokens": len(valid_ids),
        "synth_documents": counts,
        "synth_seed": synth_seed,
        "agent_recovery": args.agent_recovery,
        "repository_single": args.repository_single,
        "repository_function": args.repository_function,
        "agent_stub": args.agent_stub,
        "repository_stub": args.repository_stub,
        "edit_weight": args.edit_weight,
        "stdlib_fraction": args.stdlib_fraction,
        "init_target": str(args.init_target) if args.init_target else None,
        "synth_tokens": synth_tokens,
        "packed_windows": len(data.ids),
        "batch": args.batch,
        "ctx": args.ctx,
        "vocab": args.vocab,
        "total_seconds": round(time.perf_counter() - t_start, 1),
    }
    report["lineage"] = lineage_of(args.init_target)
    (args.out / "training_report.json").write_text(json.dumps(report, indent=2))
    (args.out / "MODEL_CARD.md").write_text(render_model_card(report, args.out))
    log(f"done in {report['run']['total_seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
