"""The loader audit on GGUF checkpoints: the inventory from the GGUF header, and what llama.cpp
loaded (the file's tensors, since its loader refuses leftovers) against the safetensors
checkpoint the file was made from. The dangerous case is the one llama.cpp accepts: an untied
model's ``output.weight`` missing, which it silently replaces by ``token_embd``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import numpy as np
from safetensors.numpy import load_file, save_file

from specverdict.audit import compare_loaded, inventory_checkpoint
from specverdict.audit.loader import gguf_loaded
from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.reference.gguf_export import export_gguf
from specverdict.reference.weights import shipped
from tests.integration.llamacpp.conftest import SERVER, THREADS
from tests.integration.llamacpp.test_server_launch import strip_tensor


def test_gguf_inventory_matches_the_checkpoint_role_by_role(gguf_dir: Path) -> None:
    for name in ("target", "draft"):
        gguf = inventory_checkpoint(gguf_dir / f"{name}.gguf")
        source = inventory_checkpoint(shipped(name))
        assert gguf.files == (f"{name}.gguf",) and not gguf.problems
        assert gguf.tensor_count == source.tensor_count
        assert gguf.roles == source.roles  # f32: the same bytes and parameters per role
        by_name = gguf.by_name()
        assert by_name["token_embd.weight"].role == "embedding"
        assert by_name["blk.0.attn_qkv.weight"].role == "attention"
        assert by_name["blk.0.ffn_down.weight"].role == "dense_mlp"
        assert by_name["output_norm.weight"].role == "norms"
        assert by_name["token_embd.weight"].dtype == "float32"


def test_an_exported_gguf_loads_every_checkpoint_tensor(gguf_dir: Path, tmp_path: Path) -> None:
    source = inventory_checkpoint(shipped("target"))
    audit = compare_loaded(source, gguf_loaded(gguf_dir / "target.gguf", source, "target"))
    assert audit.clean and audit.verdicts == ("target: all 76 checkpoint tensors loaded",)
    export_gguf(tmp_path, "f16")
    half = compare_loaded(source, gguf_loaded(tmp_path / "target.gguf", source, "target"))
    assert not half.clean
    # the matrices were converted; norms and biases stay f32
    assert half.verdicts == (
        "target: 26 dtype mismatches (embedding 2, attention 12, dense_mlp 12)",
    )


def untied_target(root: Path) -> Path:
    """The shipped target with an lm_head of its own (tie_word_embeddings false)."""
    folder = root / "untied"
    shutil.copytree(shipped("target"), folder)
    raw = load_file(str(folder / "model.safetensors"))
    rng = np.random.default_rng(0)
    wte = raw["transformer.wte.weight"]
    raw["lm_head.weight"] = (wte + rng.normal(0, 0.05, wte.shape)).astype(np.float32)
    save_file(raw, str(folder / "model.safetensors"))
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "tie_word_embeddings": False}))
    return folder


def test_llamacpp_serves_an_untied_gguf_without_its_output_weight_and_the_audit_says_so(
    tmp_path: Path,
) -> None:
    folder = untied_target(tmp_path)
    export_gguf(tmp_path / "gguf", sources={"target": folder})
    complete = tmp_path / "gguf" / "target.gguf"
    broken = tmp_path / "broken.gguf"
    strip_tensor(complete, broken, "output.weight")
    source = inventory_checkpoint(folder)
    ok = compare_loaded(source, gguf_loaded(complete, source, "target"))
    assert ok.clean and ok.verdicts == ("target: all 77 checkpoint tensors loaded",)
    # llama.cpp starts on the broken file and answers: nothing in its log is an error
    port = free_port()
    log = tmp_path / "engine.log"
    command = [*SERVER, "-m", str(broken), "--port", str(port), *THREADS]
    with LaunchedServer(command, f"http://127.0.0.1:{port}", log_path=log) as server:
        body = {"prompt": "def add(a, b):\n", "n_predict": 8, "temperature": 0}
        answer = httpx.post(server.base_url + "/completion", json=body, timeout=60).json()
        assert answer["tokens_predicted"] > 0
    assert not [line for line in log.read_text().splitlines() if " E " in line]
    audit = compare_loaded(source, gguf_loaded(broken, source, "target"))
    assert not audit.clean
    assert audit.verdicts == ("target: 1 lm_head tensor in the checkpoint was not loaded",)
    (model,) = audit.models
    assert [f.name for f in model.not_loaded] == ["lm_head.weight"]
