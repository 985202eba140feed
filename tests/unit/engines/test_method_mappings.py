"""Every campaign method against each engine's source at a pinned version.

The fixtures (``tests/fixtures/<engine>/spec_methods.json``) hold what each engine's source says
at the version named in them: the names it accepts for a speculation method, the options it
takes, and for each campaign method either the engine's name(s) for it or why the engine lacks
it. These tests fail when a campaign ``Method`` has neither a mapping nor a reasoned refusal for
an engine, when an adapter maps a method to a name the source does not accept, or when the
options an adapter writes are not the source's; and they check that a refusal is one line that
names the engine, the method and the reason. No server is started.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, get_args

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import Method
from specverdict.campaign.spec import RunSpec
from specverdict.engines import llamacpp, preflight, sglang, trtllm, vllm, xllamacpp_server
from specverdict.engines.base import EngineAdapter
from specverdict.engines.registry import adapter_for
from specverdict.run.feasibility import feasibility
from tests.conftest import FIXTURES

#: engine kind -> its fixture folder
FOLDERS = {
    "vllm": "vllm-0.32.0-cpu",
    "sglang": "sglang",
    "trtllm": "trtllm",
    "llamacpp": "llamacpp",
}
ENGINES = tuple(FOLDERS)
METHODS = tuple(m for m in get_args(Method) if m != "none")

CAMPAIGN = """\
name: method-mappings
engine: {{kind: {kind}, base_url: "http://127.0.0.1:8000", reconfigure: between-runs}}
model: {{family: qwen3, served_name: qwen3-8b}}
quantization: bf16
candidates:
  - {candidate}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 2}}}}
"""


@cache
def fixture(kind: str) -> dict[str, Any]:
    path = FIXTURES / FOLDERS[kind] / "spec_methods.json"
    loaded = json.loads(path.read_text())
    assert isinstance(loaded, dict)
    return loaded


def campaign(kind: str, candidate: str) -> str:
    return CAMPAIGN.format(kind=kind, candidate=candidate)


def spec(kind: str, candidate: str) -> RunSpec:
    """The candidate's run of a one-candidate campaign on engine ``kind``."""
    runs = build_plan(parse_campaign(campaign(kind, candidate), Path("x.yaml"))).runs
    (run,) = [r for r in runs if r.speculation.method != "none"]
    return run


def adapter(kind: str) -> EngineAdapter:
    return adapter_for(kind)


# --- every method: mapped or refused with a reason -----------------------------------------------


@pytest.mark.parametrize("kind", ENGINES)
def test_every_method_is_mapped_or_refused_with_a_reason(kind: str) -> None:
    a = adapter(kind)
    assert a.method_names is not None and a.methods == frozenset(a.method_names)
    for method in METHODS:
        mapped, reason = method in a.method_names, a.unsupported.get(method)
        assert mapped != (reason is not None), (
            f"{kind}: method {method!r} needs exactly one of a mapping and a reasoned refusal"
        )
        assert reason is None or reason.strip()
    assert set(a.unsupported) <= set(METHODS)


@pytest.mark.parametrize("kind", ENGINES)
def test_the_fixture_covers_every_method_as_the_adapter_does(kind: str) -> None:
    """The fixture records the engine's name(s) for each mapped method and a reason for each
    method it lacks; the adapter says the same."""
    a, facts = adapter(kind), fixture(kind)["methods"]
    assert a.method_names is not None
    assert set(facts) == set(METHODS)
    for method in METHODS:
        if method in a.method_names:
            assert facts[method]["names"] == list(a.method_names[method]), method
        else:
            assert facts[method]["unsupported"], method


@pytest.mark.parametrize("kind", ENGINES)
def test_mapped_names_are_accepted_by_the_pinned_source(kind: str) -> None:
    a, accepted = adapter(kind), set(fixture(kind)["accepted_names"]["values"])
    assert a.method_names is not None
    for method, names in a.method_names.items():
        assert set(names) <= accepted, f"{kind}: {method} -> {names}, source accepts {accepted}"


@pytest.mark.parametrize("kind", ENGINES)
def test_the_fixture_pins_a_source(kind: str) -> None:
    f = fixture(kind)
    assert f["engine"] == kind and f["repository"] and f["files"] and f["source"]
    assert f["commit"] or f["ref"]


# --- the options each adapter writes are the source's --------------------------------------------

#: methods that take no draft checkpoint in these tests
NO_DRAFT = {"ngram", "suffix", "mtp"}


def candidate(method: str, k: int = 3, draft_quantization: bool = False) -> str:
    parts = [f"method: {method}", f"k: {k}"]
    if method not in NO_DRAFT:
        parts.append("draft: /models/draft")
        if draft_quantization:
            parts.append("draft_quantization: fp8")
    return "{" + ", ".join(parts) + "}"


@pytest.mark.parametrize("method", vllm.METHODS)
def test_vllm_config_keys_are_speculative_config_fields(method: str) -> None:
    keys = set(fixture("vllm")["options"]["values"])
    config = vllm.vllm_speculative_config(spec("vllm", candidate(method, draft_quantization=True)))
    assert config is not None
    assert set(config) <= keys
    assert config["method"] in fixture("vllm")["accepted_names"]["values"]


def test_the_vllm_k_schedule_key_is_a_speculative_config_field() -> None:
    assert vllm.K_SCHEDULE_KEY in fixture("vllm")["options"]["values"]
    assert fixture("vllm")["k_schedule"]["key"] == vllm.K_SCHEDULE_KEY


def sglang_field(flag: str) -> str:
    aliases = fixture("sglang")["options"]["aliases"]
    return str(aliases.get(flag, flag.removeprefix("--").replace("-", "_")))


@pytest.mark.parametrize("method", sglang.ALGORITHMS)
def test_sglang_flags_are_server_args_fields(method: str) -> None:
    fields = set(fixture("sglang")["options"]["values"])
    options = sglang.sglang_speculative_options(
        spec("sglang", candidate(method, draft_quantization=True))
    )
    assert options is not None
    assert {sglang_field(flag) for flag in options} <= fields
    assert options["--speculative-algorithm"] in fixture("sglang")["accepted_names"]["values"]


def test_sglang_method_parameters_and_server_fields_are_server_args_fields() -> None:
    f = fixture("sglang")
    fields = set(f["options"]["values"])
    assert fields >= sglang.UNPREFIXED_PARAMS
    assert {k for k in sglang.SERVER_ARGS if k.startswith("speculative_")} <= fields
    for method, facts in f["methods"].items():
        for option in facts.get("options", []):
            assert option in fields, (method, option)
            short = option.removeprefix("speculative_")
            assert sglang_field(sglang.option_name(short)) == option
    assert f["options"]["draft_quantization_unquantized"]["value"] == sglang.UNQUANTIZED_DRAFT


def test_sglang_names_preflight_expects_are_the_ones_the_server_reports() -> None:
    f = fixture("sglang")
    reported = set(f["reported_names"]["values"]) | set(f["accepted_names"]["aliases"])
    for method, names in preflight.SGLANG_REPORTED.items():
        assert names <= reported, method


@pytest.mark.parametrize("method", trtllm.DECODING_TYPES)
def test_trtllm_config_keys_are_fields_of_the_decoding_config(method: str) -> None:
    options = fixture("trtllm")["options"]
    config = trtllm.trtllm_speculative_config(spec("trtllm", candidate(method)))
    assert config is not None
    tag = config["decoding_type"]
    assert tag in fixture("trtllm")["accepted_names"]["values"]
    allowed = (
        set(options["common"]["values"])
        | set(options["common"]["aliases"])
        | set(options["per_decoding_type"][tag])
    )
    assert set(config) <= allowed


@pytest.mark.parametrize(
    "spec_type",
    sorted({t for types in llamacpp.SPEC_TYPES.values() for t in types}),
)
def test_llamacpp_flags_are_llama_server_flags(spec_type: str) -> None:
    method = next(m for m, types in llamacpp.SPEC_TYPES.items() if spec_type in types)
    k = llamacpp.NGRAM_CACHE_K if spec_type == "ngram-cache" else 3
    text = candidate(method, k).removesuffix("}") + f", params: {{spec_type: {spec_type}}}}}"
    args = llamacpp.llamacpp_speculative_args(spec("llamacpp", text))
    flags = {a for a in args if a.startswith("-") and not a.lstrip("-").isdigit()}
    assert flags <= set(fixture("llamacpp")["options"]["values"])
    assert args[args.index("--spec-type") + 1] == spec_type


def test_llamacpp_k_flags_removed_flags_and_type_names_are_the_sources() -> None:
    f = fixture("llamacpp")
    assert f["k"]["flags"] == llamacpp.K_FLAGS
    assert f["k"]["ngram_cache_k"] == llamacpp.NGRAM_CACHE_K
    removed = f["options"]["removed"]["values"]
    assert set(llamacpp.REMOVED_FLAGS) == set(removed)
    # the in-process server answers a removed flag as llama.cpp does
    assert removed == xllamacpp_server.REMOVED
    assert set(xllamacpp_server.SPEC_TYPE_NAMES) == set(f["accepted_names"]["values"])
    spec_flags = {
        name
        for names in xllamacpp_server.VALUED
        for name in names
        if any(part in name for part in ("spec", "draft", "lookup-cache"))
        or name in ("-md", "-lcs", "-lcd", "-td", "-tbd", "-ngld")
    }
    assert spec_flags <= set(f["options"]["values"])


# --- a method an engine lacks: one line naming the method, the engine and why -------------------


@pytest.mark.parametrize(
    ("kind", "method"),
    [("sglang", "medusa"), ("trtllm", "eagle"), ("llamacpp", "suffix")],
)
def test_validate_refuses_a_method_the_engine_lacks_in_one_line(kind: str, method: str) -> None:
    reason = adapter(kind).unsupported[method]
    plan = build_plan(parse_campaign(campaign(kind, candidate(method)), Path("c.yaml")))
    (error,) = feasibility(plan).errors
    assert "\n" not in error
    assert error == (
        f"candidate {method} k=3: engine {kind!r} does not implement speculation method "
        f"{method!r} ({reason}); it implements: {', '.join(sorted(adapter(kind).methods or ()))}"
    )
    # the adapter's own flags refuse it with the same words
    with pytest.raises(ValueError) as err:
        adapter(kind).speculative_args(spec(kind, candidate(method)), "/runs/r")
    assert str(err.value) in error


def test_vllm_lacks_no_method() -> None:
    a = adapter("vllm")
    assert dict(a.unsupported) == {}
    for method in METHODS:
        assert a.problems(spec("vllm", candidate(method))) == [], method


def test_a_draft_model_vllm_would_run_as_another_method_is_warned_of() -> None:
    from specverdict.campaign import build_plan, parse_campaign
    from specverdict.engines.vllm import VLLMAdapter
    from specverdict.run.feasibility import feasibility

    def plan(draft: str):  # type: ignore[no-untyped-def]
        text = (
            "name: t\nengine: {kind: vllm, launch: {}}\n"
            "model: {family: f, served_name: m}\nquantization: bf16\n"
            f"candidates: [{{method: draft_model, k: 3, draft: '{draft}'}}]\n"
            "stages: {function: {suite: builtin-code@1}}\n"
        )
        return build_plan(parse_campaign(text, Path("c.yaml")))

    risky = plan("/models/Qwen3-8B-EAGLE3-draft")
    (caution,) = VLLMAdapter().cautions(risky.runs[-1])
    assert "re-detects the method from the draft's name ('eagle3' in it)" in caution
    assert feasibility(risky).errors == ()
    assert any(
        w.startswith("candidate draft_model k=3: draft") for w in feasibility(risky).warnings
    )
    assert VLLMAdapter().cautions(plan("/models/qwen3-0.6b").runs[-1]) == []
