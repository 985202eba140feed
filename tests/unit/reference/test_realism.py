"""Reference engine realism: quantization, the MoE target, batched steps, loader faults, overrides."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.engine import EngineCore, GenerationRequest, RequestOutput, generate
from specverdict.reference.model import MoESpec
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.weights import shipped
from specverdict.suites.synth.data import load_eval

PROMPTS = (
    'def flatten(items):\n    """Flatten a list of lists into one list."""\n',
    "import os\n\n\ndef list_files(root):\n",
    "class Stack:\n    def __init__(self):\n",
)
GREEDY = SamplingParams(temperature=0.0)


def core(spec: dict[str, Any] | None = None, **cfg: Any) -> EngineCore:
    return EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="t",
            speculative=SpeculativeConfig.model_validate(spec) if spec else None,
            **cfg,
        )
    )


def req(c: EngineCore, prompt: str, n: int = 24, rid: str = "r") -> GenerationRequest:
    return GenerationRequest(rid, tuple(c.tokenizer.encode(prompt)), n, GREEDY, ignore_eos=True)


def tokens(outs: list[RequestOutput]) -> list[int]:
    return [t for o in outs for t in o.token_ids]


def run(
    c: EngineCore, n: int = 24, prompts: tuple[str, ...] = PROMPTS
) -> tuple[list[list[int]], float]:
    """Greedy tokens per prompt, and the acceptance rate over all prompts."""
    out, drafted, accepted = [], 0, 0
    for p in prompts:
        o = generate(c, req(c, p, n))
        out.append(tokens(o))
        if o[-1].spec is not None:
            drafted += o[-1].spec.num_draft_tokens
            accepted += o[-1].spec.num_accepted_draft_tokens
    return out, accepted / drafted if drafted else float("nan")


@pytest.mark.parametrize("target_q", ["none", "fp8"])
def test_greedy_identity_under_every_draft_quantization(target_q: str) -> None:
    base, _ = run(core(quantization=target_q))
    for method in ("draft_model", "mtp"):
        for draft_q in ("bf16", "fp8", "nvfp4", "int4"):
            spec = {"method": method, "num_speculative_tokens": 3, "quantization": draft_q}
            out, rate = run(core(spec, quantization=target_q))
            assert out == base, (method, draft_q)  # lossless whatever the draft's precision
            assert 0.0 <= rate <= 1.0


def test_target_quantization_moves_outputs_and_coarser_drafts_accept_less() -> None:
    dense, _ = run(core())
    nvfp4, _ = run(core(quantization="nvfp4"))
    assert nvfp4 != dense  # 4-bit target weights change what the model says
    rates = {
        q: run(core({"method": "mtp", "num_speculative_tokens": 3, "quantization": q}), n=48)[1]
        for q in ("bf16", "int4")
    }
    # on a few prompts, noise of about 0.1 either way
    assert rates["int4"] <= rates["bf16"] + 0.1


def test_moe_target_matches_the_dense_one_and_verify_activates_more_experts() -> None:
    dense = core()
    moe = core(moe=MoESpec(num_experts=8, top_k=2))
    for p in PROMPTS:
        assert tokens(generate(moe, req(moe, p))) == tokens(generate(dense, req(dense, p)))
    target = moe.target
    cache = target.new_cache()
    ids = moe.tokenizer.encode(PROMPTS[0])
    target.forward(ids, cache)
    target.forward(ids[:1], cache)
    one = max(target.last_expert_load)
    target.forward(ids[1:6], cache)
    five = max(target.last_expert_load)
    assert one == 2 and five > one  # a k+1 verify routes to more distinct experts


def test_batched_steps_return_what_each_request_returns_alone() -> None:
    c = core({"method": "mtp", "num_speculative_tokens": 2})
    alone = [tokens(generate(c, req(c, p, 20, f"a{i}"))) for i, p in enumerate(PROMPTS)]
    states = [c.start(req(c, p, 20, f"b{i}")) for i, p in enumerate(PROMPTS)]
    got: list[list[int]] = [[] for _ in states]
    live = list(range(len(states)))
    while live:
        outs = c.step_batch([states[i] for i in live])
        for i, out in zip(list(live), outs, strict=True):
            assert isinstance(out, RequestOutput)
            got[i] += out.token_ids
            if out.finish_reason is not None:
                live.remove(i)
    assert got == alone
    assert max(c.batch_sizes) == len(PROMPTS)


def test_a_skipped_draft_tensor_keeps_outputs_and_drops_acceptance() -> None:
    """On the draft's own workload (generated functions: it accepts about a quarter of its
    drafts there, against under a tenth on raw standard-library openings, where a damaged
    draft does as well as the trained one), a draft whose MLP was left at its initial values
    loses its acceptance while the target keeps every output."""
    prompts = tuple(r["prompt"] for r in load_eval("function")[:3])
    spec = {"method": "draft_model", "num_speculative_tokens": 3}
    good_out, good_rate = run(core(spec), n=40, prompts=prompts)
    faulty = core(spec, fault_draft_skip="transformer.h.0.mlp.*")
    bad_out, bad_rate = run(faulty, n=40, prompts=prompts)
    assert bad_out == good_out  # the target verifies: outputs stay correct
    assert good_rate > 0.15 and bad_rate < good_rate / 2  # the symptom is only acceptance
    report = faulty.load_report()
    (draft,) = [m for m in report["models"] if m["role"] == "draft"]  # type: ignore[index]
    skipped = sorted(t["name"] for t in draft["left_at_init"])
    assert skipped == [
        "transformer.h.0.mlp.c_fc.bias",
        "transformer.h.0.mlp.c_fc.weight",
        "transformer.h.0.mlp.c_proj.bias",
        "transformer.h.0.mlp.c_proj.weight",
    ]
    (target,) = [m for m in report["models"] if m["role"] == "target"]  # type: ignore[index]
    assert target["left_at_init"] == []  # the fault concerns draft paths only


def test_overrides_apply_like_a_bind_mount_and_vanish_without_it(tmp_path: Path) -> None:
    # an override that replaces the draft's weights by a damaged copy
    tensors = load_file(str(shipped("draft") / "model.safetensors"))
    rng = np.random.default_rng(0)
    damaged = {k: (v + rng.normal(0, 0.5, v.shape)).astype(v.dtype) for k, v in tensors.items()}
    (tmp_path / "draft").mkdir()
    save_file(damaged, str(tmp_path / "draft" / "model.safetensors"))
    spec = {"method": "draft_model", "num_speculative_tokens": 3}
    mounted = core(spec, override_dir=tmp_path)
    (draft,) = [m for m in mounted.load_report()["models"] if m["role"] == "draft"]  # type: ignore[index]
    assert draft["overridden_files"] == [str(tmp_path / "draft" / "model.safetensors")]
    assert {t["source"] for t in draft["loaded"]} == {str(tmp_path / "draft" / "model.safetensors")}
    _, mounted_rate = run(mounted, n=40)
    _, plain_rate = run(core(spec), n=40)  # "re-created without the mount"
    assert mounted_rate != plain_rate
    empty = tmp_path / "empty"
    shutil.copytree(tmp_path, empty / "unused")  # an override dir with nothing for our roles
    (draft,) = [
        m for m in core(spec, override_dir=empty).load_report()["models"] if m["role"] == "draft"
    ]  # type: ignore[index]
    assert draft["overridden_files"] == []


def test_the_device_model_paces_steps_without_changing_tokens() -> None:
    import time

    plain = core({"method": "mtp", "num_speculative_tokens": 2})
    paced = core({"method": "mtp", "num_speculative_tokens": 2}, device_model="accel-8b")
    t0 = time.perf_counter()
    out = tokens(generate(paced, req(paced, PROMPTS[0], 12)))
    elapsed = time.perf_counter() - t0
    assert out == tokens(generate(plain, req(plain, PROMPTS[0], 12)))
    assert paced.modeled_s > 0 and elapsed >= paced.modeled_s * 0.95
    with pytest.raises(ValueError, match="unknown device model"):
        core(device_model="tpu-9000")


def test_the_virtual_device_clock_stamps_each_output_with_the_modelled_time() -> None:
    spec = {"method": "mtp", "num_speculative_tokens": 2}
    plain = core(spec)
    clocked = core(spec, device_model="accel-2b", device_clock="virtual")
    outs = generate(clocked, req(clocked, PROMPTS[0], 12))
    assert tokens(outs) == tokens(generate(plain, req(plain, PROMPTS[0], 12)))
    stamps = [o.device_s for o in outs]
    assert all(s is not None for s in stamps)
    assert stamps == sorted(stamps) and stamps[-1] == pytest.approx(clocked.modeled_s)
    assert {o.device_arrival_s for o in outs} == {0.0}
    # a second request arrives on the device clock where the first left it
    again = generate(clocked, req(clocked, PROMPTS[0], 12))
    assert again[0].device_arrival_s == pytest.approx(stamps[-1])
    assert [o.device_s for o in again] == pytest.approx(stamps)
    assert all(o.device_s is None for o in generate(plain, req(plain, PROMPTS[0], 4)))
    with pytest.raises(ValueError, match="needs a device model"):
        core(device_clock="virtual")


def test_moe_step_work_grows_with_the_tokens_verified() -> None:
    moe = core(moe=MoESpec(num_experts=8, top_k=2)).target
    dense = core().target
    ids = list(range(10, 30))
    reads = {}
    for name, m in (("moe", moe), ("dense", dense)):
        cache = m.new_cache()
        m.forward(ids, cache)
        m.forward(ids[:1], cache)
        one = m.step_work(1)[0]
        m.forward(ids[1:5], cache)
        reads[name] = (one, m.step_work(4)[0])
    assert reads["dense"][0] == reads["dense"][1]  # a dense step reads every weight once
    assert reads["moe"][1] > reads["moe"][0]  # verifying more tokens reads more experts
