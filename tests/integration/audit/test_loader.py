"""Loader audits: the reference engine's load report (clean and with a skip fault), saved reports,
name lists in an engine's parameter namespace, and a real vLLM capture."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from safetensors.numpy import save_file

from specverdict.audit.inventory import inventory_checkpoint
from specverdict.audit.loader import compare_loaded, engine_candidates, parse_loaded, read_loaded
from specverdict.errors import ConfigError
from specverdict.reference.weights import shipped
from tests.conftest import specverdict_cli
from tests.integration.audit.conftest import FIXTURES, reference_server

SPEC = '{"method":"draft_model","num_speculative_tokens":2}'
SKIPPED = {
    "transformer.h.0.mlp.c_fc.bias",
    "transformer.h.0.mlp.c_fc.weight",
    "transformer.h.0.mlp.c_proj.bias",
    "transformer.h.0.mlp.c_proj.weight",
}


@pytest.fixture(scope="module")
def faulty() -> Iterator[str]:
    with reference_server(
        "--speculative-config", SPEC, "--fault", "draft-skip=transformer.h.0.mlp.*"
    ) as url:
        yield url


@pytest.fixture(scope="module")
def clean() -> Iterator[str]:
    with reference_server("--speculative-config", SPEC) as url:
        yield url


def test_skip_fault_is_named_exactly(faulty: str) -> None:
    proc = specverdict_cli("audit", "loader", "--load-report", faulty, "--json")
    assert proc.returncode == 1, proc.stderr
    audit = json.loads(proc.stdout)
    assert audit["clean"] is False
    target, draft = audit["models"]
    assert target["model"] == "target" and target["clean"]
    assert target["verdict"] == "target: all 76 checkpoint tensors loaded"
    assert draft["model"] == "draft"
    assert {f["name"] for f in draft["left_at_init"]} == SKIPPED
    assert {f["role"] for f in draft["left_at_init"]} == {"dense_mlp"}
    assert draft["not_loaded"] == draft["unexpected"] == draft["shape_mismatches"] == []
    assert draft["roles"]["dense_mlp"] == {
        "checkpoint": 4,
        "not_loaded": 0,
        "left_at_init": 4,
        "unexpected": 0,
        "shape_mismatch": 0,
        "dtype_mismatch": 0,
    }
    assert draft["verdict"].startswith(
        "draft: 4 dense_mlp tensors in the checkpoint were not loaded"
    )
    # the text form ends with the verdict lines, one per model
    text = specverdict_cli("audit", "loader", "--load-report", faulty)
    assert text.returncode == 1
    assert text.stdout.strip().splitlines()[-1] == draft["verdict"]


def test_clean_server_audit_is_clean(clean: str) -> None:
    proc = specverdict_cli(
        "audit", "loader", "--load-report", f"{clean}/debug/load_report", "--json"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    audit = json.loads(proc.stdout)
    assert audit["clean"] is True
    assert audit["verdicts"] == [
        "target: all 76 checkpoint tensors loaded",
        "draft: all 16 checkpoint tensors loaded",
    ]


def test_saved_report_with_shape_and_dtype_drift(faulty: str, tmp_path: Path) -> None:
    report = httpx.get(f"{faulty}/debug/load_report", timeout=10).json()
    draft = next(m for m in report["models"] if m["role"] == "draft")
    wte = next(t for t in draft["loaded"] if t["name"] == "transformer.wte.weight")
    wte["shape"] = [2048, 32]
    ln = next(t for t in draft["loaded"] if t["name"] == "transformer.ln_f.weight")
    ln["dtype"] = "torch.bfloat16"
    attn = next(t for t in draft["loaded"] if t["name"] == "transformer.h.0.attn.c_attn.weight")
    draft["loaded"].remove(attn)
    draft["loaded"].append({"name": "transformer.h.1.attn.c_attn.weight", "shape": [64, 192]})
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(report))
    models = read_loaded(str(saved))
    inventories = {"target": inventory_checkpoint(shipped("target"))}
    inventories["draft"] = inventory_checkpoint(shipped("draft"))
    audit = compare_loaded(inventories, models)
    d = audit.models[1]
    assert [(f.name, f.detail) for f in d.shape_mismatches] == [
        ("transformer.wte.weight", "checkpoint [2048, 64], loaded [2048, 32]")
    ]
    assert [(f.name, f.role) for f in d.dtype_mismatches] == [("transformer.ln_f.weight", "norms")]
    assert [f.name for f in d.not_loaded] == ["transformer.h.0.attn.c_attn.weight"]
    assert [(f.name, f.role) for f in d.unexpected] == [
        ("transformer.h.1.attn.c_attn.weight", "attention")
    ]
    assert d.verdict == (
        "draft: 1 attention tensor and 4 dense_mlp tensors in the checkpoint were not loaded "
        "(4 left at initialisation); 1 loaded tensor not in the checkpoint (attention 1); "
        "1 shape mismatch (embedding 1); 1 dtype mismatch (norms 1)"
    )
    # --ignore leaves tensors out of the comparison
    audit2 = compare_loaded(inventories, models, ignore=["transformer.h.0.*"])
    assert audit2.models[1].left_at_init == () and audit2.models[1].ignored == 12


def test_names_list_against_the_shipped_draft(tmp_path: Path) -> None:
    inv = inventory_checkpoint(shipped("draft"))
    names = [t.name for t in inv.tensors if not t.name.startswith("transformer.h.0.ln_")]
    listing = tmp_path / "names.txt"
    listing.write_text("# loaded by the engine\n" + "\n".join(names) + "\nlm_head.weight\n\n")
    proc = specverdict_cli(
        "audit", "loader", "--loaded-names", str(listing), "--checkpoint", str(shipped("draft")),
        "--role", "draft", "--json",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    (m,) = json.loads(proc.stdout)["models"]
    assert m["namespace"] == "engine"
    assert sorted(f["name"] for f in m["not_loaded"]) == [
        "transformer.h.0.ln_1.bias",
        "transformer.h.0.ln_1.weight",
        "transformer.h.0.ln_2.bias",
        "transformer.h.0.ln_2.weight",
    ]
    assert [(f["name"], f["role"]) for f in m["unexpected"]] == [("lm_head.weight", "lm_head")]
    assert m["verdict"] == (
        "draft: 4 norms tensors in the checkpoint were not loaded; "
        "1 loaded tensor not in the checkpoint (lm_head 1)"
    )
    # the same as a JSON list
    listing.write_text(json.dumps(names))
    again = specverdict_cli(
        "audit", "loader", "--loaded-names", str(listing), "--checkpoint", str(shipped("draft"))
    )
    assert again.returncode == 1 and "4 norms tensors" in again.stdout


def _moe_checkpoint(root: Path) -> None:
    """A DeepSeek-like MoE layer with MLA attention, a dense layer and an MTP layer."""
    z = np.zeros((2, 2), np.float32)
    tensors = {
        "model.embed_tokens.weight": z,
        "model.layers.0.self_attn.q_a_proj.weight": z,
        "model.layers.0.self_attn.kv_a_proj_with_mqa.weight": z,
        "model.layers.0.self_attn.kv_b_proj.weight": z,
        "model.layers.0.self_attn.o_proj.weight": z,
        "model.layers.0.mlp.gate_proj.weight": z,
        "model.layers.0.mlp.up_proj.weight": z,
        "model.layers.0.mlp.down_proj.weight": z,
        "model.layers.1.mlp.gate.weight": z,
        "lm_head.weight": z,
    }
    for e in range(3):
        for p in ("gate_proj", "up_proj", "down_proj"):
            tensors[f"model.layers.1.mlp.experts.{e}.{p}.weight"] = z
    for p in ("gate_proj", "up_proj", "down_proj"):
        tensors[f"model.layers.1.mlp.shared_experts.{p}.weight"] = z
    for n in ("eh_proj", "enorm", "hnorm"):
        tensors[f"model.layers.2.{n}.weight"] = z
    save_file(tensors, str(root / "model.safetensors"))


# What vLLM's DeepseekV2 load_weights returns for such a checkpoint: stacked q_a/kv_a, gate_up,
# fused experts (vllm-project/vllm v0.32.0, vllm/model_executor/models/deepseek_v2.py,
# stacked_params_mapping and FusedMoE.make_expert_params_mapping). The shared experts are left
# out, as a loader that skips them would.
ENGINE_NAMES = [
    "model.embed_tokens.weight",
    "model.layers.0.self_attn.fused_qkv_a_proj_with_mqa.weight",
    "model.layers.0.self_attn.kv_b_proj.weight",
    "model.layers.0.self_attn.o_proj.weight",
    "model.layers.0.mlp.gate_up_proj.weight",
    "model.layers.0.mlp.down_proj.weight",
    "model.layers.1.mlp.gate.weight",
    "model.layers.1.mlp.experts.w13_weight",
    "model.layers.1.mlp.experts.w2_weight",
    "model.layers.2.eh_proj.weight",
    "model.layers.2.enorm.weight",
    "model.layers.2.hnorm.weight",
    "lm_head.weight",
]


def test_engine_names_match_through_stacked_and_fused_parameters(tmp_path: Path) -> None:
    _moe_checkpoint(tmp_path)
    inv = inventory_checkpoint(tmp_path)
    (model,) = parse_loaded(ENGINE_NAMES, "vllm", role="mtp")
    audit = compare_loaded(inv, model)
    (m,) = audit.models
    assert {f.name for f in m.not_loaded} == {
        f"model.layers.1.mlp.shared_experts.{p}.weight"
        for p in ("gate_proj", "up_proj", "down_proj")
    }
    assert m.unexpected == ()
    assert m.verdict == "mtp: 3 shared_experts tensors in the checkpoint were not loaded"
    assert any("fused parameter being loaded" in n for n in m.notes)
    # the fused name alone covers every expert: dropping it un-covers all of them
    (model2,) = parse_loaded([n for n in ENGINE_NAMES if "w13" not in n], "vllm", role="mtp")
    m2 = compare_loaded(inv, model2).models[0]
    assert m2.roles["routed_experts"].not_loaded == 6  # gate and up of 3 experts


def test_engine_candidates() -> None:
    assert engine_candidates("model.layers.4.mlp.experts.12.down_proj.weight_scale_inv") == [
        "model.layers.4.mlp.experts.12.down_proj.weight_scale_inv",
        "model.layers.4.mlp.experts.w2_weight_scale_inv",
    ]
    assert engine_candidates("model.layers.4.self_attn.k_proj.weight")[1] == (
        "model.layers.4.self_attn.qkv_proj.weight"
    )
    assert engine_candidates("model.layers.1.block_sparse_moe.experts.0.w3.weight")[1] == (
        "model.layers.1.block_sparse_moe.experts.w13_weight"
    )


def test_renames_and_unfilled_engine_parameters(tmp_path: Path) -> None:
    _moe_checkpoint(tmp_path)
    inv = inventory_checkpoint(tmp_path)
    # an engine that re-roots the MTP layer (as SGLang's NextN loader does) and left one of
    # its own parameters unfilled
    names = [n.replace("model.layers.2.", "model.") for n in ENGINE_NAMES]
    names += [
        f"model.layers.1.mlp.shared_experts.{p}.weight" for p in ("gate_up_proj", "down_proj")
    ]
    (model,) = parse_loaded(
        {"loaded": names, "left_at_init": ["model.decoder.extra_norm.weight"]}, "rec", role="mtp"
    )
    audit = compare_loaded(inv, model, renames=[("model.layers.2.", "model.")])
    (m,) = audit.models
    assert m.not_loaded == () and m.unexpected == ()
    assert [(f.name, f.role) for f in m.left_at_init] == [
        ("model.decoder.extra_norm.weight", "norms")
    ]
    assert m.verdict == (
        "mtp: 1 engine parameter that no checkpoint tensor fills was left at initialisation "
        "(norms 1)"
    )


def test_real_vllm_capture_is_clean_and_a_dropped_name_is_found(tmp_path: Path) -> None:
    """Recorded from vLLM 0.32.0 (CPU) serving the exported reference target with the exported
    draft (``draft_model``, k = 2) through ``fixtures/loadrecord/sitecustomize.py``."""
    capture = FIXTURES / "vllm-0.32.0-draft-model"
    args = [
        "--checkpoint", f"target={shipped('target')}", "--checkpoint", f"draft={shipped('draft')}",
    ]  # fmt: skip
    proc = specverdict_cli("audit", "loader", "--load-report", str(capture), *args, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    audit = json.loads(proc.stdout)
    assert audit["verdicts"] == [
        "target: all 76 checkpoint tensors loaded",
        "draft: all 16 checkpoint tensors loaded",
    ]
    assert [m["namespace"] for m in audit["models"]] == ["engine", "engine"]
    # drop one name from the draft's record: the audit names it
    broken = tmp_path / "capture"
    broken.mkdir()
    for f in sorted(capture.glob("*.json")):
        data = json.loads(f.read_text())
        if data["models"][0]["role"] == "draft":
            data["models"][0]["loaded"].remove("transformer.h.0.mlp.c_fc.weight")
        (broken / f.name).write_text(json.dumps(data))
    proc = specverdict_cli("audit", "loader", "--load-report", str(broken), *args)
    assert proc.returncode == 1
    assert "draft: 1 dense_mlp tensor in the checkpoint was not loaded" in proc.stdout


@pytest.mark.parametrize(
    "args, expected",
    [
        (["audit", "loader"], "give exactly one of --load-report, --loaded-names"),
        (["audit", "loader", "--loaded-names", "{missing}"], "No such file"),
        (["audit", "loader", "--loaded-names", "{names}"], "no checkpoint for model 'model'"),
        (
            ["audit", "loader", "--loaded-names", "{names}", "--checkpoint", "{missing}"],
            "no such checkpoint file or directory",
        ),
        (["audit", "loader", "--load-report", "http://127.0.0.1:9"], "http://127.0.0.1:9/debug"),
        (
            ["audit", "loader", "--loaded-names", "{names}", "--rename", "x"],
            "--rename x: expected OLD=NEW",
        ),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    tmp_path: Path, args: list[str], expected: str
) -> None:
    names = tmp_path / "names.txt"
    names.write_text("a.weight\n")
    filled = [a.format(missing=tmp_path / "nope", names=names) for a in args]
    proc = specverdict_cli(*filled)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr


def test_parse_loaded_refuses_other_shapes() -> None:
    with pytest.raises(ConfigError, match="expected a load report"):
        parse_loaded({"nothing": 1}, "x")
    with pytest.raises(ConfigError, match="expected a tensor name"):
        parse_loaded([1, 2], "x")


def test_a_dspark_drafter_served_as_mtp_is_named_with_its_tensors(tmp_path: Path) -> None:
    """A DSpark-style drafter (the shipped MTP head's tensors plus a Markov head and a
    confidence head, as DeepSeek-V4-Flash-0731 stores it under ``mtp.*``) served on the
    reference engine as ``method: mtp``: the server starts and every tensor is accounted for,
    so only the drafter check can say what happened; it names the DSpark tensors. The same
    checkpoint audited as what it is (no method given) and the shipped MTP head served as
    mtp are clean."""
    from safetensors.numpy import load_file

    drafter = tmp_path / "dspark"
    drafter.mkdir()
    mtp = shipped("mtp")
    for f in mtp.iterdir():
        if f.name != "model.safetensors" and f.is_file():
            (drafter / f.name).write_bytes(f.read_bytes())
    tensors = load_file(str(mtp / "model.safetensors"))
    d = tensors["mtp.eh_proj.weight"].shape[0]
    rng = np.random.default_rng(0)
    extra = {
        "mtp.markov_head.down.weight": rng.standard_normal((16, d)).astype(np.float32),
        "mtp.markov_head.up.weight": rng.standard_normal((d, 16)).astype(np.float32),
        "mtp.confidence_head.weight": rng.standard_normal((1, d)).astype(np.float32),
    }
    save_file({**tensors, **extra}, str(drafter / "model.safetensors"))
    spec = json.dumps({"method": "mtp", "num_speculative_tokens": 2, "model": str(drafter)})
    with reference_server("--speculative-config", spec) as url:
        served = specverdict_cli(
            "audit", "loader", "--load-report", url, "--method", "mtp", "--k", "2", "--json"
        )
        plain = specverdict_cli("audit", "loader", "--load-report", url, "--json")
    assert served.returncode == 1, served.stderr
    audit = json.loads(served.stdout)
    head = next(m for m in audit["models"] if m["model"] == "mtp")
    assert {f["name"] for f in head["drafter"]} == set(extra)
    assert "DSpark drafter" in head["verdict"] and "serve it as method dspark" in head["verdict"]
    assert head["not_loaded"] == head["unexpected"] == []  # the generic audit sees nothing
    assert plain.returncode == 0, plain.stdout
    with reference_server(
        "--speculative-config", '{"method":"mtp","num_speculative_tokens":2}'
    ) as url:
        shipped_head = specverdict_cli(
            "audit", "loader", "--load-report", url, "--method", "mtp", "--k", "2"
        )
    assert shipped_head.returncode == 0, shipped_head.stdout


def test_an_eagle3_head_without_fusion_and_too_few_medusa_heads_are_findings(
    tmp_path: Path,
) -> None:
    """Served as eagle3, a head with an EAGLE-1/2 ``fc`` (twice the width, not three times)
    is named; the shipped EAGLE-3 head is clean. Served as medusa with k above its heads,
    the shipped 4-head checkpoint is named; at k=4 it is clean."""
    from safetensors.numpy import load_file

    from specverdict.audit.drafter import drafter_findings

    eagle = inventory_checkpoint(shipped("eagle3"))
    assert drafter_findings(eagle, "eagle3", 2) == []
    tensors = load_file(str(shipped("eagle3") / "model.safetensors"))
    h = tensors["eagle3.fc.weight"].shape[0]
    tensors["eagle3.fc.weight"] = np.zeros((h, 2 * h), dtype=np.float32)
    save_file(tensors, str(tmp_path / "model.safetensors"))
    (finding,) = drafter_findings(inventory_checkpoint(tmp_path), "eagle3", 2)
    assert finding.name == "eagle3.fc.weight" and "an EAGLE-1/2 head" in finding.detail
    medusa = inventory_checkpoint(shipped("medusa"))
    assert drafter_findings(medusa, "medusa", 4) == []
    (few,) = drafter_findings(medusa, "medusa", 6)
    assert "4 Medusa heads for k=6" in few.detail
    # a method the checkpoint fits, or none given: nothing
    assert drafter_findings(medusa, None, 6) == []
    assert drafter_findings(inventory_checkpoint(shipped("mtp")), "mtp", 2) == []


def test_the_shipped_dspark_drafter_audited_as_mtp_names_its_heads() -> None:
    """The real DSpark drafter the reference engine ships: read as a checkpoint served as mtp,
    the drafter check names its Markov and confidence heads' tensors and nothing else; served
    as what it is, there is nothing to say."""
    from specverdict.audit.drafter import drafter_findings
    from specverdict.audit.inventory import inventory_checkpoint

    inventory = inventory_checkpoint(shipped("dspark"))
    findings = drafter_findings(inventory, "mtp", 7)
    assert {f.name for f in findings} == {
        "dspark.markov_head.down.weight",
        "dspark.markov_head.up.weight",
        "dspark.confidence_head.weight",
        "dspark.confidence_head.bias",
    }
    assert all("serve it as method dspark" in f.detail for f in findings)
    assert drafter_findings(inventory, "dspark", 7) == []
