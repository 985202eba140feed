"""``specverdict init``, ``schema`` and the generated campaign reference (docs/campaign.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from specverdict.campaign import Campaign, build_plan, load_campaign
from specverdict.campaign.docs import NOTES, REGENERATE, campaign_markdown, sections
from specverdict.campaign.model import Candidate
from specverdict.cli.main import cli
from specverdict.plugins import ENGINES
from tests.conftest import specverdict_cli

DOCS = Path(__file__).resolve().parents[3] / "docs" / "campaign.md"


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("kind", ENGINES.names())
def test_init_writes_a_commented_campaign_that_validates(kind: str, tmp_path: Path) -> None:
    out = tmp_path / "campaign.yaml"
    invoke("init", "--engine", kind, "--model", "org/My Model-7B", "--out", str(out))
    text = out.read_text()
    assert text.count("\n#") + text.count("  #") >= 10  # commented, not a bare dump
    campaign = load_campaign(out)
    assert campaign.engine.kind == kind and campaign.model.served_name == "org/My Model-7B"
    plan = build_plan(campaign)
    assert len(plan.pairs) == 1
    validated = invoke("validate", str(out), "--json")
    assert json.loads(validated)["pairs"]
    if kind != "reference":  # attach mode: one server per configuration
        assert campaign.baseline_url() != campaign.candidate_url(campaign.candidates[0])
    # the launch example is in the engine's own flags, never another engine's
    own = {"vllm": "--max-model-len", "sglang": "--context-length", "llamacpp": "--ctx-size"}
    if kind in own:
        assert own[kind] in text
        assert all(flag not in text for k, flag in own.items() if k != kind)


def test_init_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "c.yaml"
    out.write_text("keep me")
    for args, expected in (
        (["--engine", "vlm", "--model", "m"], "did you mean vllm?"),
        (["--engine", "vllm", "--model", " "], "--model"),
        (["--engine", "vllm", "--model", "m", "--out", str(out)], "pass --force"),
    ):
        proc = specverdict_cli("init", *args)
        assert proc.returncode == 2, proc.stderr
        (line,) = proc.stderr.strip().splitlines()
        assert expected in line, line
    assert out.read_text() == "keep me"
    invoke("init", "--engine", "vllm", "--model", "m", "--out", str(out), "--force")
    assert yaml.safe_load(out.read_text())["engine"]["kind"] == "vllm"


def test_schema_prints_the_campaign_json_schema() -> None:
    printed = json.loads(invoke("schema"))
    assert printed == Campaign.model_json_schema()
    assert set(printed["required"]) >= {"name", "engine", "model", "candidates", "stages"}
    result = json.loads(invoke("schema", "run-result"))
    assert result["properties"]["schema_version"]["default"] == 1


def test_the_committed_campaign_reference_is_the_generated_one() -> None:
    generated = campaign_markdown()
    assert DOCS.read_text() == generated, (
        f"docs/campaign.md differs from the campaign models: regenerate it with `{REGENERATE}`"
    )


def test_the_reference_has_every_model_and_field_and_notes_only_fill_gaps() -> None:
    text = campaign_markdown()
    for model, _ in sections():
        assert f"\n## {model.__name__}\n" in text
        for name in model.model_fields:
            assert f"| `{name}` |" in text
    assert "| `k` | integer \\| list[integer] \\| null | `null` | draft tokens per step" in text
    by_name = {m.__name__: m for m, _ in sections()}
    assert Candidate in by_name.values()
    for key in NOTES:  # a note never hides a model's own description, nor names a lost field
        model_name, field = key.split(".")
        assert by_name[model_name].model_fields[field].description is None, key
