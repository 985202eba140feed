"""Export the reference models as GGUF files that llama.cpp loads.

The shipped target and draft are ``GPT2LMHeadModel`` checkpoints (safetensors) with a
``tokenizers`` byte-level BPE tokenizer. The export writes ``DIR/target.gguf`` and
``DIR/draft.gguf`` (llama.cpp's ``gpt2`` architecture) and ``DIR/export-gguf.json`` with the
sha256 of every written file and of the files it was made from.

What goes in, read from llama.cpp's converter and loader to learn the format:

- tensors under llama.cpp's GPT-2 names (``token_embd``, ``position_embd``,
  ``blk.N.attn_qkv``, ...). GPT-2's ``Conv1D`` stores its matrices as (in, out); they are
  transposed to the (out, in) layout every other linear layer has. With ``f16`` the matrices are
  stored as half floats and norms and biases stay f32, as llama.cpp's own converter does;
- the tokenizer: ``tokenizer.ggml.model = gpt2`` with the vocabulary, token types (the three
  special tokens are control tokens), the merges, EOS ``<|endoftext|>``, end of turn
  ``<|im_end|>``, and no BOS added;
- the pre-tokenizer ``gpt-2``. The shipped tokenizer splits off every newline before the GPT-2
  byte-level regex; llama.cpp has no such pre-tokenizer, but no merge of the vocabulary contains
  a newline, so BPE never joins a newline to anything and the ids are the same. The export
  checks that instead of assuming it, and refuses a tokenizer for which it does not hold;
- the chat template (``tokenizer.chat_template``), the one the reference server renders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gguf
import numpy as np
from numpy.typing import NDArray
from safetensors.numpy import load_file

from specverdict.reference.chat import CHAT_TEMPLATE, IM_END, SPECIAL_TOKENS
from specverdict.reference.export import EXPORTED, sha256
from specverdict.reference.weights import shipped

#: the source files a GGUF is made from
SOURCE_FILES = ("config.json", "generation_config.json", "model.safetensors", "tokenizer.json")
MANIFEST = "export-gguf.json"
#: output precision -> (numpy type of the matrices, llama.cpp file type)
DTYPES: dict[str, tuple[type[np.floating[Any]], gguf.LlamaFileType]] = {
    "f32": (np.float32, gguf.LlamaFileType.ALL_F32),
    "f16": (np.float16, gguf.LlamaFileType.MOSTLY_F16),
}
#: GPT-2 per-layer tensor suffixes -> llama.cpp's names (``blk.N.`` prefix)
LAYER_TENSORS = {
    "ln_1.weight": "attn_norm.weight",
    "ln_1.bias": "attn_norm.bias",
    "attn.c_attn.weight": "attn_qkv.weight",
    "attn.c_attn.bias": "attn_qkv.bias",
    "attn.c_proj.weight": "attn_output.weight",
    "attn.c_proj.bias": "attn_output.bias",
    "ln_2.weight": "ffn_norm.weight",
    "ln_2.bias": "ffn_norm.bias",
    "mlp.c_fc.weight": "ffn_up.weight",
    "mlp.c_fc.bias": "ffn_up.bias",
    "mlp.c_proj.weight": "ffn_down.weight",
    "mlp.c_proj.bias": "ffn_down.bias",
}
GLOBAL_TENSORS = {
    "transformer.wte.weight": "token_embd.weight",
    "transformer.wpe.weight": "position_embd.weight",
    "transformer.ln_f.weight": "output_norm.weight",
    "transformer.ln_f.bias": "output_norm.bias",
    "lm_head.weight": "output.weight",
}
#: GPT-2 ``Conv1D`` matrices, stored (in, out)
CONV1D = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight")
NEWLINE = "\u010a"  # the byte-level alphabet's newline ("Ċ")


@dataclass(frozen=True)
class Hparams:
    n_ctx: int
    n_embd: int
    n_ff: int
    n_layer: int
    n_head: int
    eps: float
    tied: bool


def _hparams(name: str, config: dict[str, Any]) -> Hparams:
    archs = config.get("architectures") or []
    if config.get("model_type") != "gpt2" or archs != ["GPT2LMHeadModel"]:
        raise ValueError(
            f"{name}: model_type {config.get('model_type')!r}, architectures {archs}: expected "
            "gpt2 / GPT2LMHeadModel"
        )
    if config.get("activation_function", "gelu_new") != "gelu_new":
        raise ValueError(
            f"{name}: activation_function {config['activation_function']!r}: llama.cpp's gpt2 "
            "runs gelu_new (the tanh approximation) only"
        )
    n_embd = int(config["n_embd"])
    return Hparams(
        n_ctx=int(config["n_positions"]),
        n_embd=n_embd,
        n_ff=int(config.get("n_inner") or 4 * n_embd),
        n_layer=int(config["n_layer"]),
        n_head=int(config["n_head"]),
        eps=float(config.get("layer_norm_epsilon", 1e-5)),
        tied=bool(config.get("tie_word_embeddings", True)),
    )


def gguf_tensors(
    name: str, raw: dict[str, NDArray[Any]], hp: Hparams, dtype: str
) -> dict[str, NDArray[Any]]:
    """The checkpoint's tensors under llama.cpp's names, in its layout and ``dtype``; raises
    ValueError naming the first missing or unexpected tensor."""
    wanted = {k: v for k, v in GLOBAL_TENSORS.items() if k != "lm_head.weight" or not hp.tied}
    for i in range(hp.n_layer):
        for suffix, target in LAYER_TENSORS.items():
            wanted[f"transformer.h.{i}.{suffix}"] = f"blk.{i}.{target}"
    ignorable = {"lm_head.weight"} if hp.tied else set()
    missing = sorted(set(wanted) - set(raw))
    if missing:
        raise ValueError(f"{name}: missing tensor {missing[0]} ({len(missing)} missing)")
    extra = sorted(k for k in set(raw) - set(wanted) - ignorable if not k.endswith(".attn.bias"))
    if extra:
        raise ValueError(f"{name}: unexpected tensor {extra[0]} (not a GPT-2 tensor)")
    matrix_type = DTYPES[dtype][0]
    out: dict[str, NDArray[Any]] = {}
    for src, dst in wanted.items():
        value = np.asarray(raw[src], dtype=np.float32)
        if src.endswith(CONV1D):
            value = value.T
        out[dst] = np.ascontiguousarray(value.astype(matrix_type) if value.ndim > 1 else value)
    return out


@dataclass(frozen=True)
class Vocab:
    tokens: list[str]
    types: list[int]
    merges: list[str]
    eos: int
    eot: int


def gguf_vocab(name: str, tokenizer: dict[str, Any], n_vocab: int) -> Vocab:
    """The byte-level BPE tokenizer as llama.cpp's ``gpt2`` vocabulary; raises ValueError when
    llama.cpp's ``gpt-2`` pre-tokenizer would split text differently from it."""
    model = tokenizer.get("model", {})
    if model.get("type") != "BPE":
        raise ValueError(f"{name}: tokenizer model {model.get('type')!r}: expected BPE")
    _check_pre_tokenizer(name, tokenizer.get("pre_tokenizer"))
    vocab: dict[str, int] = dict(model["vocab"])
    for added in tokenizer.get("added_tokens", []):
        vocab[added["content"]] = int(added["id"])
    ids = sorted(vocab.values())
    if ids != list(range(len(ids))):
        raise ValueError(f"{name}: token ids are not 0..{len(ids) - 1} without gaps")
    if len(ids) != n_vocab:
        raise ValueError(f"{name}: tokenizer has {len(ids)} tokens, the embedding {n_vocab} rows")
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
    joined = [m for m in merges if NEWLINE in m]
    if joined:
        raise ValueError(
            f"{name}: merge {joined[0]!r} joins a newline: llama.cpp's gpt-2 pre-tokenizer would "
            "not split it off as this tokenizer does, and the ids would differ"
        )
    tokens = [""] * len(ids)
    for text, i in vocab.items():
        tokens[i] = text
    special = {a["content"] for a in tokenizer.get("added_tokens", []) if a.get("special")}
    for needed in SPECIAL_TOKENS:
        if needed not in special:
            raise ValueError(f"{name}: special token {needed!r} missing from the tokenizer")
    types = [int(gguf.TokenType.CONTROL if t in special else gguf.TokenType.NORMAL) for t in tokens]
    return Vocab(tokens, types, merges, eos=vocab[SPECIAL_TOKENS[0]], eot=vocab[IM_END])


def _check_pre_tokenizer(name: str, pre: Any) -> None:
    """Accept GPT-2's byte-level pre-tokenizer, alone or after a split that isolates newlines."""
    steps = pre.get("pretokenizers", []) if isinstance(pre, dict) else []
    if isinstance(pre, dict) and pre.get("type") != "Sequence":
        steps = [pre]
    *first, last = steps or [{}]
    byte_level = (
        last.get("type") == "ByteLevel"
        and last.get("use_regex", True)
        and not last.get("add_prefix_space", False)
    )
    newline_split = all(
        s.get("type") == "Split"
        and s.get("pattern") in ({"Regex": "\\n"}, {"String": "\n"})
        and s.get("behavior") == "Isolated"
        and not s.get("invert", False)
        for s in first
    )
    if not (byte_level and newline_split and len(first) <= 1):
        raise ValueError(
            f"{name}: pre-tokenizer {json.dumps(pre)[:120]} is not GPT-2's byte-level one "
            "(optionally after isolating newlines): llama.cpp's gpt-2 pre-tokenizer would differ"
        )


def write_gguf(name: str, folder: Path, path: Path, dtype: str) -> dict[str, Any]:
    """Write one checkpoint folder as a GGUF file; return its manifest entry."""
    config = json.loads((folder / "config.json").read_text())
    hp = _hparams(name, config)
    raw = load_file(str(folder / "model.safetensors"))
    tensors = gguf_tensors(name, raw, hp, dtype)
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    vocab = gguf_vocab(name, tokenizer, int(tensors["token_embd.weight"].shape[0]))
    writer = gguf.GGUFWriter(path, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.GPT2])
    writer.add_name(f"specverdict-reference-{name}")
    writer.add_context_length(hp.n_ctx)
    writer.add_embedding_length(hp.n_embd)
    writer.add_feed_forward_length(hp.n_ff)
    writer.add_block_count(hp.n_layer)
    writer.add_head_count(hp.n_head)
    writer.add_layer_norm_eps(hp.eps)
    writer.add_file_type(DTYPES[dtype][1])
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(vocab.tokens)
    writer.add_token_types(vocab.types)
    writer.add_token_merges(vocab.merges)
    writer.add_bos_token_id(vocab.eos)
    writer.add_eos_token_id(vocab.eos)
    writer.add_eot_token_id(vocab.eot)
    writer.add_pad_token_id(vocab.eos)
    writer.add_add_bos_token(False)
    writer.add_add_eos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)
    for tensor_name, value in tensors.items():
        writer.add_tensor(tensor_name, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return {
        "path": path.name,
        "sha256": sha256(path),
        "tensors": len(tensors),
        "n_layer": hp.n_layer,
        "n_embd": hp.n_embd,
        "source": {f: sha256(folder / f) for f in SOURCE_FILES},
    }


def export_gguf(
    out: Path, dtype: str = "f32", sources: dict[str, Path] | None = None
) -> dict[str, Any]:
    """Write ``out/target.gguf``, ``out/draft.gguf`` and ``out/export-gguf.json``; return the
    manifest. ``sources`` maps ``target``/``draft`` to checkpoint folders (default: the shipped
    ones). Raises ValueError for an unknown dtype or a checkpoint that cannot be converted
    faithfully, before anything is written."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r}: expected one of {', '.join(DTYPES)}")
    src = {name: (sources or {}).get(name, shipped(name)) for name in EXPORTED}
    for name, folder in src.items():
        for needed in SOURCE_FILES:
            if not (folder / needed).is_file():
                raise ValueError(f"{name} checkpoint {folder}: missing {needed}")
        # every check before the first write: a refused export leaves nothing behind
        hp = _hparams(name, json.loads((folder / "config.json").read_text()))
        tensors = gguf_tensors(name, load_file(str(folder / "model.safetensors")), hp, dtype)
        tokenizer = json.loads((folder / "tokenizer.json").read_text())
        gguf_vocab(name, tokenizer, int(tensors["token_embd.weight"].shape[0]))
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"format": "gguf", "dtype": dtype, "checkpoints": {}}
    for name, folder in src.items():
        manifest["checkpoints"][name] = write_gguf(name, folder, out / f"{name}.gguf", dtype)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
