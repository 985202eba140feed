"""Extension points from outside the package: an engine adapter and a suite registered by a
separate distribution's entry points are listed, validated, run and judged like built-in ones;
a broken or wrong plugin is a one-line error; a miss says what is close."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from specverdict.campaign import parse_campaign
from specverdict.errors import ConfigError
from specverdict.plugins import ENGINES, SUITES, UnknownNameError
from specverdict.suites import get_suite
from tests.conftest import specverdict_cli

SPECVERDICT = [sys.executable, "-m", "specverdict"]

PLUGIN = '''
"""A plugin distribution: an engine kind and a suite, registered by entry points only."""

from specverdict.engines.reference import ReferenceAdapter
from specverdict.records import Score
from specverdict.suites.base import Sample, Suite


class ShadowReference(ReferenceAdapter):
    """The embedded reference engine under another kind, as a team's own adapter would be."""

    kind = "team-engine"


class Digits(Suite):
    name = "team-digits"
    version = 1
    stage = "function"
    source = "written for the plugin test"

    def samples(self):
        return [
            Sample(id=f"d{i}", endpoint="completions", prompt=f"def f{i}():\\n    return ")
            for i in range(24)
        ]

    def score(self, sample, text, tool_calls):
        passed = any(ch.isdigit() for ch in text)
        return Score(passed=passed, outcome="passed" if passed else "failed")


class NotASuite:
    pass
'''

ENTRY_POINTS = """\
[specverdict.engines]
team-engine = team_plugin:ShadowReference
vllm = team_plugin:ShadowReference

[specverdict.suites]
team-digits@1 = team_plugin:Digits
team-broken@1 = team_plugin_missing:Nothing
team-wrong@1 = team_plugin:NotASuite
"""

CAMPAIGN = """\
name: plugin-campaign
engine:
  kind: team-engine
  launch: {args: ["--device-model", "accel-2b", "--device-clock", "virtual"]}
model: {family: specverdict-reference, served_name: reference-target}
quantization: fp32
baseline: {method: none}
candidates:
  - {method: mtp, k: 2}
stages:
  function: {suite: team-digits@1}
sampling: {temperature: 0.0, max_tokens: 8, seed: 0}
load: {concurrency: [4], warmup: 1}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A test distribution on a path of its own: a module and its dist-info, as pip leaves
    an installed package (the module imports specverdict; specverdict never imports it)."""
    root = tmp_path_factory.mktemp("site")
    (root / "team_plugin.py").write_text(PLUGIN)
    info = root / "team_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: team-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return root


def cli(site: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``specverdict ARGS`` with the plugin's site on the path."""
    path = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    return specverdict_cli(*args, timeout=timeout, env={"PYTHONPATH": path})


def test_a_plugin_engine_and_suite_run_and_are_judged(site: Path, tmp_path: Path) -> None:
    listed = cli(site, "plugins")
    assert listed.returncode == 0, listed.stderr
    rows = [line for line in listed.stdout.splitlines() if "team-plugin" in line]
    assert any("team-engine" in r for r in rows) and any("team-digits@1" in r for r in rows)
    # a plugin cannot take a built-in name: vllm stays specverdict's own
    assert not any("vllm" in r for r in rows)
    campaign = tmp_path / "plugin.yaml"
    campaign.write_text(CAMPAIGN)
    db = tmp_path / "runs.db"
    ok = cli(site, "validate", str(campaign))
    assert ok.returncode == 0, ok.stderr
    ran = cli(site, "run", str(campaign), "--db", str(db))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    judged = cli(site, "verdict", str(campaign), "--db", str(db), "--json", "--fail-on", "INVALID")
    assert judged.returncode == 0, judged.stdout + judged.stderr
    assert '"suite": "team-digits@1"' in judged.stdout
    assert '"candidate": "mtp k=2"' in judged.stdout
    # every run (the baseline's repeats and the candidate) was scored by the plugin's suite
    con = sqlite3.connect(db)
    (runs,) = con.execute("SELECT COUNT(*) FROM runs WHERE status = 'completed'").fetchone()
    (scored,) = con.execute("SELECT COUNT(*) FROM scores").fetchone()
    (answered,) = con.execute("SELECT COUNT(*) FROM samples WHERE status = 'ok'").fetchone()
    assert runs >= 2 and scored == answered == 24 * runs


def test_a_broken_or_wrong_plugin_is_one_line_and_exit_2(site: Path) -> None:
    for ref, what in (
        ("team-broken@1", "cannot be loaded: ModuleNotFoundError"),
        ("team-wrong@1", "not a Suite subclass"),
    ):
        shown = cli(site, "suites", "show", ref)
        assert shown.returncode == 2, shown.stdout + shown.stderr
        (line,) = shown.stderr.strip().splitlines()
        assert ref in line and what in line


def test_without_the_plugin_its_names_are_unknown_with_a_hint() -> None:
    assert "team-engine" not in ENGINES.names()
    with pytest.raises(UnknownNameError) as err:
        get_suite("humanevl@1")
    assert str(err.value).startswith("unknown suite 'humanevl@1'; did you mean humaneval@1?")
    assert isinstance(err.value, ConfigError) and isinstance(err.value, KeyError)
    with pytest.raises(ConfigError, match="unknown engine kind; did you mean vllm"):
        parse_campaign(CAMPAIGN.replace("team-engine", "vlm"), Path("c.yaml"))
    # the allowed kinds are the registry's: every built-in kind validates, with no second list
    for kind in ENGINES.names():
        text = CAMPAIGN.replace("team-engine", kind).replace("team-digits@1", "humaneval@1")
        assert parse_campaign(text, Path("c.yaml")).engine.kind == kind
    assert SUITES.names() == sorted(SUITES.names())


def test_listing_names_imports_no_suite() -> None:
    code = textwrap.dedent(
        """
        import sys
        from specverdict.plugins import SUITES, ENGINES
        SUITES.names(); ENGINES.names()
        from specverdict.suites import known_suites
        known_suites()
        loaded = sorted(m for m in sys.modules if m.startswith(("specverdict.suites.", "specverdict.engines.")))
        print(loaded)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    for heavy in ("humaneval", "evalplus", "agent", "repository", "synth", "vllm", "sglang"):
        assert heavy not in out, out
