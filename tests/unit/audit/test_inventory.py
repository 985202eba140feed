"""Checkpoint inventories from safetensors headers: the shipped checkpoints, sharded indexes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import save_file

from specverdict.audit.inventory import inventory_checkpoint, read_header, role_of
from specverdict.errors import ConfigError
from specverdict.reference.weights import shipped


@pytest.mark.parametrize("name", ["target", "draft", "mtp"])
def test_shipped_inventory_matches_what_safetensors_reports(name: str) -> None:
    path = shipped(name)
    inv = inventory_checkpoint(path)
    with safe_open(str(path / "model.safetensors"), framework="numpy") as fh:
        keys = list(fh.keys())
        arrays = {k: fh.get_tensor(k) for k in keys}
    assert inv.tensor_count == len(keys) == len(inv.tensors)
    assert [t.name for t in inv.tensors] == sorted(keys)
    for t in inv.tensors:
        assert t.shape == arrays[t.name].shape
        assert t.dtype == str(arrays[t.name].dtype)
        assert t.bytes == arrays[t.name].nbytes
        assert t.file == "model.safetensors"
    # the per-role counts equal an independent tally of safetensors' own names
    assert {r: v.tensors for r, v in inv.roles.items()} == dict(Counter(role_of(k) for k in keys))
    assert sum(v.bytes for v in inv.roles.values()) == inv.total_bytes
    assert inv.total_bytes == sum(a.nbytes for a in arrays.values())
    assert inv.problems == ()


def test_shipped_roles_are_what_the_architecture_has() -> None:
    counts = {
        n: {r: v.tensors for r, v in inventory_checkpoint(shipped(n)).roles.items()}
        for n in ("target", "draft", "mtp")
    }
    # GPT-2 layout, 6 blocks: 4 attention, 4 MLP, 4 norm tensors per block; ln_f; wte and wpe
    assert counts["target"] == {"embedding": 2, "attention": 24, "dense_mlp": 24, "norms": 26}
    assert counts["draft"] == {"embedding": 2, "attention": 4, "dense_mlp": 4, "norms": 6}
    # the MTP head: eh_proj + enorm + hnorm (weights and biases) are MTP-specific
    assert counts["mtp"] == {"mtp_eagle": 6, "norms": 4, "dense_mlp": 4}


@pytest.mark.parametrize(
    "name, role",
    [
        # Llama / Qwen
        ("model.embed_tokens.weight", "embedding"),
        ("lm_head.weight", "lm_head"),
        ("model.layers.3.self_attn.q_proj.weight", "attention"),
        ("model.layers.3.self_attn.o_proj.weight", "attention"),
        ("model.layers.3.self_attn.q_norm.weight", "norms"),
        ("model.layers.3.mlp.gate_proj.weight", "dense_mlp"),
        ("model.layers.3.mlp.down_proj.weight_scale_inv", "dense_mlp"),
        ("model.layers.3.input_layernorm.weight", "norms"),
        ("model.norm.weight", "norms"),
        # DeepSeek-V3 MoE layers and MLA
        ("model.layers.5.mlp.experts.17.gate_proj.weight", "routed_experts"),
        ("model.layers.5.mlp.experts.17.down_proj.weight_scale_inv", "routed_experts"),
        ("model.layers.5.mlp.gate.weight", "routed_experts"),
        ("model.layers.5.mlp.gate.e_score_correction_bias", "routed_experts"),
        ("model.layers.5.mlp.shared_experts.up_proj.weight", "shared_experts"),
        ("model.layers.5.self_attn.kv_a_proj_with_mqa.weight", "attention"),
        ("model.layers.5.self_attn.kv_a_layernorm.weight", "norms"),
        # DeepSeek-V3 MTP layer (layer 61)
        ("model.layers.61.eh_proj.weight", "mtp_eagle"),
        ("model.layers.61.enorm.weight", "mtp_eagle"),
        ("model.layers.61.hnorm.weight", "mtp_eagle"),
        ("model.layers.61.shared_head.head.weight", "lm_head"),
        ("model.layers.61.shared_head.norm.weight", "norms"),
        ("model.layers.61.embed_tokens.weight", "embedding"),
        # Qwen-MoE, Mixtral, vLLM fused names
        ("model.layers.1.mlp.shared_expert.gate_proj.weight", "shared_experts"),
        ("model.layers.1.mlp.shared_expert_gate.weight", "shared_experts"),
        ("model.layers.1.block_sparse_moe.experts.2.w1.weight", "routed_experts"),
        ("model.layers.1.block_sparse_moe.gate.weight", "routed_experts"),
        ("model.layers.1.mlp.experts.w13_weight", "routed_experts"),
        ("model.layers.1.self_attn.qkv_proj.weight", "attention"),
        # EAGLE / EAGLE-3 heads, Qwen3-Next MTP
        ("fc.weight", "mtp_eagle"),
        ("midlayer.hidden_norm.weight", "mtp_eagle"),
        ("midlayer.self_attn.k_proj.weight", "attention"),
        ("d2t", "mtp_eagle"),
        ("mtp.pre_fc_norm_hidden.weight", "mtp_eagle"),
        # GPT-2 and our MTP head
        ("transformer.h.0.attn.c_attn.weight", "attention"),
        ("transformer.h.0.mlp.c_fc.bias", "dense_mlp"),
        ("transformer.ln_f.weight", "norms"),
        ("transformer.wpe.weight", "embedding"),
        ("mtp.eh_proj.weight", "mtp_eagle"),
        ("mtp.ln_mlp.weight", "norms"),
        ("mtp.mlp.c_proj.weight", "dense_mlp"),
        ("model.rotary_emb.inv_freq", "other"),
    ],
)
def test_role_rules(name: str, role: str) -> None:
    assert role_of(name) == role


def _write_sharded(root: Path) -> dict[str, str]:
    """A tiny Llama-MoE-like checkpoint in two shards with its index."""
    rng = np.random.default_rng(0)
    shard1 = {
        "model.embed_tokens.weight": rng.normal(size=(32, 8)).astype(np.float32),
        "model.layers.0.self_attn.q_proj.weight": rng.normal(size=(8, 8)).astype(np.float16),
        "model.layers.0.input_layernorm.weight": np.ones(8, dtype=np.float32),
    }
    shard2 = {
        f"model.layers.0.mlp.experts.{e}.{p}.weight": rng.normal(size=(4, 8)).astype(np.float32)
        for e in range(2)
        for p in ("gate_proj", "up_proj", "down_proj")
    }
    shard2["model.layers.0.mlp.shared_experts.up_proj.weight"] = np.zeros((4, 8), np.float32)
    shard2["lm_head.weight"] = rng.normal(size=(32, 8)).astype(np.float32)
    save_file(shard1, str(root / "model-00001-of-00002.safetensors"))
    save_file(shard2, str(root / "model-00002-of-00002.safetensors"))
    weight_map = {n: "model-00001-of-00002.safetensors" for n in shard1}
    weight_map |= {n: "model-00002-of-00002.safetensors" for n in shard2}
    (root / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": 0}, "weight_map": weight_map})
    )
    return weight_map


def test_sharded_index_checkpoint(tmp_path: Path) -> None:
    weight_map = _write_sharded(tmp_path)
    inv = inventory_checkpoint(tmp_path)
    assert inv.files == ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")
    assert {t.name for t in inv.tensors} == set(weight_map)
    assert all(t.file == weight_map[t.name] for t in inv.tensors)
    roles = {r: (v.tensors, v.bytes) for r, v in inv.roles.items()}
    assert roles == {
        "embedding": (1, 32 * 8 * 4),
        "lm_head": (1, 32 * 8 * 4),
        "attention": (1, 8 * 8 * 2),  # float16
        "routed_experts": (6, 6 * 4 * 8 * 4),
        "shared_experts": (1, 4 * 8 * 4),
        "norms": (1, 8 * 4),
    }
    q = inv.by_name()["model.layers.0.self_attn.q_proj.weight"]
    assert (q.dtype, q.shape) == ("float16", (8, 8))
    assert inv.problems == ()
    # the index file itself is accepted too
    assert inventory_checkpoint(tmp_path / "model.safetensors.index.json").tensors == inv.tensors


def test_index_disagreeing_with_its_shards_is_reported(tmp_path: Path) -> None:
    weight_map = _write_sharded(tmp_path)
    weight_map["model.layers.0.mlp.gate.weight"] = "model-00001-of-00002.safetensors"
    del weight_map["lm_head.weight"]
    weight_map["model.layers.1.mlp.down_proj.weight"] = "model-00003-of-00003.safetensors"
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    problems = inventory_checkpoint(tmp_path).problems
    assert any(
        "model-00003-of-00003.safetensors named by the index is missing" in p for p in problems
    )
    assert any(p.startswith("model.layers.0.mlp.gate.weight: the index names") for p in problems)
    assert any(p.startswith("lm_head.weight is in model-00002") for p in problems)
    assert len(problems) == 3


def test_header_is_read_without_tensor_data(tmp_path: Path) -> None:
    path = tmp_path / "x.safetensors"
    save_file({"a.weight": np.zeros((3, 5), np.float32)}, str(path))
    header = read_header(path)
    assert header == {"a.weight": {"dtype": "F32", "shape": [3, 5], "data_offsets": [0, 60]}}
    # a truncated file (header intact, data cut) still inventories: no data is read
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 60])
    assert inventory_checkpoint(path).tensors[0].bytes == 60


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "not a safetensors file"),
        (b"\xff" * 8, "not a safetensors file (header length"),
        ((20).to_bytes(8, "little") + b"{nope", "truncated safetensors header"),
        ((5).to_bytes(8, "little") + b"{nope", "header is not JSON"),
    ],
)
def test_bad_files_are_one_line_errors(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "bad.safetensors"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as err:
        inventory_checkpoint(path)
    assert expected in str(err.value) and "\n" not in str(err.value)


def test_directory_without_safetensors_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pytorch_model.bin").write_bytes(b"x")
    with pytest.raises(ConfigError, match="only safetensors checkpoints"):
        inventory_checkpoint(tmp_path)
