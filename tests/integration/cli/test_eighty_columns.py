"""Every command's human output at 80 columns: no word broken inside itself, nothing cut off,
no line longer than the terminal but a command to copy or JSON, and the ids shown are ids the
other commands take. Each command is rendered twice, at 80 and at 400 columns, as a user's
terminal would ask (COLUMNS): every word of the narrow output must be a word of the wide one, so
a label folded mid-word (``relaxe`` / ``d``), a JSON body chopped into fragments or an
ellipsis fails."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"
#: box-drawing characters of rich's tables and rules: borders, not words
BOX = re.compile(r"[\u2500-\u257f]")
HEX_ID = re.compile(r"\b[0-9a-f]{8,}\b")

CAMPAIGN = campaign_yaml(
    "eighty-columns",
    candidates=[
        {"method": "mtp", "k": 2, "params": {"acceptance": "relaxed", "relaxed_topk": 3}},
        {"method": "ngram", "k": 2, "params": {"prompt_lookup_min": 1, "prompt_lookup_max": 3}},
    ],
    stages={"function": {"suite": "synth-function@1", "samples": {"first": 4}}},
    concurrency=[1],
)

#: long suite names (a synthetic stage's) beside the short columns of validate's plan
SYNTHETIC = campaign_yaml(
    "eighty-synthetic",
    stages={
        "side:long": {"synthetic": {"prompts": 24, "input_tokens": 2048, "output_tokens": 1024}},
        "side:noise": {
            "synthetic": {
                "prompts": 8,
                "input_tokens": 100,
                "output_tokens": 64,
                "source": "random",
            }
        },
    },
)


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, str]]:
    root = tmp_path_factory.mktemp("eighty")
    campaign, db = root / "campaign.yaml", root / "runs.db"
    campaign.write_text(CAMPAIGN)
    (root / "synthetic.yaml").write_text(SYNTHETIC)
    ran = specverdict_cli("run", str(campaign), "--db", str(db), env={"COLUMNS": "80"})
    assert ran.returncode == 0, ran.stderr
    store = SQLiteStore(db)
    run_id = store.list_runs()[0].run_id
    store.close()
    yield campaign, db, run_id


def rendered(args: list[str], width: int) -> str:
    proc = specverdict_cli(*args, env={"COLUMNS": str(width), "NO_COLOR": "1", "TERM": "dumb"})
    # verdict exits 3 when a verdict is one --fail-on names; 2 is a usage error
    assert proc.returncode in (0, 3) and proc.stdout, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def words(text: str) -> Counter[str]:
    return Counter(BOX.sub(" ", text).split())


def allowed_long(line: str) -> bool:
    """A line may pass 80 columns only when it cannot be broken without harm: a command to
    copy (``next: ...``), a line of JSON, or one word too long for any line (a path)."""
    stripped = line.strip()
    return (
        stripped.startswith(("next: ", '"', "{", "}", "[", "]"))
        or len(stripped.split()) == 1
        or line.rstrip().endswith((",", "{", "["))  # inside a JSON block
    )


def commands(campaign: Path, db: Path, run_id: str) -> list[list[str]]:
    reg = ["--db", str(db)]
    return [
        ["suites", "list"],
        ["suites", "show", "humaneval@1"],
        ["plugins"],
        ["validate", str(DEMO)],
        ["validate", str(campaign)],
        ["validate", str(campaign.parent / "synthetic.yaml")],
        ["checklist", str(campaign)],
        ["verdict", str(campaign), *reg],
        ["runs", "list", *reg],
        ["runs", "show", run_id[:8], *reg],
        ["runs", "errors", run_id[:8], *reg],
        ["policy", str(campaign), *reg],
    ]


def test_every_command_fits_80_columns_without_breaking_a_word(
    measured: tuple[Path, Path, str],
) -> None:
    checked = 0
    for args in commands(*measured):
        narrow, wide = rendered(args, 80), rendered(args, 400)
        broken = words(narrow) - words(wide)
        assert not broken, f"{' '.join(args[:2])}: broken or cut words {sorted(broken)[:8]}"
        long = [line for line in narrow.splitlines() if len(line) > 80 and not allowed_long(line)]
        assert not long, f"{' '.join(args[:2])}: lines over 80 columns {long[:3]}"
        checked += 1
    assert checked == 12


def test_the_ids_shown_are_ids_the_commands_take(measured: tuple[Path, Path, str]) -> None:
    campaign, db, _ = measured
    listed = rendered(["runs", "list", "--db", str(db)], 80)
    ids = HEX_ID.findall(listed)
    assert ids, listed
    for run_id in ids:
        shown = specverdict_cli("runs", "show", run_id, "--db", str(db))
        assert shown.returncode == 0, shown.stderr
    # before anything runs there is no run id: validate numbers its rows instead of showing
    # fingerprints that no command takes
    planned = rendered(["validate", str(campaign)], 80)
    assert not HEX_ID.findall(planned), planned


def test_a_run_ends_with_hints_whose_commands_are_whole(measured: tuple[Path, Path, str]) -> None:
    campaign, db, _ = measured
    ran = specverdict_cli("run", str(campaign), "--db", str(db), env={"COLUMNS": "80"})
    assert ran.returncode == 0, ran.stderr
    hints = [line for line in ran.stdout.splitlines() if line.startswith("next: ")]
    assert [h.split()[2] for h in hints] == ["verdict", "report", "policy"]
    for hint in hints:  # the command alone on its line, to copy as it is
        assert hint.startswith("next: specverdict ") and str(db) in hint and "(" not in hint
