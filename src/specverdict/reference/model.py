"""Numpy inference for GPT-2-layout checkpoints, with a KV cache that can roll back.

Computation is float64: verifying k+1 tokens in one forward and decoding them one at a time must
give the same argmax (greedy speculation is lossless only if the two paths agree), and in float64
the rounding differences between matrix shapes are far below any real gap between logits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from safetensors.numpy import load_file

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
    def from_dir(cls, path: Path) -> GPTConfig:
        raw = json.loads((path / "config.json").read_text())
        if raw.get("model_type") != "gpt2":
            raise ValueError(
                f"{path / 'config.json'}: model_type must be 'gpt2', got {raw.get('model_type')!r}"
            )
        return cls(
            vocab_size=int(raw["vocab_size"]),
            n_positions=int(raw["n_positions"]),
            n_embd=int(raw["n_embd"]),
            n_layer=int(raw["n_layer"]),
            n_head=int(raw["n_head"]),
            layer_norm_epsilon=float(raw.get("layer_norm_epsilon", 1e-5)),
        )


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


class GPTModel:
    """A GPT-2 decoder (tied LM head) evaluated in float64."""

    def __init__(self, config: GPTConfig, tensors: dict[str, NDArray[np.floating]]) -> None:
        self.config = config

        def get(name: str) -> F64:
            key = name if name in tensors else name.removeprefix("transformer.")
            if key not in tensors:
                raise KeyError(f"checkpoint is missing tensor {name!r}")
            return np.asarray(tensors[key], dtype=np.float64)

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
                    get(p + "attn.c_attn.weight"),
                    get(p + "attn.c_attn.bias"),
                    get(p + "attn.c_proj.weight"),
                    get(p + "attn.c_proj.bias"),
                    get(p + "ln_2.weight"),
                    get(p + "ln_2.bias"),
                    get(p + "mlp.c_fc.weight"),
                    get(p + "mlp.c_fc.bias"),
                    get(p + "mlp.c_proj.weight"),
                    get(p + "mlp.c_proj.bias"),
                )
            )
        self._scale = 1.0 / np.sqrt(config.head_dim)

    @classmethod
    def from_dir(cls, path: Path) -> GPTModel:
        return cls(GPTConfig.from_dir(path), load_file(str(path / "model.safetensors")))

    def new_cache(self) -> KVCache:
        return KVCache(self.config)

    def forward(
        self, tokens: list[int] | NDArray[np.int64], cache: KVCache, last_only: bool = False
    ) -> tuple[F64, F64]:
        """Append ``tokens`` to ``cache``; return (logits, final hidden states) for the new positions.

        With ``last_only`` only the last position's logits and hidden state are returned (prefill).
        """
        ids = np.asarray(tokens, dtype=np.int64)
        m = len(ids)
        start = cache.length
        if m == 0:
            raise ValueError("forward needs at least one token")
        if start + m > cache.capacity:
            raise ValueError(
                f"sequence of {start + m} tokens exceeds the context of {cache.capacity}"
            )
        cfg = self.config
        H, hd, eps = cfg.n_head, cfg.head_dim, cfg.layer_norm_epsilon
        end = start + m
        x = self.wte[ids] + self.wpe[start:end]
        mask = None
        if m > 1:
            # Query i (absolute position start+i) may attend keys 0..start+i.
            mask = np.arange(end)[None, :] > (start + np.arange(m))[:, None]
        for li, layer in enumerate(self.layers):
            h = layer_norm(x, layer.ln1_w, layer.ln1_b, eps)
            qkv = h @ layer.attn_w + layer.attn_b
            q = qkv[:, : cfg.n_embd].reshape(m, H, hd).transpose(1, 0, 2)
            cache.k[li, :, start:end] = (
                qkv[:, cfg.n_embd : 2 * cfg.n_embd].reshape(m, H, hd).transpose(1, 0, 2)
            )
            cache.v[li, :, start:end] = (
                qkv[:, 2 * cfg.n_embd :].reshape(m, H, hd).transpose(1, 0, 2)
            )
            keys = cache.k[li, :, :end]
            att = (q @ keys.transpose(0, 2, 1)) * self._scale
            if mask is not None:
                att = np.where(mask[None], -np.inf, att)
            att = np.exp(att - att.max(axis=-1, keepdims=True))
            att /= att.sum(axis=-1, keepdims=True)
            y = (att @ cache.v[li, :, :end]).transpose(1, 0, 2).reshape(m, cfg.n_embd)
            x = x + y @ layer.attn_proj_w + layer.attn_proj_b
            h = layer_norm(x, layer.ln2_w, layer.ln2_b, eps)
            x = x + gelu(h @ layer.fc_w + layer.fc_b) @ layer.proj_w + layer.proj_b
        cache.length = end
        if last_only:
            x = x[-1:]
        hidden = layer_norm(x, self.ln_f_w, self.ln_f_b, eps)
        logits: F64 = hidden @ self.lm_head
        return logits, hidden

    def embed(self, token: int) -> F64:
        out: F64 = self.wte[token]
        return out


class MTPHeadModel:
    """The MTP head (see the training module): recurrent, shares the target's tied embedding."""

    def __init__(self, tensors: dict[str, NDArray[np.floating]], target: GPTModel) -> None:
        def get(name: str) -> F64:
            key = "mtp." + name
            if key not in tensors:
                raise KeyError(f"MTP checkpoint is missing tensor {key!r}")
            return np.asarray(tensors[key], dtype=np.float64)

        self.target = target
        self.eps = target.config.layer_norm_epsilon
        self.hnorm = (get("hnorm.weight"), get("hnorm.bias"))
        self.enorm = (get("enorm.weight"), get("enorm.bias"))
        self.proj_w = get("eh_proj.weight").T.copy()  # torch Linear stores [out, in]
        self.proj_b = get("eh_proj.bias")
        self.ln_mlp = (get("ln_mlp.weight"), get("ln_mlp.bias"))
        self.fc_w, self.fc_b = get("mlp.c_fc.weight"), get("mlp.c_fc.bias")
        self.out_w, self.out_b = get("mlp.c_proj.weight"), get("mlp.c_proj.bias")
        self.ln_out = (get("ln_out.weight"), get("ln_out.bias"))

    @classmethod
    def from_dir(cls, path: Path, target: GPTModel) -> MTPHeadModel:
        return cls(load_file(str(path / "model.safetensors")), target)

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
