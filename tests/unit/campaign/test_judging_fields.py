"""Campaign fields that choose how runs are judged, not what is run: ``speed_metric`` and
``slo`` (design note 023). They validate strictly and leave every run's identity alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.errors import ConfigError

BASE = """\
name: judging
engine: {kind: reference}
model: {family: f, served_name: m}
quantization: bf16
candidates:
  - {method: mtp, k: 2}
stages:
  function: {suite: builtin-code@1%s}
  agent: {suite: synth-agent@2}
%s"""


def campaign(stage_extra: str = "", top: str = "") -> str:
    return BASE % (stage_extra, top)


def test_speed_metric_defaults_by_stage_and_may_be_overridden() -> None:
    plain = parse_campaign(campaign(), Path("c.yaml"))
    assert plain.speed_metric("function") == "tpot" and plain.speed_metric("agent") == "e2e"
    assert plain.speed_metric("repository") == "e2e" and plain.speed_metric("prose") == "tpot"
    own = parse_campaign(campaign(", speed_metric: output_throughput"), Path("c.yaml"))
    assert own.speed_metric("function") == "output_throughput"


def test_an_unknown_speed_metric_is_one_line_naming_the_key() -> None:
    with pytest.raises(ConfigError) as info:
        parse_campaign(campaign(", speed_metric: itl"), Path("c.yaml"))
    text = str(info.value)
    assert "stages.function.speed_metric" in text and "'tpot'" in text and "\n" not in text


def test_slo_of_a_stage_replaces_the_campaigns() -> None:
    c = parse_campaign(
        campaign(", slo: {e2el: 2000}", "slo: {ttft: 500, tpot: 50}\n"), Path("c.yaml")
    )
    assert c.slo_for("agent") is not None
    assert c.slo_for("agent").targets_s() == {"ttft": 0.5, "tpot": 0.05}  # type: ignore[union-attr]
    assert c.slo_for("function").targets_s() == {"e2el": 2.0}  # type: ignore[union-attr]
    assert parse_campaign(campaign(), Path("c.yaml")).slo_for("function") is None


@pytest.mark.parametrize("slo", ["{}", "{ttft: 0}", "{itl: 10}", "{ttft: -5}"])
def test_an_slo_that_names_no_valid_target_is_refused(slo: str) -> None:
    with pytest.raises(ConfigError, match=r"slo"):
        parse_campaign(campaign("", f"slo: {slo}\n"), Path("c.yaml"))


def test_judging_fields_are_not_run_identity() -> None:
    """A campaign re-read with another metric or other targets judges the runs it stored."""
    plain = build_plan(parse_campaign(campaign(), Path("c.yaml")))
    judged = build_plan(
        parse_campaign(
            campaign(", speed_metric: e2e, slo: {ttft: 100}", "slo: {e2el: 900}\n"), Path("c.yaml")
        )
    )
    assert [r.fingerprint for r in plain.runs] == [r.fingerprint for r in judged.runs]
