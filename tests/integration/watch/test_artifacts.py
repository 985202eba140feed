"""The watch's exposition (parsed with prometheus_client), its alert rules (``promtool check
rules`` and ``promtool test rules`` when promtool is installed, as ``make promtool`` does; else
their YAML structure) and its Grafana dashboard."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from specverdict.policy.model import Expectation, Expectations, Figure
from specverdict.watch.artifacts import PANELS, alert_rules, dashboard
from specverdict.watch.detect import Baseline, DetectorConfig
from specverdict.watch.scrape import Watcher
from tests.conftest import specverdict_cli

EXPOSITION = """\
# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{{engine="0",model_name="m"}} {d}
vllm:spec_decode_num_drafts_created{{engine="0",model_name="m"}} 1.7e9
# TYPE vllm:spec_decode_num_draft_tokens_total counter
vllm:spec_decode_num_draft_tokens_total{{engine="0",model_name="m"}} {t}
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total{{engine="0",model_name="m"}} {a}
"""


def test_exposition_parses_with_the_window_and_band() -> None:
    scrapes = iter([EXPOSITION.format(d=0, t=0, a=0), EXPOSITION.format(d=100, t=200, a=120)])
    base = Baseline(mal_lower=2.0, mal_upper=2.4, acceptance_lower=0.5, acceptance_upper=0.7, k=2)
    w = Watcher(
        ["http://t"], base, DetectorConfig(), fetch=lambda url: next(scrapes), out=lambda s: None
    )
    w.poll()
    w.poll()
    values = {
        (s.name, s.labels.get("target")): s.value
        for fam in text_string_to_metric_families(generate_latest(w.metrics.registry).decode())
        for s in fam.samples
    }
    assert values[("specverdict_watch_window_mal", "http://t")] == 2.2
    assert values[("specverdict_watch_window_acceptance", "http://t")] == 0.6
    assert values[("specverdict_watch_expected_mal_lower", "http://t")] == 2.0
    assert values[("specverdict_watch_alarm", "http://t")] == 0.0
    assert values[("specverdict_watch_target_up", "http://t")] == 1.0
    assert values[("specverdict_watch_override_audit_clean", "http://t")] == -1.0
    assert values[("specverdict_watch_windows_total", "http://t")] == 1.0
    assert values[("specverdict_watch_false_alarm_rate", "http://t")] == 1e-4


#: where ``make promtool`` puts promtool, and the mark it leaves when asked to
VENV_BIN = Path(sys.executable).parent
WANTED = VENV_BIN.parent / ".promtool-wanted"


def promtool() -> str | None:
    """promtool on PATH or in the virtual environment; None when neither has it, unless
    ``make promtool`` was run: then its absence is a failure, never a quiet fallback."""
    found = shutil.which("promtool") or shutil.which("promtool", path=str(VENV_BIN))
    if found is None and WANTED.exists():
        pytest.fail("`make promtool` ran but left no promtool: run it again and read its error")
    return found


def test_alert_rules(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(alert_rules()))
    tool = promtool()
    if tool is not None:
        proc = subprocess.run(
            [tool, "check", "rules", str(path)], check=False, capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "4 rules found" in proc.stdout
    data = yaml.safe_load(path.read_text())
    (group,) = data["groups"]
    names = {r["alert"] for r in group["rules"]}
    assert names == {
        "SpecDecodeAcceptanceDrift",
        "SpecDecodeOverridesMissing",
        "SpecDecodeTargetDown",
        "SpecDecodeRestarted",
    }
    for r in group["rules"]:
        assert set(r) <= {"alert", "expr", "for", "labels", "annotations"}
        assert r["expr"].startswith(("specverdict_watch_", "increase(specverdict_watch_"))
        assert r["annotations"]["summary"] and r["annotations"]["description"]
    drift = next(r for r in group["rules"] if r["alert"] == "SpecDecodeAcceptanceDrift")
    assert "loader" in drift["annotations"]["description"]


def _annotations(alert: str, target: str) -> dict[str, str]:
    rule = next(r for g in alert_rules()["groups"] for r in g["rules"] if r["alert"] == alert)
    return {k: v.replace("{{ $labels.target }}", target) for k, v in rule["annotations"].items()}


def test_alerts_fire_under_promtool_test_rules(tmp_path: Path) -> None:
    """promtool's rule unit tests on the watch's own series: the drift alert fires with the
    alarm, the down alert only after its 5 minutes, the restart alert on the counter's rise."""
    tool = promtool()
    if tool is None:
        pytest.skip(
            "promtool is not installed (`make promtool`); test_alert_rules checks the rules"
        )
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(alert_rules()))
    t = "http://10.0.0.5:8000"
    lab = f'{{target="{t}"}}'
    unit = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [
                    {"series": f"specverdict_watch_alarm{lab}", "values": "0 0 1 1 1 0"},
                    {"series": f"specverdict_watch_target_up{lab}", "values": "1 0 0 0 0 0 0 0"},
                    {"series": f"specverdict_watch_restarts_total{lab}", "values": "0 0 0 1 1 1"},
                ],
                "alert_rule_test": [
                    {"eval_time": "1m", "alertname": "SpecDecodeAcceptanceDrift", "exp_alerts": []},
                    {
                        "eval_time": "3m",
                        "alertname": "SpecDecodeAcceptanceDrift",
                        "exp_alerts": [
                            {
                                "exp_labels": {"severity": "warning", "target": t},
                                "exp_annotations": _annotations("SpecDecodeAcceptanceDrift", t),
                            }
                        ],
                    },
                    {"eval_time": "5m", "alertname": "SpecDecodeTargetDown", "exp_alerts": []},
                    {
                        "eval_time": "6m",
                        "alertname": "SpecDecodeTargetDown",
                        "exp_alerts": [
                            {
                                "exp_labels": {"severity": "warning", "target": t},
                                "exp_annotations": _annotations("SpecDecodeTargetDown", t),
                            }
                        ],
                    },
                    {
                        "eval_time": "4m",
                        "alertname": "SpecDecodeRestarted",
                        "exp_alerts": [
                            {
                                "exp_labels": {"severity": "info", "target": t},
                                "exp_annotations": _annotations("SpecDecodeRestarted", t),
                            }
                        ],
                    },
                ],
            }
        ],
    }
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(unit, sort_keys=False))
    proc = subprocess.run(
        [tool, "test", "rules", "test.yaml"],
        cwd=tmp_path,
        check=False,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout
    # and the test can fail: the drift alert does not fire before the alarm
    early = yaml.safe_load((tmp_path / "test.yaml").read_text())
    early["tests"][0]["alert_rule_test"][0]["exp_alerts"] = [
        {"exp_labels": {"severity": "warning", "target": t}}
    ]
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(early, sort_keys=False))
    proc = subprocess.run(
        [tool, "test", "rules", "test.yaml"],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and "FAILED" in proc.stdout + proc.stderr


def test_dashboard_loads_with_its_panels(tmp_path: Path) -> None:
    board = json.loads(json.dumps(dashboard()))
    titles = [p["title"] for p in board["panels"]]
    assert titles == [t for t, _ in PANELS]
    assert "Window MAL and expected band" in titles and "Alarm state" in titles
    exprs = {t["expr"] for p in board["panels"] for t in p["targets"]}
    assert "specverdict_watch_cusum_threshold" in exprs
    assert all(p["datasource"]["uid"] == "${DS_PROMETHEUS}" for p in board["panels"])


def test_watch_command_writes_files_and_names_bad_input(tmp_path: Path) -> None:
    exp = tmp_path / "expectations.json"
    exp.write_text('{"schema_version": 2, "expectations": []}')
    bad = specverdict_cli("watch", str(exp), "--target", "http://127.0.0.1:9", "--once")
    assert bad.returncode == 2 and "schema_version: 2" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    e = Expectation(
        stage="function",
        configuration="mtp k=2",
        load="concurrency=1",
        k=2,
        acceptance=Figure(point=0.6, lower=0.5, upper=0.7),
        mean_accepted_length=Figure(point=2.2, lower=2.0, upper=2.4),
        run_ids=("r1",),
    )
    exp.write_text(
        Expectations(campaign="c", engine="reference", expectations=(e,)).model_dump_json()
    )
    rules, board = tmp_path / "rules.yaml", tmp_path / "board.json"
    args = ["watch", str(exp), "--target", "http://127.0.0.1:9", "--once", "--interval", "0.01"]
    args += ["--rules-out", str(rules), "--dashboard-out", str(board)]
    ok = specverdict_cli(*args, "--stage", "prose")
    assert ok.returncode == 2 and "no expectation for stage prose" in ok.stderr
    ok = specverdict_cli(*args)
    assert ok.returncode == 0, ok.stderr  # the target is down: no alarm, no window
    assert "down" in ok.stdout
    assert yaml.safe_load(rules.read_text())["groups"] and json.loads(board.read_text())["panels"]
    # an engine with no speculative metrics watch knows needs --source or --prefix, in one line
    exp.write_text(Expectations(campaign="c", engine="openai", expectations=(e,)).model_dump_json())
    unknown = specverdict_cli("watch", str(exp), "--target", "http://127.0.0.1:9", "--once")
    assert unknown.returncode == 2 and "engine 'openai'" in unknown.stderr
    assert "--source" in unknown.stderr and "--prefix" in unknown.stderr
    assert len(unknown.stderr.strip().splitlines()) == 1
    misspelt = specverdict_cli(*args, "--source", "trtlm")
    assert misspelt.returncode == 2 and "did you mean trtllm" in misspelt.stderr
    given = specverdict_cli(*args, "--prefix", "vllm:spec_decode_")
    assert given.returncode == 0, given.stderr
