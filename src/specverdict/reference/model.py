"""Numpy inference for GPT-2-layout checkpoints, with a KV cache that can roll back.

Computation is float64: verifying k+1 tokens in one forward and decoding them one at a time must
give the same argmax (greedy speculation is lossless only if the two paths agree), and in float64
the rounding differences between matrix shapes are far below any real gap between logits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Self

import numpy as np
from numpy.typing import NDArray

from specverdict.reference.loading import LoadOptions, ModelLoad, load_checkpoint, read_config
from specverdict.reference.options import Scheme
from specverdict.reference.quant import fake_quantize, quantize_activations, round_bf16

F64 = NDArray[np.float64]
_GELU_C = float(np.sqrt(2.0 / np.pi))


@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int
    n_positions: int
    n_embd: int
    n_layer: int
    n_head: int
    layer_norm_epsilon: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head

    @classmethod
    def from_dir(
        cls, path: Path, role: str = "target", options: LoadOptions | None = None
    ) -> GPTConfig:
        raw = read_config(role, path, options or LoadOptions())
        if raw.get("model_type") != "gpt2":
            raise ValueError(
                f"{path / 'config.json'}: model_type must be 'gpt2', got {raw.get('model_type')!r}"
            )

        def num(key: str, default: float | None = None) -> float:
            value = raw.get(key, default)
            if not isinstance(value, int | float):
                raise ValueError(f"{path / 'config.json'}: {key} must be a number, got {value!r}")
            return float(value)

        return cls(
            vocab_size=int(num("vocab_size")),
            n_positions=int(num("n_positions")),
            n_embd=int(num("n_embd")),
            n_layer=int(num("n_layer")),
            n_head=int(num("n_head")),
            layer_norm_epsilon=num("layer_norm_epsilon", 1e-5),
        )


@dataclass(frozen=True)
class MoESpec:
    """A mixture-of-experts target made from the dense one by sparse upcycling: every expert
    starts as a copy of the layer's MLP and a seeded random router picks ``top_k`` of
    ``num_experts`` per token (softmax over the chosen, renormalised). The experts being equal,
    outputs match the dense model's; what changes is the computation: each token runs its
    routed experts only, and a step over many tokens (a verify of k+1, a batch) activates more
    distinct experts, each a separate weight read, as on real MoE models (Komatsuzaki et al.
    (2023), "Sparse upcycling", ICLR)."""

    num_experts: int = 8
    top_k: int = 2
    seed: int = 0


def layer_norm(x: F64, w: F64, b: F64, eps: float) -> F64:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    out: F64 = (x - mu) / np.sqrt(var + eps) * w + b
    return out


def gelu(x: F64) -> F64:
    """GPT-2's tanh GELU, written as ``x * sigmoid(2u)`` (identical to 1e-15): numpy's ``exp`` is
    vectorised where its float64 ``tanh`` is not, which made GELU the costliest op of a step."""
    u = np.minimum(2.0 * _GELU_C * (x + 0.044715 * x * x * x), 80.0)
    out: F64 = x - x / (1.0 + np.exp(u))
    return out


@dataclass(frozen=True)
class Layer:
    ln1_w: F64
    ln1_b: F64
    attn_w: F64
    attn_b: F64
    attn_proj_w: F64
    attn_proj_b: F64
    ln2_w: F64
    ln2_b: F64
    fc_w: F64
    fc_b: F64
    proj_w: F64
    proj_b: F64


class KVCache:
    """Keys and values of one sequence, preallocated to the model's context; ``length`` rolls back."""

    def __init__(self, config: GPTConfig) -> None:
        shape = (config.n_layer, config.n_head, config.n_positions, config.head_dim)
        self.k = np.zeros(shape)
        self.v = np.zeros(shape)
        self.length = 0
        self.capacity = config.n_positions

    def rollback(self, length: int) -> None:
        if not 0 <= length <= self.length:
            raise ValueError(f"cannot roll back a cache of length {self.length} to {length}")
        self.length = length


@dataclass(frozen=True)
class Expert:
    fc_w: F64
    fc_b: F64
    proj_w: F64
    proj_b: F64


class GPTModel:
    """A GPT-2 decoder (tied LM head) evaluated in float64, optionally with quantized weights
    (``quant.fake_quantize`` on the four linear layers of each block; embeddings and norms are
    rounded to bf16 under every scheme but ``none``) and an upcycled MoE MLP."""

    def __init__(
        self,
        config: GPTConfig,
        tensors: dict[str, NDArray[np.floating]],
        quantization: Scheme = "none",
        moe: MoESpec | None = None,
    ) -> None:
        self.config = config
        self.quantization = quantization
        #: activation format of multi-token verify passes: ``none`` (the decode path's numerics,
        #: lossless greedy speculation) or a scheme, as when an engine verifies k+1 tokens with a
        #: low-precision GEMM that quantizes its input while single-token decode runs a
        #: weight-only GEMV (set by the engine's ``verify_numerics``)
        self.verify_activations: Scheme = "none"
        self.moe = moe
        self.load_report: ModelLoad | None = None

        def get(name: str, linear: bool = False) -> F64:
            key = name if name in tensors else name.removeprefix("transformer.")
            if key not in tensors:
                raise KeyError(f"checkpoint is missing tensor {name!r}")
            value = np.asarray(tensors[key], dtype=np.float64)
            if quantization == "none":
                return value
            return fake_quantize(value, quantization) if linear else round_bf16(value)

        self.wte = get("transformer.wte.weight")
        self.lm_head = np.ascontiguousarray(self.wte.T)  # tied; contiguous for a faster matmul
        self.wpe = get("transformer.wpe.weight")
        self.ln_f_w = get("transformer.ln_f.weight")
        self.ln_f_b = get("transformer.ln_f.bias")
        self.layers = []
        for i in range(config.n_layer):
            p = f"transformer.h.{i}."
            self.layers.append(
                Layer(
                    get(p + "ln_1.weight"),
                    get(p + "ln_1.bias"),
                    get(p + "attn.c_attn.weight", linear=True),
                    get(p + "attn.c_attn.bias"),
                    get(p + "attn.c_proj.weight", linear=True),
                    get(p + "attn.c_proj.bias"),
                    get(p + "ln_2.weight"),
                    get(p + "ln_2.bias"),
                    get(p + "mlp.c_fc.weight", linear=True),
                    get(p + "mlp.c_fc.bias"),
                    get(p + "mlp.c_proj.weight", linear=True),
                    get(p + "mlp.c_proj.bias"),
                )
            )
        self._scale = 1.0 / np.sqrt(config.head_dim)
        self.experts: list[list[Expert]] = []
        self.routers: list[F64] = []
        if moe is not None:
            if not 1 <= moe.top_k <= moe.num_experts:
                raise ValueError(
                    f"MoE top_k {moe.top_k} must lie in 1..num_experts ({moe.num_experts})"
                )
            rng = np.random.default_rng(moe.seed)
            for layer in self.layers:
                # separate copies: each expert is its own weight read, as on real hardware
                self.experts.append(
                    [
                        Expert(
                            layer.fc_w.copy(),
                            layer.fc_b.copy(),
                            layer.proj_w.copy(),
                            layer.proj_b.copy(),
                        )
                        for _ in range(moe.num_experts)
                    ]
                )
                self.routers.append(
                    rng.normal(0.0, 1.0 / np.sqrt(config.n_embd), (config.n_embd, moe.num_experts))
                )
        #: expert activations counted by the last forward: (layer, tokens, distinct experts)
        self.last_expert_load: list[int] = []
        #: blocks whose outputs (the residual stream) the last forward keeps for every new
        #: position, concatenated per sequence in ``last_features`` (EAGLE-3 reads them)
        self.capture_layers: tuple[int, ...] = ()
        self.last_features: list[F64] = []

    @classmethod
    def from_dir(
        cls,
        path: Path,
        role: str = "target",
        options: LoadOptions | None = None,
        quantization: Scheme = "none",
        moe: MoESpec | None = None,
    ) -> GPTModel:
        options = options or LoadOptions()
        config = GPTConfig.from_dir(path, role, options)
        tensors, report = load_checkpoint(role, path, options, quantization)
        model = cls(config, tensors, quantization, moe)
        model.load_report = report
        return model

    def new_cache(self) -> KVCache:
        return KVCache(self.config)

    def weight_params(self) -> tuple[int, int]:
        """(parameters every step reads outside routed experts, parameters of one expert of
        one layer; 0 for a dense model). The tied embedding counts once (the LM head reads it)."""
        shared = self.wte.size + self.ln_f_w.size + self.ln_f_b.size
        mlp = 0
        for layer in self.layers:
            shared += layer.ln1_w.size + layer.ln1_b.size + layer.attn_w.size + layer.attn_b.size
            shared += layer.attn_proj_w.size + layer.attn_proj_b.size
            shared += layer.ln2_w.size + layer.ln2_b.size
            mlp = layer.fc_w.size + layer.fc_b.size + layer.proj_w.size + layer.proj_b.size
        if self.moe is None:
            return shared + mlp * len(self.layers), 0
        return shared + sum(r.size for r in self.routers), mlp

    def step_work(self, rows: int) -> tuple[float, float]:
        """(parameters read, parameters times rows computed) by the last forward of ``rows``
        tokens: the roofline inputs of ``device.DeviceModel``."""
        shared, expert = self.weight_params()
        if self.moe is None:
            return float(shared), float(shared * rows)
        read = shared + expert * sum(self.last_expert_load)
        active = shared + expert * self.moe.top_k * len(self.layers)
        return float(read), float(active * rows)

    def _mlp(self, li: int, h: F64, verify: NDArray[np.bool_] | None = None) -> F64:
        layer = self.layers[li]
        if self.moe is None:
            inner = gelu(h @ layer.fc_w + layer.fc_b)
            if verify is not None:  # the second GEMM of a verify pass reads its input quantized
                inner[verify] = quantize_activations(inner[verify], self.verify_activations)
            out: F64 = inner @ layer.proj_w + layer.proj_b
            return out
        scores = h @ self.routers[li]
        top = np.argsort(-scores, axis=-1, kind="stable")[:, : self.moe.top_k]
        chosen = np.take_along_axis(scores, top, axis=-1)
        gates = np.exp(chosen - chosen.max(axis=-1, keepdims=True))
        gates /= gates.sum(axis=-1, keepdims=True)
        out = np.zeros_like(h)
        active = np.unique(top)
        self.last_expert_load.append(len(active))
        for e in active:
            rows, slot = np.nonzero(top == e)
            ex = self.experts[li][int(e)]
            y = gelu(h[rows] @ ex.fc_w + ex.fc_b) @ ex.proj_w + ex.proj_b
            out[rows] += gates[rows, slot][:, None] * y
        return out

    def forward(
        self, tokens: list[int] | NDArray[np.int64], cache: KVCache, last_only: bool = False
    ) -> tuple[F64, F64]:
        """Append ``tokens`` to ``cache``; return (logits, final hidden states) for the new positions.

        With ``last_only`` only the last position's logits and hidden state are returned (prefill).
        """
        return self.forward_batch([(tokens, cache, last_only)])[0]

    def forward_batch(
        self, items: Sequence[tuple[list[int] | NDArray[np.int64], KVCache, bool]]
    ) -> list[tuple[F64, F64]]:
        """One forward pass over several sequences (continuous batching): their new tokens are
        stacked so that every linear layer is one matrix product over the whole batch, and
        attention runs per sequence against its own cache. Rows do not interact, so each
        sequence gets what it would get alone (up to float64 rounding of the larger products).
        """
        cfg = self.config
        H, hd, eps = cfg.n_head, cfg.head_dim, cfg.layer_norm_epsilon
        spans: list[tuple[int, int, int]] = []  # (row offset, start, m) per sequence
        xs = []
        row = 0
        for tokens, cache, _ in items:
            ids = np.asarray(tokens, dtype=np.int64)
            m, start = len(ids), cache.length
            if m == 0:
                raise ValueError("forward needs at least one token")
            if start + m > cache.capacity:
                raise ValueError(
                    f"sequence of {start + m} tokens exceeds the context of {cache.capacity}"
                )
            xs.append(self.wte[ids] + self.wpe[start : start + m])
            spans.append((row, start, m))
            row += m
        x = np.concatenate(xs) if len(xs) > 1 else xs[0]
        masks = [
            np.arange(start + m)[None, :] > (start + np.arange(m))[:, None] if m > 1 else None
            for _, start, m in spans
        ]
        self.last_expert_load = []
        captured: list[F64] = []
        # rows of multi-token verify passes (not prefills), when their kernels read activations
        # at the weights' precision (see ``verify_activations``)
        verify: NDArray[np.bool_] | None = None
        if self.verify_activations != "none":
            flags = [
                np.full(m, m > 1 and not last_only)
                for (_, _, m), (_, _, last_only) in zip(spans, items, strict=True)
            ]
            verify = np.concatenate(flags)
            if not verify.any():
                verify = None
        for li, layer in enumerate(self.layers):
            h = layer_norm(x, layer.ln1_w, layer.ln1_b, eps)
            if verify is not None:
                h[verify] = quantize_activations(h[verify], self.verify_activations)
            qkv = h @ layer.attn_w + layer.attn_b
            y = np.empty((row, cfg.n_embd))
            for (off, start, m), (_, cache, _), mask in zip(spans, items, masks, strict=True):
                end = start + m
                part = qkv[off : off + m]
                q = part[:, : cfg.n_embd].reshape(m, H, hd).transpose(1, 0, 2)
                cache.k[li, :, start:end] = (
                    part[:, cfg.n_embd : 2 * cfg.n_embd].reshape(m, H, hd).transpose(1, 0, 2)
                )
                cache.v[li, :, start:end] = (
                    part[:, 2 * cfg.n_embd :].reshape(m, H, hd).transpose(1, 0, 2)
                )
                att = (q @ cache.k[li, :, :end].transpose(0, 2, 1)) * self._scale
                if mask is not None:
                    att = np.where(mask[None], -np.inf, att)
                att = np.exp(att - att.max(axis=-1, keepdims=True))
                att /= att.sum(axis=-1, keepdims=True)
                y[off : off + m] = (
                    (att @ cache.v[li, :, :end]).transpose(1, 0, 2).reshape(m, cfg.n_embd)
                )
            if verify is not None:
                y[verify] = quantize_activations(y[verify], self.verify_activations)
            x = x + y @ layer.attn_proj_w + layer.attn_proj_b
            h = layer_norm(x, layer.ln2_w, layer.ln2_b, eps)
            if verify is not None:
                h[verify] = quantize_activations(h[verify], self.verify_activations)
            x = x + self._mlp(li, h, verify)
            if li in self.capture_layers:
                captured.append(x)
        if captured:
            both = np.concatenate(captured, axis=-1)
            self.last_features = [both[off : off + m] for off, _, m in spans]
        out = []
        for (off, start, m), (_, cache, last_only) in zip(spans, items, strict=True):
            cache.length = start + m
            xi = x[off + m - 1 : off + m] if last_only else x[off : off + m]
            hidden = layer_norm(xi, self.ln_f_w, self.ln_f_b, eps)
            logits: F64 = hidden @ self.lm_head
            out.append((logits, hidden))
        return out

    def embed(self, token: int) -> F64:
        out: F64 = self.wte[token]
        return out


class _OnTarget:
    """A drafting module on the target, loaded from its own checkpoint directory under its
    role's name (``ROLE``): the MTP head, Medusa's heads, the block drafter."""

    ROLE: ClassVar[str]
    load_report: ModelLoad | None

    def __init__(
        self, tensors: dict[str, NDArray[np.floating]], target: GPTModel, quantization: Scheme
    ) -> None:
        raise NotImplementedError

    @classmethod
    def from_dir(
        cls,
        path: Path,
        target: GPTModel,
        options: LoadOptions | None = None,
        quantization: Scheme = "none",
    ) -> Self:
        tensors, report = load_checkpoint(cls.ROLE, path, options or LoadOptions(), quantization)
        module = cls(tensors, target, quantization)
        module.load_report = report
        return module


class MTPHeadModel(_OnTarget):
    """The MTP head (see the training module): recurrent, shares the target's tied embedding."""

    ROLE = "mtp"

    def __init__(
        self,
        tensors: dict[str, NDArray[np.floating]],
        target: GPTModel,
        quantization: Scheme = "none",
    ) -> None:
        self.load_report: ModelLoad | None = None

        def get(name: str, linear: bool = False) -> F64:
            key = "mtp." + name
            if key not in tensors:
                raise KeyError(f"MTP checkpoint is missing tensor {key!r}")
            value = np.asarray(tensors[key], dtype=np.float64)
            if quantization == "none":
                return value
            if linear and value.ndim == 2:
                return fake_quantize(value, quantization)
            return round_bf16(value)

        self.target = target
        self.eps = target.config.layer_norm_epsilon
        self.hnorm = (get("hnorm.weight"), get("hnorm.bias"))
        self.enorm = (get("enorm.weight"), get("enorm.bias"))
        # torch Linear stores [out, in]: quantize in the [in, out] layout like the others
        self.proj_w = fake_quantize(get("eh_proj.weight").T.copy(), quantization)
        self.proj_b = get("eh_proj.bias")
        self.ln_mlp = (get("ln_mlp.weight"), get("ln_mlp.bias"))
        self.fc_w, self.fc_b = get("mlp.c_fc.weight", True), get("mlp.c_fc.bias")
        self.out_w, self.out_b = get("mlp.c_proj.weight", True), get("mlp.c_proj.bias")
        self.ln_out = (get("ln_out.weight"), get("ln_out.bias"))

    def weight_params(self) -> int:
        """Parameters one drafting step reads, the shared LM head included."""
        arrays = (
            *self.hnorm,
            *self.enorm,
            self.proj_w,
            self.proj_b,
            *self.ln_mlp,
            self.fc_w,
            self.fc_b,
            self.out_w,
            self.out_b,
            *self.ln_out,
        )
        return sum(a.size for a in arrays) + self.target.lm_head.size

    def step(self, hidden: F64, token: int) -> tuple[F64, F64]:
        """One drafting step: (previous hidden, next token) -> (new hidden, logits of the token after)."""
        e = self.target.embed(token)
        z = np.concatenate(
            [layer_norm(hidden, *self.hnorm, self.eps), layer_norm(e, *self.enorm, self.eps)]
        )
        x = z @ self.proj_w + self.proj_b
        x = (
            x
            + gelu(layer_norm(x, *self.ln_mlp, self.eps) @ self.fc_w + self.fc_b) @ self.out_w
            + self.out_b
        )
        logits: F64 = layer_norm(x, *self.ln_out, self.eps) @ self.target.lm_head
        return x, logits


def _silu(x: F64) -> F64:
    out: F64 = x / (1.0 + np.exp(-np.maximum(x, -80.0)))
    return out


class _Checkpoint:
    """Tensors of a module on the target (``<prefix>.<name>``), quantized like the MTP head's."""

    def __init__(
        self, tensors: dict[str, NDArray[np.floating]], prefix: str, quantization: Scheme
    ) -> None:
        self.tensors, self.prefix, self.quantization = tensors, prefix, quantization

    def has(self, name: str) -> bool:
        return f"{self.prefix}.{name}" in self.tensors

    def get(self, name: str, linear: bool = False, transpose: bool = False) -> F64:
        key = f"{self.prefix}.{name}"
        if key not in self.tensors:
            raise KeyError(f"{self.prefix} checkpoint is missing tensor {key!r}")
        value = np.asarray(self.tensors[key], dtype=np.float64)
        if transpose:  # torch Linear stores [out, in]: quantize in the [in, out] layout
            value = value.T.copy()
        if self.quantization == "none":
            return value
        if linear and value.ndim == 2:
            return fake_quantize(value, self.quantization)
        return round_bf16(value)


class MedusaHeadsModel(_OnTarget):
    """Medusa's heads (see the training module): head i maps the target's final hidden state
    ``h`` to ``norm_i(h + SiLU(W_i h + b_i))`` and the target's tied LM head; all heads read the
    same ``h``, so they run as one pass."""

    ROLE = "medusa"

    def __init__(
        self,
        tensors: dict[str, NDArray[np.floating]],
        target: GPTModel,
        quantization: Scheme = "none",
    ) -> None:
        ck = _Checkpoint(tensors, "medusa", quantization)
        self.load_report: ModelLoad | None = None
        self.target = target
        self.eps = target.config.layer_norm_epsilon
        n = 0
        while ck.has(f"res.{n}.weight"):
            n += 1
        if n == 0:
            raise KeyError("medusa checkpoint has no heads (medusa.res.0.weight)")
        self.num_heads = n
        self.res_w = [ck.get(f"res.{i}.weight", True, transpose=True) for i in range(n)]
        self.res_b = [ck.get(f"res.{i}.bias") for i in range(n)]
        self.norm = [(ck.get(f"norm.{i}.weight"), ck.get(f"norm.{i}.bias")) for i in range(n)]

    def head_params(self) -> int:
        """Parameters of one head, without the shared LM head."""
        w, b, (nw, nb) = self.res_w[0], self.res_b[0], self.norm[0]
        return w.size + b.size + nw.size + nb.size

    def logits(self, hidden: F64, n: int) -> F64:
        """The first ``n`` heads' logits, one row per head: row i drafts the token i + 2
        positions after ``hidden``'s."""
        rows = []
        for i in range(n):
            x = hidden + _silu(hidden @ self.res_w[i] + self.res_b[i])
            rows.append(layer_norm(x, *self.norm[i], self.eps))
        out: F64 = np.stack(rows) @ self.target.lm_head
        return out


class BlockDrafterModel(_OnTarget):
    """The block drafter (see the training module): ``x = W [norm(h); norm(emb(tok))]`` from the
    target's final hidden state and the pending token, plus a learned mask embedding per block
    position, one shared residual MLP, a norm and the target's tied LM head. The positions never
    see each other's drafts, so the whole block is one pass."""

    ROLE = "dflash"

    def __init__(
        self,
        tensors: dict[str, NDArray[np.floating]],
        target: GPTModel,
        quantization: Scheme = "none",
    ) -> None:
        ck = _Checkpoint(tensors, self.ROLE, quantization)
        self.load_report: ModelLoad | None = None
        self.target = target
        self.eps = target.config.layer_norm_epsilon
        self.hnorm = (ck.get("hnorm.weight"), ck.get("hnorm.bias"))
        self.enorm = (ck.get("enorm.weight"), ck.get("enorm.bias"))
        self.fuse_w = ck.get("fuse.weight", True, transpose=True)
        self.fuse_b = ck.get("fuse.bias")
        self.pos = ck.get("pos")
        self.ln_mlp = (ck.get("ln_mlp.weight"), ck.get("ln_mlp.bias"))
        self.fc_w, self.fc_b = ck.get("c_fc.weight", True), ck.get("c_fc.bias")
        self.proj_w, self.proj_b = ck.get("c_proj.weight", True), ck.get("c_proj.bias")
        self.ln_out = (ck.get("ln_out.weight"), ck.get("ln_out.bias"))
        self.block_size = self.pos.shape[0]

    def weight_params(self) -> int:
        """Parameters one pass reads, the shared LM head included."""
        arrays = (
            *self.hnorm,
            *self.enorm,
            self.fuse_w,
            self.fuse_b,
            self.pos,
            *self.ln_mlp,
            self.fc_w,
            self.fc_b,
            self.proj_w,
            self.proj_b,
            *self.ln_out,
        )
        return sum(a.size for a in arrays) + self.target.lm_head.size

    def logits(self, hidden: F64, token: int, n: int) -> F64:
        """The first ``n`` block positions' logits: row i drafts the token i + 1 places after
        ``token`` (the token that follows ``hidden``'s position)."""
        out: F64 = self.outputs(hidden, token, n) @ self.target.lm_head
        return out

    def outputs(self, hidden: F64, token: int, n: int) -> F64:
        """The first ``n`` block positions' normalised outputs (the LM head's inputs)."""
        e = self.target.embed(token)
        z = np.concatenate(
            [layer_norm(hidden, *self.hnorm, self.eps), layer_norm(e, *self.enorm, self.eps)]
        )
        x = (z @ self.fuse_w + self.fuse_b)[None, :] + self.pos[:n]
        x = (
            x
            + gelu(layer_norm(x, *self.ln_mlp, self.eps) @ self.fc_w + self.fc_b) @ self.proj_w
            + self.proj_b
        )
        out: F64 = layer_norm(x, *self.ln_out, self.eps)
        return out


class DSparkDrafterModel(BlockDrafterModel):
    """The DSpark drafter (see the training module): the block drafter's backbone (one pass for
    the block), a low-rank Markov head that adds ``U (V emb(d_{i-1}))`` to position i's logits
    (``d_{i-1}`` the token drafted before it, the pending token for the first), and a
    confidence head, ``sigmoid(w [o_i; log p_max; entropy] + b)`` of the backbone's output and
    the corrected distribution, estimating that the target accepts position i's draft given it
    accepted the ones before."""

    ROLE = "dspark"

    def __init__(
        self,
        tensors: dict[str, NDArray[np.floating]],
        target: GPTModel,
        quantization: Scheme = "none",
    ) -> None:
        super().__init__(tensors, target, quantization)
        ck = _Checkpoint(tensors, self.ROLE, quantization)
        self.markov_down = ck.get("markov_head.down.weight", True, transpose=True)  # [d, r]
        self.markov_up = ck.get("markov_head.up.weight", True, transpose=True)  # [r, V]
        self.conf_w = ck.get("confidence_head.weight")[0]
        self.conf_b = float(ck.get("confidence_head.bias")[0])
        self.rank = self.markov_down.shape[1]

    def weight_params(self) -> int:
        """Parameters one pass reads: the backbone, the LM head, both heads."""
        heads = int(self.markov_down.size + self.markov_up.size + self.conf_w.size + 1)
        return super().weight_params() + heads

    def markov_params(self) -> int:
        """Parameters one position's Markov correction computes with."""
        return int(self.markov_down.size + self.markov_up.size)

    def correction(self, token: int) -> F64:
        """The Markov head's logits term for the position after ``token``."""
        out: F64 = (self.target.embed(token) @ self.markov_down) @ self.markov_up
        return out

    def confidence(self, output: F64, logits: F64) -> float:
        """The confidence head on one position's backbone output and corrected logits."""
        z = logits - logits.max()
        lp = z - np.log(np.exp(z).sum())
        entropy = -float((np.exp(lp) * lp).sum())
        x = float(output @ self.conf_w[:-2]) + self.conf_w[-2] * lp.max()
        x += self.conf_w[-1] * entropy + self.conf_b
        return float(1.0 / (1.0 + np.exp(-x)))


class Eagle3DrafterModel:
    """The EAGLE-3-style draft decoder (see the training module): ``g = fc([f_low; f_mid;
    f_high])`` from the target's layers, the input ``W [norm(g); norm(emb(next token))]``, one
    pre-norm decoder layer with its own KV cache, a norm and the target's tied LM head. Drafting
    feeds the layer's own output back as ``g``: one pass per drafted token."""

    def __init__(
        self,
        tensors: dict[str, NDArray[np.floating]],
        target: GPTModel,
        layers: tuple[int, ...],
        n_head: int,
        head_dim: int,
        quantization: Scheme = "none",
    ) -> None:
        ck = _Checkpoint(tensors, "eagle3", quantization)
        self.load_report: ModelLoad | None = None
        self.target = target
        self.layers = layers
        self.n_head, self.head_dim = n_head, head_dim
        self.eps = target.config.layer_norm_epsilon
        self.fc_w = ck.get("fc.weight", True, transpose=True)
        self.gnorm = (ck.get("gnorm.weight"), ck.get("gnorm.bias"))
        self.enorm = (ck.get("enorm.weight"), ck.get("enorm.bias"))
        self.fuse_w = ck.get("fuse.weight", True, transpose=True)
        self.fuse_b = ck.get("fuse.bias")
        self.ln_1 = (ck.get("ln_1.weight"), ck.get("ln_1.bias"))
        self.attn_w, self.attn_b = ck.get("c_attn.weight", True), ck.get("c_attn.bias")
        self.proj_w, self.proj_b = ck.get("c_proj.weight", True), ck.get("c_proj.bias")
        self.ln_2 = (ck.get("ln_2.weight"), ck.get("ln_2.bias"))
        self.fc1_w, self.fc1_b = ck.get("c_fc.weight", True), ck.get("c_fc.bias")
        self.fc2_w, self.fc2_b = ck.get("c_fc_proj.weight", True), ck.get("c_fc_proj.bias")
        self.ln_out = (ck.get("ln_out.weight"), ck.get("ln_out.bias"))
        self._scale = 1.0 / np.sqrt(head_dim)

    @classmethod
    def from_dir(
        cls,
        path: Path,
        target: GPTModel,
        options: LoadOptions | None = None,
        quantization: Scheme = "none",
    ) -> Eagle3DrafterModel:
        options = options or LoadOptions()
        raw = read_config("eagle3", path, options)
        layers = raw.get("target_layers")
        n_head, head_dim = raw.get("n_head"), raw.get("head_dim")
        if not (isinstance(layers, list) and isinstance(n_head, int) and isinstance(head_dim, int)):
            raise ValueError(f"{path / 'config.json'}: needs target_layers, n_head and head_dim")
        if any(not isinstance(i, int) or not 0 <= i < target.config.n_layer for i in layers):
            raise ValueError(f"{path / 'config.json'}: target_layers {layers} outside the target")
        tensors, report = load_checkpoint("eagle3", path, options, quantization)
        drafter = cls(tensors, target, tuple(layers), n_head, head_dim, quantization)
        drafter.load_report = report
        return drafter

    def weight_params(self) -> int:
        """Parameters one drafting pass reads, the shared LM head included."""
        arrays = (
            self.fc_w,
            *self.gnorm,
            *self.enorm,
            self.fuse_w,
            self.fuse_b,
            *self.ln_1,
            self.attn_w,
            self.attn_b,
            self.proj_w,
            self.proj_b,
            *self.ln_2,
            self.fc1_w,
            self.fc1_b,
            self.fc2_w,
            self.fc2_b,
            *self.ln_out,
        )
        return sum(a.size for a in arrays) + self.target.lm_head.size

    def new_cache(self) -> tuple[F64, F64]:
        shape = (self.n_head, self.target.config.n_positions, self.head_dim)
        return np.zeros(shape), np.zeros(shape)

    def fuse_features(self, features: F64) -> F64:
        out: F64 = features @ self.fc_w
        return out

    def forward(self, g: F64, tokens: list[int], cache: tuple[F64, F64], start: int) -> F64:
        """Run the layer on ``m`` new positions (rows of ``g`` and their next tokens) appended at
        ``start`` of ``cache``; returns their outputs (the next ``g``), [m, d]."""
        e = self.target.wte[np.asarray(tokens, dtype=np.int64)]
        z = np.concatenate(
            [layer_norm(g, *self.gnorm, self.eps), layer_norm(e, *self.enorm, self.eps)], axis=-1
        )
        x = z @ self.fuse_w + self.fuse_b
        m, H, hd = len(tokens), self.n_head, self.head_dim
        qkv = layer_norm(x, *self.ln_1, self.eps) @ self.attn_w + self.attn_b
        q = qkv[:, : H * hd].reshape(m, H, hd).transpose(1, 0, 2)
        end = start + m
        keys, values = cache
        keys[:, start:end] = qkv[:, H * hd : 2 * H * hd].reshape(m, H, hd).transpose(1, 0, 2)
        values[:, start:end] = qkv[:, 2 * H * hd :].reshape(m, H, hd).transpose(1, 0, 2)
        att = (q @ keys[:, :end].transpose(0, 2, 1)) * self._scale
        if m > 1:
            mask = np.arange(end)[None, :] > (start + np.arange(m))[:, None]
            att = np.where(mask[None], -np.inf, att)
        att = np.exp(att - att.max(axis=-1, keepdims=True))
        att /= att.sum(axis=-1, keepdims=True)
        y = (att @ values[:, :end]).transpose(1, 0, 2).reshape(m, H * hd)
        x = x + y @ self.proj_w + self.proj_b
        h = layer_norm(x, *self.ln_2, self.eps)
        out: F64 = x + gelu(h @ self.fc1_w + self.fc1_b) @ self.fc2_w + self.fc2_b
        return out

    def logits(self, out: F64) -> F64:
        logits: F64 = layer_norm(out, *self.ln_out, self.eps) @ self.target.lm_head
        return logits
