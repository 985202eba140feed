"""Outputs behind one registry: the commands take their formats from ``plugins.OUTPUTS``, so a
plugin's report format, row format or tracking server is used with no command edited, and a
name of the wrong kind or a typo is one line and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from specverdict.errors import ConfigError
from specverdict.plugins import OUTPUTS
from specverdict.report.outputs import (
    FileOutput,
    TrackingOutput,
    file_output,
    file_outputs,
    get_output,
    tracking_output,
)
from tests.conftest import specverdict_cli
from tests.integration.report.conftest import Measured

PLUGIN = '''
"""A plugin distribution: a report format, a row format and a tracking server."""

import json
from pathlib import Path

from specverdict.report.outputs import FileOutput, TrackingOutput


def summary(data):
    lines = [f"{st.stage}: {p.verdict.candidate} {p.verdict.verdict}"
             for st in data.stages for p in st.pairs]
    return ("\\n".join(lines) + "\\n").encode()


def tsv(rows):
    return "".join(f"{r.run_id}\\t{r.sample_id}\\t{r.completion_tokens}\\n" for r in rows).encode()


def send(store, plan, uri):
    runs = [r for r in store.list_runs() if r.fingerprint in {x.fingerprint for x in plan.runs}]
    Path(uri).write_text(json.dumps(sorted(r.run_id for r in runs)))
    return len(runs), 0


SUMMARY = FileOutput("team-summary", "report", "summary.txt", "one line per pair", summary)
TSV = FileOutput("team-tsv", "rows", ".tsv", "run, sample, tokens", tsv)
LOG = TrackingOutput("team-log", "a JSON list of run ids in a file", send,
                     check_uri=lambda uri: None if uri.endswith(".json") else "not a .json file")
BROKEN = FileOutput("team-broken", "rows", ".txt", "fails", lambda rows: rows.missing)
NOT_AN_OUTPUT = 42
'''

ENTRY_POINTS = """\
[specverdict.outputs]
team-summary = team_outputs:SUMMARY
team-tsv = team_outputs:TSV
team-log = team_outputs:LOG
team-wrong = team_outputs:NOT_AN_OUTPUT
team-broken = team_outputs:BROKEN
team-missing = team_outputs_missing:OUTPUT
html = team_outputs:TSV
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("outputs-site")
    (root / "team_outputs.py").write_text(PLUGIN)
    info = root / "team_outputs-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: team-outputs\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return root


def cli(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    return specverdict_cli(*args, env={"PYTHONPATH": path})


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [x for x in proc.stderr.strip().splitlines() if x.strip()]
    return lines[-1]


def test_the_built_in_outputs_by_what_they_read() -> None:
    assert [o.name for o in file_outputs("report")] == ["html", "json", "markdown"]
    assert [o.name for o in file_outputs("rows")] == ["csv", "jsonl", "parquet"]
    assert [o.name for o in file_outputs("result")] == ["result"]
    assert isinstance(tracking_output("mlflow"), TrackingOutput)
    # every registered name is an output of one of the two shapes, under its own name
    for name in OUTPUTS.names():
        output = get_output(name)
        assert isinstance(output, FileOutput | TrackingOutput) and output.name == name
    with pytest.raises(ConfigError, match=r"'htm' is not one of html, json, markdown; did you "):
        file_output("htm", "report")
    with pytest.raises(ConfigError, match=r"\(it writes request rows\)"):
        file_output("csv", "report")
    with pytest.raises(ConfigError, match="not to a tracking server"):
        tracking_output("html")


def test_report_writes_the_formats_asked_for(measured: Measured, tmp_path: Path) -> None:
    out = tmp_path / "md-only"
    args = [str(measured.campaign), "--db", str(measured.db), "--out", str(out)]
    proc = specverdict_cli("report", *args, "--format", "markdown")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["report.md"]
    assert (out / "report.md").read_text() == (measured.plain / "report.md").read_text()
    wrong = specverdict_cli("report", *args, "--format", "csv")
    assert "--format csv: 'csv' is not one of html, json, markdown" in one_line(wrong)
    typo = specverdict_cli("report", *args, "--format", "htm")
    assert "did you mean html?" in one_line(typo)
    # the default is every report output, as before
    assert sorted(p.name for p in measured.plain.iterdir()) >= ["index.html", "report.json"]


def test_a_plugins_outputs_are_formats_and_commands(
    site: Path, measured: Measured, tmp_path: Path
) -> None:
    listed = cli(site, "plugins")
    assert listed.returncode == 0, listed.stderr
    rows = [x for x in listed.stdout.splitlines() if "team-outputs" in x]
    assert {n for n in ("team-summary", "team-tsv", "team-log") if any(n in r for r in rows)} == {
        "team-summary",
        "team-tsv",
        "team-log",
    }
    assert not any(" html " in r for r in rows)  # a built-in name stays specverdict's
    db = str(measured.db)
    out = tmp_path / "rep"
    made = cli(site, "report", str(measured.campaign), "--db", db, "--out", str(out),
               "--format", "team-summary", "--format", "html")  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "summary.txt"]
    summary = (out / "summary.txt").read_text().splitlines()
    assert summary and all(line.split(": ")[0] in {"function", "side:smoke"} for line in summary)
    rows_out = cli(site, "runs", "export", "--campaign", str(measured.campaign), "--db", db,
                   "--format", "team-tsv")  # fmt: skip
    assert rows_out.returncode == 0, rows_out.stderr
    jsonl = cli(site, "runs", "export", "--campaign", str(measured.campaign), "--db", db)
    assert len(rows_out.stdout.splitlines()) == len(jsonl.stdout.splitlines()) > 0
    log = tmp_path / "log.json"
    sent = cli(site, "export", "team-log", str(measured.campaign), "--db", db,
               "--tracking-uri", str(log))  # fmt: skip
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.startswith("logged ") and len(json.loads(log.read_text())) > 0
    bad_uri = cli(site, "export", "team-log", str(measured.campaign), "--db", db,
                  "--tracking-uri", str(tmp_path / "log.txt"))  # fmt: skip
    assert "not a .json file" in one_line(bad_uri)
    # a report format is not a row format, and a wrong-kind entry is named when used
    as_rows = cli(site, "runs", "export", "--campaign", str(measured.campaign), "--db", db,
                  "--format", "team-summary")  # fmt: skip
    assert "(it writes a report)" in one_line(as_rows)
    wrong = cli(site, "report", str(measured.campaign), "--db", db, "--out", str(out),
                "--format", "team-wrong")  # fmt: skip
    assert "team-wrong" in (line := one_line(wrong)) and "not a FileOutput" in line
    # a plugin that cannot be loaded stays out of the lists (the default report, export's
    # commands) and is refused by name
    every = tmp_path / "every"
    default = cli(site, "report", str(measured.campaign), "--db", db, "--out", str(every))
    assert default.returncode == 0, default.stderr
    assert {"index.html", "report.md", "report.json", "summary.txt"} <= {
        p.name for p in every.iterdir()
    }
    commands = cli(site, "export", "--help")
    assert "team-log" in commands.stdout and "team-missing" not in commands.stdout
    missing = cli(site, "report", str(measured.campaign), "--db", db, "--out", str(out),
                  "--format", "team-missing")  # fmt: skip
    assert "team-missing" in (line := one_line(missing)) and "cannot be loaded" in line
    broken = cli(site, "runs", "export", "--campaign", str(measured.campaign), "--db", db,
                 "--format", "team-broken")  # fmt: skip
    assert "output 'team-broken' (team-outputs) failed: AttributeError" in one_line(broken)
