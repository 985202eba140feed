"""``specverdict sweep`` on the reference engine (its modelled device clock): each
configuration climbs the ladder, its knee is found, the swept campaign is written beside the
original and measured, and the verdicts end with where the candidate stops paying; the report
of the swept campaign says it too. Bad options are one line each, exit code 2. The same on
real llama.cpp's wall clock is in ``tests/integration/llamacpp/test_sweep.py``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from specverdict.campaign import load_campaign
from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli

STAGES = {"side:fixed": {"synthetic": {"prompts": 16, "input_tokens": 32, "output_tokens": 24}}}


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("sweep")
    campaign, db = root / "campaign.yaml", root / "runs.db"
    campaign.write_text(
        "# a comment the swept copy does not keep\n"
        + campaign_yaml(
            "sweep",
            stages=STAGES,
            device_model="accel-2b",
            device_clock="virtual",
            concurrency=(2,),
        )
    )
    ran = specverdict_cli(
        "sweep", str(campaign), "--db", str(db), "--levels", "1,4,16", "--requests", "16",
        "--force", env={"COLUMNS": "100"}, timeout=900,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    return campaign, db, ran.stdout


def test_each_configuration_climbs_the_ladder_and_its_knee_is_shown(
    swept: tuple[Path, Path, str],
) -> None:
    campaign, db, out = swept
    assert "sweep of stage side:fixed (synthetic:corpus-32x24@1):" in out
    store = SQLiteStore(db)
    explored = [r for r in store.list_runs() if r.spec.campaign == "sweep-sweep"]
    # one execution per configuration and level, the baseline's too, on the first samples
    assert sorted((r.spec.speculation.label, r.spec.load.concurrency) for r in explored) == [
        (label, c) for label in ("mtp k=2", "none") for c in (1, 4, 16)
    ]
    assert all(len(store.samples(r.run_id)) == 16 for r in explored)
    knees = re.findall(r"\b(knee|top \(still scaling\))", out)
    assert len(knees) == 2  # one per configuration
    chosen = re.search(r"levels chosen: concurrency ([\d, ]+); written to (\S+)", out)
    assert chosen is not None and Path(chosen.group(2)) == campaign.with_name("campaign.swept.yaml")


def test_the_swept_campaign_is_the_original_at_the_chosen_levels(
    swept: tuple[Path, Path, str],
) -> None:
    campaign, _, out = swept
    written = campaign.with_name("campaign.swept.yaml")
    text = written.read_text()
    assert text.startswith("# campaign.yaml at the load levels its saturation sweep chose")
    assert "# knees: none c=" in text and "a comment" not in text
    levels = [
        int(v) for v in re.findall(r"levels chosen: concurrency ([\d, ]+);", out)[0].split(",")
    ]
    original, copy = load_campaign(campaign), load_campaign(written)
    assert copy.load.concurrency == levels and 1 <= len(levels) <= 5
    assert levels == sorted(levels) and max(levels) <= 16  # never above the ladder's top
    same = original.model_copy(update={"load": copy.load})
    assert copy == same  # nothing else changed
    assert yaml.safe_load(text)["load"]["warmup"] == 1


def test_the_pairs_are_measured_there_and_where_the_candidate_stops_paying_is_named(
    swept: tuple[Path, Path, str],
) -> None:
    campaign, db, out = swept
    written = campaign.with_name("campaign.swept.yaml")
    levels = load_campaign(written).load.levels()
    store = SQLiteStore(db)
    measured = [r for r in store.list_runs() if r.spec.campaign == "sweep"]
    assert {r.spec.load.concurrency for r in measured} == set(levels)
    assert "stage side:fixed (synthetic:corpus-32x24@1), speed on TPOT" in out
    assert len(levels) > 1  # each knee halved, itself and doubled: two levels at least
    (line,) = [x for x in out.splitlines() if x.startswith("mtp k=2 in stage side:fixed:")]
    assert "pay" in line and "concurrency=" in line
    report = db.parent / "report"
    made = specverdict_cli("report", str(written), "--db", str(db), "--out", str(report))
    assert made.returncode == 0, made.stderr
    assert f"- {line}" in (report / "report.md").read_text()
    assert 'class="paying"' in (report / "index.html").read_text()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--levels", "4,2"], "--levels"),
        (["--levels", "1,x"], "expected concurrencies separated by commas"),
        (["--stage", "prose"], "the campaign's stages are side:fixed"),
        (["--out", "/tmp/elsewhere.yaml"], "beside"),
        (["--gain", "0"], "--gain"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    tmp_path: Path, args: list[str], expected: str
) -> None:
    campaign = tmp_path / "c.yaml"
    campaign.write_text(campaign_yaml("bad", stages=STAGES))
    ran = specverdict_cli("sweep", str(campaign), "--db", str(tmp_path / "r.db"), *args)
    assert ran.returncode == 2
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], ran.stderr
    assert not (tmp_path / "r.db").exists() or SQLiteStore(tmp_path / "r.db").list_runs() == []
