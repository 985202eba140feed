"""``specverdict-reference export-gguf``: what the GGUF files hold, read back with gguf's reader
(the header llama.cpp parses), and the refusals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gguf
import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from specverdict.reference.chat import CHAT_TEMPLATE
from specverdict.reference.export import sha256
from specverdict.reference.gguf_export import export_gguf
from specverdict.reference.server import cli
from specverdict.reference.weights import shipped


def field(reader: gguf.GGUFReader, name: str) -> object:
    return reader.fields[name].contents()


def test_export_writes_target_and_draft_with_tokenizer_template_and_manifest(
    gguf_dir: Path,
) -> None:
    manifest = json.loads((gguf_dir / "export-gguf.json").read_text())
    assert manifest["format"] == "gguf" and manifest["dtype"] == "f32"
    tokenizer = json.loads((shipped("target") / "tokenizer.json").read_text())
    for name in ("target", "draft"):
        entry = manifest["checkpoints"][name]
        path = gguf_dir / entry["path"]
        assert entry["sha256"] == sha256(path)
        assert entry["source"]["model.safetensors"] == sha256(shipped(name) / "model.safetensors")
        reader = gguf.GGUFReader(path)
        config = json.loads((shipped(name) / "config.json").read_text())
        assert field(reader, "general.architecture") == "gpt2"
        assert field(reader, "gpt2.block_count") == config["n_layer"]
        assert field(reader, "gpt2.embedding_length") == config["n_embd"]
        assert field(reader, "gpt2.attention.head_count") == config["n_head"]
        assert field(reader, "gpt2.context_length") == config["n_positions"]
        assert field(reader, "tokenizer.ggml.model") == "gpt2"
        assert field(reader, "tokenizer.ggml.pre") == "gpt-2"
        tokens = field(reader, "tokenizer.ggml.tokens")
        assert isinstance(tokens, list) and len(tokens) == 2048
        assert tokens[:3] == ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
        assert tokens[tokenizer["model"]["vocab"]["def"]] == "def"
        types = field(reader, "tokenizer.ggml.token_type")
        assert isinstance(types, list) and types[:4] == [3, 3, 3, 1] and set(types[3:]) == {1}
        merges = field(reader, "tokenizer.ggml.merges")
        assert merges == [" ".join(m) for m in tokenizer["model"]["merges"]]
        assert field(reader, "tokenizer.ggml.eos_token_id") == 0
        assert field(reader, "tokenizer.ggml.eot_token_id") == 2
        assert field(reader, "tokenizer.ggml.add_bos_token") is False
        assert field(reader, "tokenizer.chat_template") == CHAT_TEMPLATE
        assert len(reader.tensors) == entry["tensors"] == 4 + 12 * config["n_layer"]


def test_f32_tensors_are_the_checkpoint_values_in_llamacpp_layout(gguf_dir: Path) -> None:
    raw = load_file(str(shipped("target") / "model.safetensors"))
    tensors = {t.name: t for t in gguf.GGUFReader(gguf_dir / "target.gguf").tensors}
    # GPT-2's Conv1D stores (in, out); llama.cpp's linear layers want (out, in)
    qkv = tensors["blk.0.attn_qkv.weight"]
    assert list(qkv.shape) == [160, 480]  # ggml order: ne0 = in
    np.testing.assert_array_equal(qkv.data, raw["transformer.h.0.attn.c_attn.weight"].T)
    np.testing.assert_array_equal(
        tensors["blk.5.ffn_down.weight"].data, raw["transformer.h.5.mlp.c_proj.weight"].T
    )
    np.testing.assert_array_equal(tensors["token_embd.weight"].data, raw["transformer.wte.weight"])
    np.testing.assert_array_equal(tensors["output_norm.bias"].data, raw["transformer.ln_f.bias"])
    assert "output.weight" not in tensors  # tied: llama.cpp reuses token_embd


def test_f16_stores_matrices_as_half_and_keeps_norms_and_biases_f32(tmp_path: Path) -> None:
    assert cli.main(["export-gguf", str(tmp_path), "--dtype", "f16"]) == 0
    reader = gguf.GGUFReader(tmp_path / "draft.gguf")
    types = {t.name: t.tensor_type for t in reader.tensors}
    assert types["blk.0.attn_qkv.weight"] == gguf.GGMLQuantizationType.F16
    assert types["token_embd.weight"] == gguf.GGMLQuantizationType.F16
    assert types["blk.0.attn_qkv.bias"] == gguf.GGMLQuantizationType.F32
    assert types["output_norm.weight"] == gguf.GGMLQuantizationType.F32
    assert field(reader, "general.file_type") == int(gguf.LlamaFileType.MOSTLY_F16)


def test_export_is_reproducible(gguf_dir: Path, tmp_path: Path) -> None:
    again = export_gguf(tmp_path)
    first = json.loads((gguf_dir / "export-gguf.json").read_text())
    assert again == first


def test_bad_dtype_and_unwritable_dir_are_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["export-gguf", str(tmp_path / "out"), "--dtype", "q4_0"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'q4_0'" in err and "f32, f16" in err
    assert not (tmp_path / "out").exists()
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SystemExit) as exc:
        cli.main(["export-gguf", str(blocker / "sub")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("specverdict-reference: error: export-gguf:") and err.count("\n") == 1


def _copy(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(shipped(name), folder)
    return folder


def test_a_merge_joining_a_newline_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    draft = _copy(tmp_path, "draft")
    tokenizer = json.loads((draft / "tokenizer.json").read_text())
    tokenizer["model"]["merges"].append(["\u010a", "\u010a"])
    (draft / "tokenizer.json").write_text(json.dumps(tokenizer))
    with pytest.raises(ValueError, match=r"draft: merge 'Ċ Ċ' joins a newline"):
        export_gguf(tmp_path / "out", sources={"draft": draft})
    assert not (tmp_path / "out").exists()


def test_a_missing_tensor_in_the_checkpoint_is_named(tmp_path: Path) -> None:
    target = _copy(tmp_path, "target")
    raw = load_file(str(target / "model.safetensors"))
    del raw["transformer.h.3.ln_2.bias"]
    save_file(raw, str(target / "model.safetensors"))
    with pytest.raises(ValueError, match=r"target: missing tensor transformer\.h\.3\.ln_2\.bias"):
        export_gguf(tmp_path / "out", sources={"target": target})
