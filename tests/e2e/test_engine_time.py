"""Every second of an execution's engine time accounted for: start-up, warm-up, measured and
idle, against real reference servers (one with a slow start) and a real SQLite registry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from specverdict.campaign import build_plan, load_campaign, parse_campaign
from specverdict.cli.main import cli
from specverdict.errors import UserInterruptError
from specverdict.records import EngineTime, RunManifest, SampleRecord
from specverdict.report.html import render_html
from specverdict.report.markdown import render_markdown
from specverdict.report.model import campaign_report
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from tests.conftest import Servers
from tests.e2e.test_runner import campaign_text, quiet

SLOW_START = ", launch: {args: ['--startup-delay', '2']}"
#: how far the phases' sum may be from the span they split (rounding, clock reads)
TOLERANCE_S = 0.05


def adds_up(t: EngineTime) -> None:
    assert abs((t.startup_s or 0.0) + t.warmup_s + t.measured_s + t.idle_s - t.engine_s) < (
        TOLERANCE_S
    )


class StopAfter:
    """Progress that presses Ctrl-C once ``n`` samples are stored."""

    def __init__(self, n: int) -> None:
        self.n = n

    def start(self, run_id: str, label: str, total: int) -> None:
        return None

    def advance(self, record: SampleRecord) -> None:
        self.n -= 1
        if self.n == 0:
            raise KeyboardInterrupt

    def finish(self) -> None:
        return None


def test_the_arithmetic_of_the_split() -> None:
    t = EngineTime.of(10.0, 4.0, 1.0, 3.0)
    assert (t.engine_s, t.idle_s) == (10.0, 2.0)
    attached = EngineTime.of(5.0, None, 0.5, 4.0)
    assert attached.startup_s is None and attached.idle_s == pytest.approx(0.5)
    # a span shorter than its phases (clock reads a hair apart) never has negative idle
    short = EngineTime.of(3.9, 1.0, 1.0, 2.0)
    assert (short.engine_s, short.idle_s) == (4.0, 0.0)
    both = t.plus(t)
    assert (both.engine_s, both.startup_s, both.idle_s) == (20.0, 8.0, 4.0)
    assert attached.plus(attached).startup_s is None
    assert attached.plus(t).startup_s == 4.0  # an attached segment adds no start-up
    total = EngineTime.total([t, None, attached])
    assert total.engine_s == 15.0 and total.measured_s == 7.0
    assert EngineTime.total([]).share(1.0) == 0.0
    line = EngineTime.of(100.0, 14.0, 3.0, 71.0).busy_line()
    assert line == (
        "engine busy 71% of the campaign's engine time: starts 14%, warm-ups 3%, idle 12%"
    )
    assert len(line) <= 80
    assert attached.split_line() == (
        "engine up 5.0 s, attached: warm-up 0.5 s, measured 4.0 s, idle 0.5 s"
    )
    hours = EngineTime.of(36000.0, 3599.0, 999.0, 30000.0)
    assert hours.split_line() == (
        "engine up 36000 s: startup 3599 s, warm-up 999 s, measured 30000 s, idle 1402 s"
    )
    assert len(hours.split_line()) <= 80
    # recorded with the manifest, and read back
    manifest = RunManifest().updated({"engine_time": t})
    assert RunManifest.model_validate_json(manifest.model_dump_json()).engine_time == t


def test_a_slow_start_is_start_up_time_and_an_interrupted_run_keeps_and_adds_its_time(
    tmp_path: Path,
) -> None:
    plan = build_plan(parse_campaign(campaign_text(engine_extra=SLOW_START), Path("e.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    spec = plan.runs[0]
    with pytest.raises(UserInterruptError):
        Runner(store, log=quiet, progress=StopAfter(2)).run_one(plan, spec, 0)
    (run,) = store.list_runs()
    first = run.manifest.engine_time
    assert run.status == "interrupted" and first is not None
    assert first.startup_s is not None and first.startup_s >= 2.0  # the health said not ready
    assert first.warmup_s > 0 and first.measured_s > 0
    adds_up(first)

    runner = Runner(store, log=quiet)
    resumed = runner.run_one(plan, spec, 0)  # the resume launches a second server
    assert resumed.run_id == run.run_id and resumed.status == "completed"
    both = resumed.manifest.engine_time
    assert both is not None and both.startup_s is not None
    assert both.startup_s >= 4.0
    assert both.engine_s > first.engine_s and both.measured_s > first.measured_s
    adds_up(both)
    # this runner's own segment: its measured time is the segment's wall time
    (segment,) = resumed.manifest.segments
    mine = runner.engine_times[run.run_id]
    assert mine.measured_s == pytest.approx(segment.wall_s, abs=0.05)
    assert mine.warmup_s > 0  # a new server: the resume warms it up again
    assert both.engine_s == pytest.approx(first.engine_s + mine.engine_s)


def test_an_attached_engine_has_no_start_up_and_runs_show_prints_the_split(
    tmp_path: Path, servers: Servers
) -> None:
    base_url = servers.get()
    text = campaign_text(engine_extra=", base_url: 'http://127.0.0.1:1'", samples="{first: 2}")
    text += f"baseline: {{base_url: '{base_url}'}}\n"  # the candidate is not run here
    plan = build_plan(parse_campaign(text, Path("e.yaml")))
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    run = Runner(store, log=quiet).run_one(plan, plan.runs[0], 0)
    t = run.manifest.engine_time
    assert run.status == "completed" and t is not None
    assert t.startup_s is None and t.measured_s > 0 and t.idle_s > 0
    assert t.measured_s == pytest.approx(run.manifest.segments[0].wall_s, abs=0.05)
    adds_up(t)
    shown = CliRunner().invoke(cli, ["runs", "show", run.run_id, "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    line = next(x for x in shown.output.splitlines() if x.startswith("engine up "))
    assert ", attached: warm-up " in line and len(line) <= 80
    assert re.search(r"measured \d+\.\d s, idle \d+\.\d s$", line)


def test_run_ends_with_where_the_campaigns_engine_time_went(tmp_path: Path) -> None:
    campaign = tmp_path / "c.yaml"
    campaign.write_text(campaign_text(engine_extra=SLOW_START, samples="{first: 2}", max_tokens=8))
    db = tmp_path / "runs.db"
    result = CliRunner().invoke(cli, ["run", str(campaign), "--db", str(db), "--force"])
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    m = re.fullmatch(
        r"engine busy (\d+)% of the campaign's engine time: starts (\d+)%, warm-ups (\d+)%, "
        r"idle (\d+)%",
        last,
    )
    assert m is not None, last
    busy, starts, warmups, idle = map(int, m.groups())
    assert starts > 0 and busy > 0
    assert 97 <= busy + starts + warmups + idle <= 103  # each share rounded
    store = SQLiteStore(db)
    for run in store.list_runs():
        t = run.manifest.engine_time
        assert t is not None and t.startup_s is not None and t.startup_s >= 2.0
        adds_up(t)
    # the report's total line, in its header, and each manifest's split
    data = campaign_report(store, build_plan(load_campaign(campaign)))
    total = data.engine_time_line()
    assert total is not None and total.startswith("engine busy ")
    assert total.endswith(" s over 2 executions)")
    markdown = render_markdown(data)
    assert total in markdown and markdown.count("  - engine time: `engine up ") == 2
    html = render_html(data)
    assert "s over 2 executions)</p>" in html and html.count("engine up ") == 2
