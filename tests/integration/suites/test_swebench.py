"""SWE-bench-style task files on snapshots you supply: the fixture (two instances in SWE-bench's
field layout, test ids as JSON-encoded strings, patches as ``git diff`` wrote them, one test
patch adding a file) imports as repository tasks, the gold patches resolve in the sandbox and
the wrong one fails, bad records are one line naming record and field, the snapshots are run
identity, and a campaign runs the stage end to end on the reference engine."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.errors import ConfigError
from specverdict.run.runner import Runner
from specverdict.sandbox import Sandbox
from specverdict.store import SQLiteStore
from specverdict.suites import suite_for
from specverdict.suites.custom.swebench import SnapshotSuite, load_instances
from specverdict.suites.repository.score import read_detail

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "importers"
TASKS, SNAPSHOTS = FIXTURES / "swe-bench.jsonl", FIXTURES / "swe-bench-snapshots"
IDS = ["tinytext__tinytext-1", "tinytext__tinytext-2"]

CAMPAIGN = """\
name: swe
engine: {{kind: reference}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates: [{{method: ngram, k: 3, params: {{prompt_lookup_min: 1}}}}]
stages:
  repository:
    dataset: {{path: swe-bench.jsonl, format: swe-bench{extra}}}
    slices: [category]
sampling: {{temperature: 0.0, max_tokens: 48, seed: 0}}
load: {{concurrency: [2]}}
"""


def records() -> list[dict[str, object]]:
    return [json.loads(line) for line in TASKS.read_text().splitlines()]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The fixture as a user's folder: the task file and its snapshots beside the campaign."""
    shutil.copy(TASKS, tmp_path / TASKS.name)
    shutil.copytree(SNAPSHOTS, tmp_path / "snapshots")
    return tmp_path


def plan_for(work: Path, extra: str = ", snapshots: snapshots"):  # type: ignore[no-untyped-def]
    return build_plan(parse_campaign(CAMPAIGN.format(extra=extra), work / "c.yaml"))


def test_instances_become_repository_tasks() -> None:
    first, second = (i.task for i in load_instances(TASKS, SNAPSHOTS))
    assert [first.task_id, second.task_id] == IDS
    # the JSON-encoded strings of the published datasets, decoded
    assert first.fail_to_pass == (
        "tests/test_wrap.py::test_wrap_keeps_the_last_line",
        "tests/test_wrap.py::TestWrap::test_one_word",
    )
    assert first.pass_to_pass[1] == "tests/test_wrap.py::TestShorten::test_short_text_is_kept"
    # the prompt shows the files the gold patch changes (SWE-bench's oracle file source)
    assert first.shown == ("tinytext/wrap.py",) and "wrap() drops the last line" in first.issue
    # the test patch arrives at scoring time; the second one creates a test file
    assert "test_wrap_keeps_the_last_line" in first.hidden_tests["tests/test_wrap.py"]
    assert "test_wrap_keeps_the_last_line" not in first.files["tests/test_wrap.py"]
    assert list(second.hidden_tests) == ["tests/test_shorten.py"]
    assert "lines.append(line)\n    return lines" in first.fixed_files["tinytext/wrap.py"]
    assert first.origin.startswith("tinytext/tinytext@")


def test_a_plain_list_of_test_ids_is_read_too(tmp_path: Path) -> None:
    recs = records()
    recs[0]["FAIL_TO_PASS"] = json.loads(str(recs[0]["FAIL_TO_PASS"]))
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(recs[0]) + "\n")
    (task,) = (i.task for i in load_instances(path, SNAPSHOTS))
    assert len(task.fail_to_pass) == 2


def test_a_json_list_of_instances_is_read_as_swe_bench_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(records()))
    assert [i.task.task_id for i in load_instances(path, SNAPSHOTS)] == IDS
    path.write_text(json.dumps([records()[0], "not an instance"]))
    with pytest.raises(ConfigError, match=r"tasks.json\[1\]: an instance must be a JSON object"):
        load_instances(path, SNAPSHOTS)


def test_the_gold_patch_resolves_and_a_wrong_one_fails(work: Path, sandbox: Sandbox) -> None:
    spec = plan_for(work).runs[0]
    assert spec.dataset is not None
    suite = SnapshotSuite(spec.dataset, spec.stage, sandbox=sandbox)
    gold = {str(r["instance_id"]): str(r["patch"]) for r in records()}
    resolved, other, wrong = suite.score_texts(
        [(IDS[0], gold[IDS[0]]), (IDS[1], gold[IDS[1]]), (IDS[0], gold[IDS[1]])]
    )
    assert resolved.outcome == other.outcome == "resolved" and resolved.passed
    assert wrong.outcome == "failed" and not wrong.passed
    detail = read_detail(wrong)
    assert detail is not None and detail.fail_to_pass is not None
    assert detail.fail_to_pass.passed == 0
    assert detail.pass_to_pass is not None and detail.pass_to_pass.passed == 2


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("FAIL_TO_PASS", '["tests/test_wrap.py::test_x[1-2]"]', "field FAIL_TO_PASS[0]: "),
        ("FAIL_TO_PASS", '["test_wrap (tests.test_wrap.T)"]', "not a pytest node id"),
        ("FAIL_TO_PASS", "[]", "field FAIL_TO_PASS: is empty"),
        ("PASS_TO_PASS", "not json", "field PASS_TO_PASS: a string that is no JSON"),
        ("PASS_TO_PASS", '["tests/test_nope.py::test_a"]', "no such file in the snapshot"),
        ("instance_id", "tinytext__missing-9", "field instance_id: no snapshot folder"),
        ("patch", "diff --git a/x\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n", "field patch:"),
        ("problem_statement", "", "field problem_statement: must be a non-empty string"),
    ],
)
def test_a_bad_record_is_one_line_naming_record_and_field(
    tmp_path: Path, field: str, value: str, expected: str
) -> None:
    recs = records()
    recs[1][field] = value
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(ConfigError) as err:
        load_instances(path, SNAPSHOTS)
    message = str(err.value)
    assert message.startswith(f"{path}:2: ") and expected in message and "\n" not in message


def test_the_campaign_needs_snapshots_and_they_are_run_identity(work: Path) -> None:
    with pytest.raises(ConfigError, match="needs snapshots"):
        plan_for(work, extra="")
    with pytest.raises(ConfigError, match="scored by its own tests"):
        plan_for(work, extra=", snapshots: snapshots, scorer: {reference: exact}")
    before = {r.fingerprint for r in plan_for(work).runs}
    # the same snapshots elsewhere are the same runs
    shutil.move(work / "snapshots", work / "elsewhere")
    assert {r.fingerprint for r in plan_for(work, ", snapshots: elsewhere").runs} == before
    # a changed snapshot is another run, and a planned run refuses the changed folder
    planned = plan_for(work, ", snapshots: elsewhere")
    wrap = work / "elsewhere" / IDS[0] / "tinytext" / "wrap.py"
    wrap.write_text(wrap.read_text() + "\n# changed\n")
    assert {r.fingerprint for r in plan_for(work, ", snapshots: elsewhere").runs}.isdisjoint(before)
    with pytest.raises(ConfigError, match="the snapshots changed"):
        suite_for(planned.runs[0])


def test_a_campaign_runs_the_task_file_on_the_reference_engine(
    work: Path, monkeypatch: pytest.MonkeyPatch, sandbox: Sandbox
) -> None:
    plan = plan_for(work)
    suite = suite_for(plan.runs[0])
    assert isinstance(suite, SnapshotSuite) and suite.stage == "repository"
    assert [s.labels["category"] for s in suite.samples()] == ["tinytext/tinytext"] * 2
    monkeypatch.setattr(
        "specverdict.run.runner.suite_for",
        lambda spec: SnapshotSuite(spec.dataset, spec.stage, sandbox=sandbox),
    )
    store = SQLiteStore(work / "runs.db")
    runner = Runner(store, log=lambda _: None)
    done = [runner.run_one(plan, spec, 0) for spec in plan.runs]
    assert [r.status for r in done] == ["completed"] * 2
    for record in done:
        samples = store.samples(record.run_id)
        assert sorted(s.sample_id for s in samples) == IDS
        for sample in samples:
            assert sample.status == "ok" and sample.text
            # the tiny model writes no fix: every answer is scored with a class, none resolved
            assert sample.score is not None and not sample.score.passed
            assert sample.score.outcome in {"malformed_patch", "patch_does_not_apply", "failed"}
