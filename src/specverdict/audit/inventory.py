"""A checkpoint's inventory from its safetensors headers: names, shapes, dtypes, bytes, roles.

No tensor data is read. A safetensors file starts with an 8-byte little-endian header length N
and N bytes of JSON: ``{name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__":
{...}}``; a tensor's size in bytes is ``end - begin``. A sharded checkpoint has
``model.safetensors.index.json`` whose ``weight_map`` names each tensor's shard; the inventory
reads every shard the index names and reports any disagreement between the index and the shards
(a tensor listed but absent, or present but not listed, or a shard file missing) as a problem.

A GGUF file (llama.cpp's format) is inventoried from its header with ``gguf.GGUFReader``
(the file is memory-mapped; no tensor data is read): shapes in row-major order as numpy and
torch print them (the reverse of ggml's ``ne``), dtypes as ``float32``/``float16``/``bfloat16``
or ggml's quantization type in lower case (``q4_k``), bytes as stored.

Roles (:data:`ROLES`) group tensors by what they are for, from the names GPT-2, Llama, Qwen,
Mixtral, DeepSeek (V3 and its MTP layers), EAGLE heads, our MTP head and llama.cpp's GGUF files
use; see :func:`role_of`.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from specverdict.errors import ConfigError

Role = Literal[
    "embedding",
    "lm_head",
    "attention",
    "dense_mlp",
    "routed_experts",
    "shared_experts",
    "norms",
    "mtp_eagle",
    "other",
]
#: the roles, in report order
ROLES: tuple[Role, ...] = (
    "embedding",
    "lm_head",
    "attention",
    "dense_mlp",
    "routed_experts",
    "shared_experts",
    "norms",
    "mtp_eagle",
    "other",
)

INDEX_NAME = "model.safetensors.index.json"
SINGLE_NAME = "model.safetensors"
#: refuse headers larger than this (the format's own reference implementation caps at 100 MB)
MAX_HEADER = 100_000_000

#: safetensors dtype codes -> the names torch and numpy print (what engines report)
DTYPES = {
    "BOOL": "bool",
    "U8": "uint8",
    "I8": "int8",
    "I16": "int16",
    "U16": "uint16",
    "I32": "int32",
    "U32": "uint32",
    "I64": "int64",
    "U64": "uint64",
    "F16": "float16",
    "BF16": "bfloat16",
    "F32": "float32",
    "F64": "float64",
    "F8_E4M3": "float8_e4m3fn",
    "F8_E5M2": "float8_e5m2",
    "F8_E8M0": "float8_e8m0fnu",
    "F4": "float4_e2m1fn_x2",
}

# Name segments (lower case) that decide a role. Order of the checks is in role_of.
_MTP_EAGLE = {
    "eh_proj",  # DeepSeek-V3 / GLM MTP layers, our MTP head: [embedding; hidden] -> hidden
    "enorm",  # ... their norm of the embedding input
    "hnorm",  # ... their norm of the hidden-state input
    "fc",  # EAGLE / EAGLE-3 heads, Qwen3-Next MTP: the fusion projection
    "pre_fc_norm_embedding",  # Qwen3-Next MTP
    "pre_fc_norm_hidden",
    "hidden_norm",  # EAGLE-3 midlayer
    "input_proj",  # MiMo MTP
    "token_layernorm",
    "hidden_layernorm",
    "d2t",  # EAGLE-3 draft<->target vocabulary maps
    "t2d",
}
_SHARED = {"shared_experts", "shared_expert", "shared_expert_gate", "shared_mlp"}
_ROUTED = {"experts", "block_sparse_moe", "router", "e_score_correction_bias"}
# llama.cpp's GGUF names (``gguf-py/gguf/constants.py`` TENSOR_NAMES): shared experts end in
# ``_shexp``, routed ones in ``_exps``, the router is ``ffn_gate_inp``
_GGUF_SHARED = re.compile(r"ffn_\w+_shexp")
_GGUF_ROUTED = re.compile(r"ffn_\w+_exps|ffn_gate_inp|exp_probs_b")
_GGUF_EMBEDDING = {"token_embd", "position_embd", "token_types"}
_GGUF_ATTENTION = re.compile(r"attn_(q|k|v|qkv|output|q_a|q_b|kv_a_mqa|kv_b|k_b|v_b|sinks)")
_GGUF_DENSE_MLP = re.compile(r"ffn_(up|down|gate)")
_MOE_PARENTS = {"mlp", "block_sparse_moe", "feed_forward", "moe"}
_EMBEDDING = {
    "embed_tokens",
    "wte",
    "wpe",
    "word_embeddings",
    "embeddings",
    "tok_embeddings",
    "embed_positions",
    "position_embeddings",
    "embedding",
}
_LM_HEAD = {"lm_head", "embed_out"}
_ATTENTION = {
    "self_attn",
    "attn",
    "attention",
    "self_attention",
    "cross_attn",
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "qkv_proj",
    "c_attn",
    "query_key_value",
    "q_a_proj",
    "q_b_proj",
    "kv_a_proj_with_mqa",
    "kv_b_proj",
    "wq",
    "wk",
    "wv",
    "wo",
}
_DENSE_MLP = {
    "mlp",
    "feed_forward",
    "ffn",
    "c_fc",
    "gate_proj",
    "up_proj",
    "down_proj",
    "gate_up_proj",
    "fc1",
    "fc2",
    "w1",
    "w2",
    "w3",
    "dense_h_to_4h",
    "dense_4h_to_h",
}
_NORM = re.compile(r"(.*norm.*|ln(_?\w+)?|ln\d*)")


def _is_norm(seg: str) -> bool:
    return _NORM.fullmatch(seg) is not None


def role_of(name: str) -> Role:
    """The role of a tensor, from its name alone.

    Checked in this order (the first that matches wins):

    1. ``mtp_eagle``: MTP/EAGLE-specific tensors (``eh_proj``, ``enorm``, ``hnorm``, EAGLE's
       ``fc``, Qwen3-Next's ``pre_fc_norm_*``, EAGLE-3's ``hidden_norm``/``d2t``/``t2d``,
       MiMo's ``input_proj``/``*_layernorm``). The rest of an MTP layer (its attention, MLP,
       experts, norms, ``shared_head``) takes the ordinary roles.
    2. ``norms``: any segment with ``norm`` in it or GPT-2's ``ln_1``/``ln_2``/``ln_f``
       (including norms inside attention such as ``q_norm`` or ``kv_a_layernorm``).
    3. ``shared_experts``: ``mlp.shared_experts.`` (DeepSeek), ``mlp.shared_expert.`` and
       ``shared_expert_gate`` (Qwen-MoE).
    4. ``routed_experts``: ``experts.N.`` or fused ``experts.*``, Mixtral's
       ``block_sparse_moe``, and the router (``mlp.gate.weight``, ``e_score_correction_bias``,
       ``router``): the router belongs to the routed-expert block.
    5. ``embedding``: ``embed_tokens``, ``wte``, ``wpe``, ``word_embeddings``, ...
    6. ``lm_head``: ``lm_head``, ``embed_out``, DeepSeek MTP's ``shared_head.head``, a top-level
       ``output.weight``.
    7. ``attention``: ``self_attn.``, GPT-2's ``attn.``/``c_attn``, ``q_proj``.. ``o_proj``, MLA's
       ``q_a_proj``/``kv_a_proj_with_mqa``/``kv_b_proj``.
    8. ``dense_mlp``: ``mlp.``, ``feed_forward``, ``c_fc``, ``gate_proj``/``up_proj``/
       ``down_proj``, ``fc1``/``fc2``, ``w1``/``w2``/``w3``.
    9. ``other``: anything else (rotary buffers, vision towers, ...).

    GGUF names take the same roles: ``token_embd``/``position_embd`` (embedding), ``output``
    (lm_head), ``*_norm`` (norms), ``attn_q``/``attn_qkv``/``attn_output``... (attention),
    ``ffn_up``/``ffn_down``/``ffn_gate`` (dense_mlp), ``ffn_*_exps`` and ``ffn_gate_inp``
    (routed_experts), ``ffn_*_shexp`` (shared_experts), ``nextn.eh_proj``/``enorm``/``hnorm``
    (mtp_eagle).
    """
    segs = name.lower().split(".")
    modules = segs[:-1] if len(segs) > 1 else segs
    if any(s in _MTP_EAGLE for s in modules):
        return "mtp_eagle"
    if any(_is_norm(s) for s in modules):
        return "norms"
    if any(s in _SHARED for s in modules) or any(_GGUF_SHARED.fullmatch(s) for s in modules):
        return "shared_experts"
    if any(_GGUF_ROUTED.fullmatch(s) for s in modules):
        return "routed_experts"
    if any(s in _ROUTED for s in segs) or any(
        s == "gate" and i > 0 and segs[i - 1] in _MOE_PARENTS for i, s in enumerate(modules)
    ):
        return "routed_experts"
    if any(s in _EMBEDDING or s in _GGUF_EMBEDDING for s in modules):
        return "embedding"
    if (
        any(s in _LM_HEAD for s in modules)
        or any(s == "head" and i > 0 and segs[i - 1] == "shared_head" for i, s in enumerate(segs))
        or (len(segs) == 2 and segs[0] == "output")
    ):
        return "lm_head"
    if any(s in _ATTENTION or _GGUF_ATTENTION.fullmatch(s) for s in modules):
        return "attention"
    if any(s in _DENSE_MLP or _GGUF_DENSE_MLP.fullmatch(s) for s in modules):
        return "dense_mlp"
    return "other"


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TensorInfo(Frozen):
    """One tensor as its header describes it. ``dtype`` is the torch/numpy name
    (``float32``, ``bfloat16``, ``float8_e4m3fn``); ``file`` the shard's file name."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    bytes: int
    file: str
    role: Role

    @property
    def parameters(self) -> int:
        return math.prod(self.shape)


class RoleTotals(Frozen):
    tensors: int
    bytes: int
    parameters: int


class Inventory(Frozen):
    """A checkpoint's tensors, grouped by role (roles with no tensor are left out)."""

    path: str
    files: tuple[str, ...]
    tensor_count: int
    total_bytes: int
    roles: dict[str, RoleTotals]
    tensors: tuple[TensorInfo, ...]
    problems: tuple[str, ...] = ()

    def by_name(self) -> dict[str, TensorInfo]:
        return {t.name: t for t in self.tensors}


def read_header(path: Path) -> dict[str, dict[str, object]]:
    """The tensor entries of a safetensors file's JSON header (``__metadata__`` left out)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
            if len(head) != 8:
                raise ConfigError(f"{path}: not a safetensors file (shorter than 8 bytes)")
            (n,) = struct.unpack("<Q", head)
            if n > MAX_HEADER:
                raise ConfigError(f"{path}: not a safetensors file (header length {n})")
            raw = fh.read(n)
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    if len(raw) != n:
        raise ConfigError(f"{path}: truncated safetensors header ({len(raw)} of {n} bytes)")
    try:
        header = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ConfigError(f"{path}: the safetensors header is not JSON") from None
    if not isinstance(header, dict):
        raise ConfigError(f"{path}: the safetensors header is not a JSON object")
    header.pop("__metadata__", None)
    return header


def _tensor(name: str, entry: object, file: Path) -> TensorInfo:
    if not isinstance(entry, dict):
        raise ConfigError(f"{file}: header entry {name!r} is not an object")
    try:
        code = str(entry["dtype"])
        shape = tuple(int(x) for x in entry["shape"])
        begin, end = (int(x) for x in entry["data_offsets"])
    except (KeyError, TypeError, ValueError):
        raise ConfigError(
            f"{file}: header entry {name!r} lacks dtype, shape or data_offsets"
        ) from None
    return TensorInfo(
        name=name,
        shape=shape,
        dtype=DTYPES.get(code, code.lower()),
        bytes=end - begin,
        file=file.name,
        role=role_of(name),
    )


def _files_of(path: Path) -> tuple[Path, list[Path], dict[str, str] | None]:
    """(root, shard files, weight_map or None) for a directory, a file or an index."""
    if path.is_dir():
        index = path / INDEX_NAME
        if index.is_file():
            return _files_of(index)
        single = path / SINGLE_NAME
        if single.is_file():
            return path, [single], None
        found = sorted(path.glob("*.safetensors"))
        if not found:
            raise ConfigError(
                f"{path}: no {INDEX_NAME}, {SINGLE_NAME} or *.safetensors file "
                "(only safetensors checkpoints can be inventoried)"
            )
        return path, found, None
    if not path.is_file():
        raise ConfigError(f"{path}: no such checkpoint file or directory")
    if path.name.endswith(".index.json"):
        try:
            index = json.loads(path.read_text())
            weight_map = {str(k): str(v) for k, v in dict(index["weight_map"]).items()}
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise ConfigError(f"{path}: not a safetensors index (expected a weight_map)") from None
        shards = sorted(set(weight_map.values()))
        return path.parent, [path.parent / s for s in shards], weight_map
    return path.parent, [path], None


def totals(tensors: Iterable[TensorInfo]) -> dict[str, RoleTotals]:
    acc: dict[str, list[int]] = {}
    for t in tensors:
        row = acc.setdefault(t.role, [0, 0, 0])
        row[0] += 1
        row[1] += t.bytes
        row[2] += t.parameters
    return {
        r: RoleTotals(tensors=acc[r][0], bytes=acc[r][1], parameters=acc[r][2])
        for r in ROLES
        if r in acc
    }


GGUF_MAGIC = b"GGUF"
#: ggml tensor types that are plain floats -> the names torch and numpy print
GGML_FLOATS = {"F32": "float32", "F16": "float16", "BF16": "bfloat16", "F64": "float64"}


def is_gguf(path: Path) -> bool:
    """Whether ``path`` is a GGUF file (by its magic, whatever its name)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == GGUF_MAGIC
    except OSError:
        return False


def inventory_gguf(path: str | Path) -> Inventory:
    """Inventory a GGUF file from its header (see the module docstring); raises
    :class:`~specverdict.errors.ConfigError` when it cannot be read."""
    import gguf

    path = Path(path)
    try:
        reader = gguf.GGUFReader(path)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: not a readable GGUF file ({exc})") from None
    problems: list[str] = []
    tensors: dict[str, TensorInfo] = {}
    for t in reader.tensors:
        if t.name in tensors:
            problems.append(f"{t.name} is in the file twice")
            continue
        kind = t.tensor_type.name
        tensors[t.name] = TensorInfo(
            name=t.name,
            shape=tuple(int(x) for x in reversed(t.shape.tolist())),
            dtype=GGML_FLOATS.get(kind, kind.lower()),
            bytes=int(t.n_bytes),
            file=path.name,
            role=role_of(t.name),
        )
    ordered = tuple(sorted(tensors.values(), key=lambda t: t.name))
    return Inventory(
        path=str(path),
        files=(path.name,),
        tensor_count=len(ordered),
        total_bytes=sum(t.bytes for t in ordered),
        roles=totals(ordered),
        tensors=ordered,
        problems=tuple(problems),
    )


def inventory_checkpoint(path: str | Path) -> Inventory:
    """Inventory a checkpoint: a directory (its ``model.safetensors.index.json``, else its
    ``model.safetensors``, else every ``*.safetensors``), one ``.safetensors`` file, an
    index file, or a GGUF file. Raises :class:`~specverdict.errors.ConfigError` on unreadable
    input."""
    path = Path(path)
    if path.is_file() and is_gguf(path):
        return inventory_gguf(path)
    _root, files, weight_map = _files_of(path)
    problems: list[str] = []
    tensors: dict[str, TensorInfo] = {}
    for file in files:
        if not file.is_file():
            problems.append(f"shard {file.name} named by the index is missing")
            continue
        for name, entry in read_header(file).items():
            if name in tensors:
                problems.append(f"{name} is in both {tensors[name].file} and {file.name}")
                continue
            tensors[name] = _tensor(name, entry, file)
    if weight_map is not None:
        present = {f.name for f in files if f.is_file()}
        for name, shard in sorted(weight_map.items()):
            if shard in present and name not in tensors:
                problems.append(f"{name}: the index names {shard}, which does not hold it")
            elif name in tensors and tensors[name].file != shard:
                problems.append(f"{name}: the index names {shard}, found in {tensors[name].file}")
        for name in sorted(tensors.keys() - weight_map.keys()):
            problems.append(f"{name} is in {tensors[name].file} but not in the index")
    ordered = tuple(sorted(tensors.values(), key=lambda t: t.name))
    return Inventory(
        path=str(path),
        files=tuple(f.name for f in files),
        tensor_count=len(ordered),
        total_bytes=sum(t.bytes for t in ordered),
        roles=totals(ordered),
        tensors=ordered,
        problems=tuple(problems),
    )
