"""Torch modules used for training only: a GPT-2-layout decoder and an MTP head.

The parameter names and shapes follow Hugging Face's ``GPT2LMHeadModel`` (``transformer.h.N.attn.c_attn``
with Conv1D weights stored ``[in, out]``, tied ``lm_head``), so that the exported safetensors load
unchanged in real engines. Inference never uses this module: it runs on numpy
(:mod:`specverdict.reference.model`), and a golden-logits file written at export time pins the two
implementations together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class GPTShape:
    vocab_size: int
    n_positions: int
    n_embd: int
    n_layer: int
    n_head: int


class Conv1D(nn.Module):
    """A linear layer whose weight is stored ``[in, out]`` as GPT-2 does."""

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.weight + self.bias


class Attention(nn.Module):
    def __init__(self, shape: GPTShape) -> None:
        super().__init__()
        self.n_head = shape.n_head
        self.c_attn = Conv1D(shape.n_embd, 3 * shape.n_embd)
        self.c_proj = Conv1D(shape.n_embd, shape.n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        hd = d // self.n_head
        q = q.view(b, t, self.n_head, hd).transpose(1, 2)
        k = k.view(b, t, self.n_head, hd).transpose(1, 2)
        v = v.view(b, t, self.n_head, hd).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(b, t, d)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.c_fc = Conv1D(d, 4 * d)
        self.c_proj = Conv1D(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, shape: GPTShape) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(shape.n_embd, eps=1e-5)
        self.attn = Attention(shape)
        self.ln_2 = nn.LayerNorm(shape.n_embd, eps=1e-5)
        self.mlp = MLP(shape.n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Transformer(nn.Module):
    def __init__(self, shape: GPTShape) -> None:
        super().__init__()
        self.wte = nn.Embedding(shape.vocab_size, shape.n_embd)
        self.wpe = nn.Embedding(shape.n_positions, shape.n_embd)
        self.h = nn.ModuleList([Block(shape) for _ in range(shape.n_layer)])
        self.ln_f = nn.LayerNorm(shape.n_embd, eps=1e-5)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.01)


class GPT(nn.Module):
    """GPT-2 decoder with tied input/output embeddings."""

    def __init__(self, shape: GPTShape) -> None:
        super().__init__()
        self.shape = shape
        self.transformer = Transformer(shape)
        # GPT-2's residual-projection scaling keeps deep stacks stable from the first step.
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * shape.n_layer))

    def hidden(self, idx: torch.Tensor) -> torch.Tensor:
        """Final hidden states after ``ln_f`` (the input of the LM head)."""
        t = idx.shape[1]
        pos = torch.arange(t, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)[None]
        for block in self.transformer.h:
            x = block(x)
        out: torch.Tensor = self.transformer.ln_f(x)
        return out

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return hidden @ self.transformer.wte.weight.T

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.logits(self.hidden(idx))


class MTPHead(nn.Module):
    """A DeepSeek-style multi-token-prediction module without attention.

    Step i combines the previous hidden state ``h`` (the target's for i = 0, the head's own after)
    with the embedding of the token that follows it: ``x = W [norm_h(h); norm_e(emb(tok))]``, then one
    pre-norm residual MLP, then ``ln_out`` and the target's tied LM head. Applied recurrently, one
    module drafts k tokens (as engines reuse a single MTP layer for k > 1).
    """

    def __init__(self, d: int) -> None:
        super().__init__()
        self.hnorm = nn.LayerNorm(d, eps=1e-5)
        self.enorm = nn.LayerNorm(d, eps=1e-5)
        self.eh_proj = nn.Linear(2 * d, d)
        self.ln_mlp = nn.LayerNorm(d, eps=1e-5)
        self.mlp = MLP(d)
        self.ln_out = nn.LayerNorm(d, eps=1e-5)

    def step(self, h: torch.Tensor, tok_emb: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Return (new hidden, normalised output for the LM head)."""
        x = self.eh_proj(torch.cat([self.hnorm(h), self.enorm(tok_emb)], dim=-1))
        x = x + self.mlp(self.ln_mlp(x))
        return x, self.ln_out(x)


class MedusaHeads(nn.Module):
    """Medusa's heads (Cai et al. 2024, "Medusa"): ``n`` independent heads on the target's final
    hidden state ``h_s``; head i predicts token ``s + 2 + i`` (the target's own LM head predicts
    ``s + 1``). Each head is Medusa's residual block ``h + SiLU(W h + b)``, then a norm and the
    target's tied LM head (a vocabulary projection per head would weigh 1.25 MiB each)."""

    def __init__(self, d: int, n: int) -> None:
        super().__init__()
        self.n = n
        self.res = nn.ModuleList([nn.Linear(d, d) for _ in range(n)])
        self.norm = nn.ModuleList([nn.LayerNorm(d, eps=1e-5) for _ in range(n)])
        for lin in self.res:
            nn.init.zeros_(lin.weight)
            nn.init.zeros_(lin.bias)

    def forward(self, h: torch.Tensor) -> list[torch.Tensor]:
        """The normalised output of every head (the LM head's input), first head first."""
        return [norm(h + F.silu(lin(h))) for lin, norm in zip(self.res, self.norm, strict=True)]


class BlockDrafter(nn.Module):
    """A block drafter in the manner of DFlash (one forward proposes a whole block): the target's
    final hidden state ``h_s`` and the embedding of the token that follows it are fused,
    ``x = W [norm(h_s); norm(emb(x_{s+1}))]``; each of the ``n`` block positions adds its learned
    mask embedding and runs one shared pre-norm residual MLP; position i emits the distribution
    of token ``s + 2 + i`` through a norm and the target's tied LM head. The positions see the
    same context and never each other's drafts, so all ``n`` come out of one pass."""

    def __init__(self, d: int, n: int, inner: int = 3) -> None:
        super().__init__()
        self.n = n
        self.hnorm = nn.LayerNorm(d, eps=1e-5)
        self.enorm = nn.LayerNorm(d, eps=1e-5)
        self.fuse = nn.Linear(2 * d, d)
        self.pos = nn.Parameter(torch.zeros(n, d))
        nn.init.normal_(self.pos, std=0.02)
        self.ln_mlp = nn.LayerNorm(d, eps=1e-5)
        self.c_fc = Conv1D(d, inner * d)
        self.c_proj = Conv1D(inner * d, d)
        self.ln_out = nn.LayerNorm(d, eps=1e-5)

    def forward(self, h: torch.Tensor, tok_emb: torch.Tensor) -> torch.Tensor:
        """``h``, ``tok_emb``: [..., d] -> normalised outputs [..., n, d] for the LM head."""
        x = self.fuse(torch.cat([self.hnorm(h), self.enorm(tok_emb)], dim=-1))
        x = x.unsqueeze(-2) + self.pos
        x = x + self.c_proj(F.gelu(self.c_fc(self.ln_mlp(x)), approximate="tanh"))
        out: torch.Tensor = self.ln_out(x)
        return out


class DSparkDrafter(BlockDrafter):
    """A DSpark-style drafter (DeepSeek's DSpark): the block drafter's one-pass backbone, plus

    - a low-rank **Markov head**: position i's logits get ``U (V emb(d_{i-1}))``, a rank-``r``
      term from the embedding of the token drafted just before it (the pending token for the
      first position), which restores the dependency inside the block that a parallel drafter
      loses; the backbone stays one pass, the corrections are one small product per position;
    - a **confidence head**: per position a sigmoid of ``w [o_i; log p_max; entropy] + b`` (the
      backbone's output and the corrected distribution's top-1 log-probability and entropy),
      trained with binary cross-entropy against whether the target agrees with the draft at that
      position when it agreed with every draft before it, so that the product of the first i
      confidences estimates the probability that i drafts are accepted.
    """

    def __init__(self, d: int, n: int, vocab: int, rank: int = 16, inner: int = 3) -> None:
        super().__init__(d, n, inner)
        self.rank = rank
        self.markov_head = MarkovHead(d, vocab, rank)
        self.confidence_head = nn.Linear(d + 2, 1)

    def block(
        self, h: torch.Tensor, tok_emb: torch.Tensor, prev_emb: torch.Tensor, wte: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(backbone outputs [..., n, d], corrected logits [..., n, V]); ``prev_emb`` [..., n, d]
        holds the embedding of the token before each position (the pending token first)."""
        o = BlockDrafter.forward(self, h, tok_emb)
        return o, o @ wte.T + self.markov_head(prev_emb)

    def confidence_logit(self, o: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        """The confidence head's logit per position (its sigmoid is the confidence)."""
        lp = F.log_softmax(logits, dim=-1)
        top = lp.max(dim=-1, keepdim=True).values
        entropy = -(lp.exp() * lp).sum(-1, keepdim=True)
        out: torch.Tensor = self.confidence_head(torch.cat([o, top, entropy], dim=-1)).squeeze(-1)
        return out


class MarkovHead(nn.Module):
    """``U (V e)``: a rank-``r`` map from a token embedding to vocabulary logits (``down`` is V,
    ``up`` is U, zero at initialisation so that training starts from the plain block drafter)."""

    def __init__(self, d: int, vocab: int, rank: int) -> None:
        super().__init__()
        self.down = nn.Linear(d, rank, bias=False)
        self.up = nn.Linear(rank, vocab, bias=False)
        nn.init.zeros_(self.up.weight)

    def forward(self, emb: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.up(self.down(emb))
        return out


def hidden_and_layers(
    model: GPT, idx: torch.Tensor, layers: tuple[int, ...]
) -> tuple[torch.Tensor, torch.Tensor]:
    """(final hidden states after ``ln_f``, the residual stream after each block of ``layers``
    concatenated on the last axis)."""
    t = idx.shape[1]
    pos = torch.arange(t, device=idx.device)
    x = model.transformer.wte(idx) + model.transformer.wpe(pos)[None]
    taken = []
    for i, block in enumerate(model.transformer.h):
        x = block(x)
        if i in layers:
            taken.append(x)
    return model.transformer.ln_f(x), torch.cat(taken, dim=-1)


class Eagle3Drafter(nn.Module):
    """An EAGLE-3-style draft decoder (Li et al. 2025, "EAGLE-3"): the target's low, middle and
    high layers' features are fused, ``g = fc([f_low; f_mid; f_high])``; the decoder's input at
    a position is ``W [norm(g); norm(emb(next token))]``; one pre-norm decoder layer (causal
    attention over the draft's own cache, an MLP) and the target's tied LM head follow. Drafting
    step j > 1 takes the layer's own previous output in place of ``g`` (k passes for k drafts).
    Trained with EAGLE-3's training-time test for the second step: its query attends to the first
    step's keys before it and to its own key."""

    def __init__(
        self, d: int, n_layers_fused: int = 3, n_head: int = 2, head_dim: int = 32
    ) -> None:
        super().__init__()
        self.n_head, self.head_dim = n_head, head_dim
        self.fc = nn.Linear(n_layers_fused * d, d, bias=False)
        self.gnorm = nn.LayerNorm(d, eps=1e-5)
        self.enorm = nn.LayerNorm(d, eps=1e-5)
        self.fuse = nn.Linear(2 * d, d)
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.c_attn = Conv1D(d, 3 * n_head * head_dim)
        self.c_proj = Conv1D(n_head * head_dim, d)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.c_fc = Conv1D(d, d)
        self.c_fc_proj = Conv1D(d, d)
        self.ln_out = nn.LayerNorm(d, eps=1e-5)

    def inputs(self, g: torch.Tensor, tok_emb: torch.Tensor) -> torch.Tensor:
        return self.fuse(torch.cat([self.gnorm(g), self.enorm(tok_emb)], dim=-1))

    def qkv(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        b, t, _ = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(self.n_head * self.head_dim, dim=-1)

        def heads(z: torch.Tensor) -> torch.Tensor:
            return z.view(b, t, self.n_head, self.head_dim).transpose(1, 2)

        return heads(q), heads(k), heads(v)

    def finish(self, x: torch.Tensor, att: torch.Tensor) -> torch.Tensor:
        b, _, t, _ = att.shape
        x = x + self.c_proj(att.transpose(1, 2).reshape(b, t, -1))
        h = self.ln_2(x)
        out: torch.Tensor = x + self.c_fc_proj(F.gelu(self.c_fc(h), approximate="tanh"))
        return out

    def two_steps(
        self, g: torch.Tensor, emb_next: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Outputs (for the LM head, after ``ln_out``) of drafting steps 1 and 2 at every position
        of a window: step 1 reads the target's fused features, step 2 (shifted by one position)
        the step-1 output before it, attending to step 1's keys before it and its own key."""
        x1 = self.inputs(g, emb_next)
        q1, k1, v1 = self.qkv(x1)
        o1 = self.finish(x1, F.scaled_dot_product_attention(q1, k1, v1, is_causal=True))
        # step 2 at position i: input (o1 at i-1, emb of token i+1)
        prev = torch.cat([torch.zeros_like(o1[:, :1]), o1[:, :-1]], dim=1)
        x2 = self.inputs(prev, emb_next)
        q2, k2, v2 = self.qkv(x2)
        t = x2.shape[1]
        scale = 1.0 / math.sqrt(self.head_dim)
        scores = (q2 @ k1.transpose(-1, -2)) * scale
        before = torch.ones(t, t, dtype=torch.bool).tril(-1)
        scores = scores.masked_fill(~before, float("-inf"))
        own = (q2 * k2).sum(-1, keepdim=True) * scale
        w = torch.softmax(torch.cat([scores, own], dim=-1), dim=-1)
        att = w[..., :t] @ v1 + w[..., t:] * v2
        o2 = self.finish(x2, att)
        return self.ln_out(o1), self.ln_out(o2)
