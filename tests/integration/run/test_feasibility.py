"""What cannot run is refused before an engine starts: by validate, checklist and run alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.errors import ConfigError
from specverdict.run.feasibility import feasibility
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from tests.conftest import specverdict_cli

CAMPAIGN = """\
name: f
engine: {{kind: reference}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: {quant}
candidates:
{candidates}
stages:
  function: {{suite: builtin-code@1, samples: {samples}}}
load: {load}
"""


def text(
    candidates: str = "  - {method: mtp, k: 2}",
    samples: str = "{first: 6}",
    load: str = "{concurrency: [1]}",
    quant: str = "fp32",
) -> str:
    return CAMPAIGN.format(candidates=candidates, samples=samples, load=load, quant=quant)


def errors_of(campaign: str) -> tuple[str, ...]:
    return feasibility(build_plan(parse_campaign(campaign, Path("f.yaml")))).errors


def test_a_feasible_campaign_has_no_errors() -> None:
    assert errors_of(text()) == ()


def test_a_method_the_engine_lacks_is_named_with_what_it_has() -> None:
    assert errors_of(text(candidates="  - {method: eagle, k: 3}")) == (
        "candidate eagle k=3: engine 'reference' does not implement speculation method "
        "'eagle'; it implements: dflash, draft_model, dspark, eagle3, medusa, mtp, ngram, suffix",
    )


def test_options_and_quantizations_the_engine_refuses() -> None:
    (quant,) = errors_of(text(quant="fp9"))
    assert quant.startswith("baseline, candidate mtp k=2: quantization 'fp9': the reference ")
    (param,) = errors_of(text(candidates="  - {method: mtp, k: 2, params: {prompt_lookup_min: 2}}"))
    assert param == (
        "candidate mtp k=2: the reference engine refuses it: prompt_lookup_min/prompt_lookup_max "
        "apply to method 'ngram' only"
    )


def test_other_engines_refuse_through_their_own_flag_rules() -> None:
    sglang = text(candidates="  - {method: suffix, k: 2}").replace(
        "kind: reference", "kind: sglang, launch: {}"
    )
    (problem,) = errors_of(sglang)
    assert "engine 'sglang' does not implement speculation method 'suffix'" in problem


def test_loads_the_samples_cannot_hold() -> None:
    (conc,) = errors_of(text(load="{concurrency: [1, 16]}"))
    assert conc.startswith("load.concurrency 16: stage function has 6 samples, so at most 6 ")
    plan = build_plan(parse_campaign(text(load="{request_rate: [4.0]}"), Path("f.yaml")))
    (burst,) = feasibility(plan).warnings
    assert burst.startswith("load.request_rate 4/s: the 6 samples of stage function last 1.5 s")


@pytest.mark.parametrize(
    "samples, message",
    [
        ("{first: 600}", "samples.first 600: suite builtin-code@1 has 16 samples"),
        ("{seeded: 17, seed: 1}", "samples.seeded 17: suite builtin-code@1 has 16 samples"),
    ],
)
def test_a_selection_larger_than_its_suite_is_an_error_not_a_silent_cap(
    samples: str, message: str
) -> None:
    (error,) = errors_of(text(samples=samples))
    assert error.startswith(f"stages.function.samples: {message}")


def test_validate_checklist_and_run_refuse_alike_and_run_even_with_force(tmp_path: Path) -> None:
    campaign = tmp_path / "c.yaml"
    campaign.write_text(text(candidates="  - {method: eagle, k: 3}", load="{concurrency: [16]}"))
    db = tmp_path / "reg" / "runs.db"
    validate = specverdict_cli("validate", str(campaign))
    assert validate.returncode == 2
    lines = validate.stderr.strip().splitlines()
    assert len(lines) == 2  # every problem, each on its line
    assert lines[0].startswith(f"specverdict: error: {campaign}: candidate eagle k=3: engine")
    assert lines[1].startswith(f"{campaign}: load.concurrency 16: ")
    run = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert run.returncode == 2 and run.stderr.splitlines()[1:] == lines[1:]
    assert not db.parent.exists()  # refused before the registry was touched
    checklist = specverdict_cli("checklist", str(campaign), "--json", "--db", str(db))
    assert checklist.returncode == 1 and '"name": "engine can run it"' in checklist.stdout


def test_the_runner_refuses_an_infeasible_run_itself() -> None:
    plan = build_plan(parse_campaign(text(candidates="  - {method: eagle, k: 3}"), Path("f.yaml")))
    candidate = next(r for r in plan.runs if r.speculation.method == "eagle")
    with pytest.raises(ConfigError, match="does not implement speculation method 'eagle'"):
        Runner(SQLiteStore(":memory:")).run_one(plan, candidate, 0)
