"""The runner against real reference servers: stored samples, acceptance sources, resume, kill -9."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from specverdict.campaign import build_plan, parse_campaign
from specverdict.errors import ConfigError
from specverdict.measure.results import run_results
from specverdict.records import RunRecord, SampleRecord, Score
from specverdict.records.failures import failure_kind, retryable
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.suites import Sample
from specverdict.suites.function.builtin import BuiltinCode
from tests.conftest import Servers, campaign_yaml


def campaign_text(
    candidates: str = "  - {method: mtp, k: 2}",
    samples: str = "{first: 4}",
    max_tokens: int = 12,
    concurrency: int = 1,
    engine_extra: str = "",
) -> str:
    """``campaign_yaml``'s campaign "e2e" on ``builtin-code@1``, its settings written as YAML:
    ``candidates`` the list's lines, ``samples`` the selection, ``engine_extra`` more keys of
    the engine's mapping (", base_url: ...")."""
    return campaign_yaml(
        "e2e",
        engine=yaml.safe_load("{kind: reference" + engine_extra + "}"),
        candidates=yaml.safe_load(candidates),
        samples=yaml.safe_load(samples),
        max_tokens=max_tokens,
        concurrency=[concurrency],
    )


def quiet(_: str) -> None:
    return None


def test_a_campaign_runs_end_to_end_and_stores_every_sample(tmp_path: Path) -> None:
    text = campaign_text(
        candidates="  - {method: mtp, k: 2}\n  - {method: ngram, k: 3, params: {prompt_lookup_min: 1}}",
        concurrency=2,
    )
    plan = build_plan(parse_campaign(text, Path("e2e.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    records = Runner(store, log=quiet, runs_dir=tmp_path / "runs").run_plan(plan)
    assert [r.status for r in records] == ["completed"] * 3
    baseline, mtp, ngram = (run_results(store, r.run_id) for r in records)
    # each launched engine's log is kept in its server session's folder, named in the manifest
    for r in records:
        (log,) = r.manifest.engine_logs
        assert Path(log).parent == tmp_path / "runs" / "sessions" / str(r.manifest.session)
        text = Path(log).read_text()
        assert "specverdict-reference: model 'reference-target'" in text
        assert "Uvicorn running" in text
    assert "vllm:spec_decode_num_drafts_total" in mtp.run.manifest.acceptance_probe["spec_counters"]
    (first,) = [s for s in store.samples(mtp.run.run_id) if s.sample_id == "code-001"] or [
        store.samples(mtp.run.run_id)[0]
    ]
    assert first.acceptance is not None
    assert set(first.acceptance) == {
        "num_draft_tokens",
        "num_accepted_draft_tokens",
        "num_spec_steps",
        "acceptance_histogram",
        "per_step_accepted",
        "per_step_drafted",
        "raw",
    }
    assert len(first.acceptance["acceptance_histogram"]) == 3  # k = 2: 0, 1 or 2 accepted
    # the detailed level's per-step lists, one entry per verify step, sum to the counts
    assert sum(first.acceptance["per_step_drafted"]) == first.acceptance["num_draft_tokens"]
    assert (
        sum(first.acceptance["per_step_accepted"]) == first.acceptance["num_accepted_draft_tokens"]
    )
    for res in (baseline, mtp, ngram):
        assert res.summary.samples == res.summary.ok == 4
        assert res.summary.tokens_per_s and res.summary.tokens_per_s > 0
        assert res.run.manifest.engine_version == {"version": "0.1.0"}
        assert res.run.manifest.segments[0].concurrency == 2
    assert baseline.acceptance.drafted is False and baseline.acceptance.acceptance_rate is None
    assert mtp.run.manifest.speculative_args == (
        "--speculative-config",
        '{"method":"mtp","num_speculative_tokens":2}',
    )
    for res in (mtp, ngram):
        assert res.acceptance.source == "per-request" and res.acceptance.valid
    # greedy speculation is lossless: the stored texts agree sample by sample
    texts = [{s.sample_id: s.text for s in store.samples(r.run_id)} for r in records]
    assert texts[0] == texts[1] == texts[2]


def test_counter_acceptance_is_invalid_when_foreign_traffic_pollutes_it(
    tmp_path: Path, servers: Servers
) -> None:
    # A server without per-request metrics: the runner must fall back to /metrics deltas.
    base_url = servers.get("--speculative-config", '{"method": "mtp", "num_speculative_tokens": 2}')
    text = campaign_text(engine_extra=f", base_url: '{base_url}'", max_tokens=24)
    text += "baseline: {base_url: 'http://127.0.0.1:1'}\n"  # not run here
    plan = build_plan(parse_campaign(text, Path("e2e.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    clean = Runner(store, log=quiet).run_one(plan, plan.runs[1], 0)
    acc = run_results(store, clean.run_id).acceptance
    assert (acc.source, acc.valid) == ("metrics-delta", True)
    assert acc.acceptance_rate is not None

    stop = threading.Event()

    def foreign_traffic() -> None:
        while not stop.is_set():
            httpx.post(
                base_url + "/v1/completions", json={"prompt": "import os\n", "max_tokens": 4}
            )

    noise = threading.Thread(target=foreign_traffic)
    noise.start()
    try:
        polluted = Runner(store, log=quiet).run_one(plan, plan.runs[1], 1)
    finally:
        stop.set()
        noise.join()
    acc = run_results(store, polluted.run_id).acceptance
    assert (acc.source, acc.valid) == ("metrics-delta", False)
    assert acc.why is not None and "polluted" in acc.why
    assert acc.acceptance_rate is None


def test_open_loop_runs_send_at_a_poisson_rate(tmp_path: Path) -> None:
    text = campaign_text().replace(
        "load: {concurrency: [1], warmup: 1, baseline_repeats: 1}", "load: {request_rate: [50.0]}"
    )
    plan = build_plan(parse_campaign(text, Path("e2e.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    run = Runner(store, log=quiet).run_one(plan, plan.runs[1], 0)
    assert run.status == "completed"
    assert run.manifest.segments[0].request_rate == 50.0
    assert run.manifest.segments[0].concurrency is None
    assert run_results(store, run.run_id).summary.ok == 4


def test_resume_sends_only_the_missing_samples(tmp_path: Path) -> None:
    plan = build_plan(parse_campaign(campaign_text(), Path("e2e.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    spec = plan.runs[0]
    interrupted = store.create_run(spec, repeat=0)
    for sid in ("builtin-code/0", "builtin-code/1"):
        store.add_sample(
            SampleRecord(run_id=interrupted.run_id, sample_id=sid, status="ok", text="kept")
        )
    resumed = Runner(store, log=quiet).run_one(plan, spec, 0)
    assert resumed.run_id == interrupted.run_id and resumed.status == "completed"
    samples = store.samples(resumed.run_id)
    assert sorted(s.sample_id for s in samples) == [f"builtin-code/{i}" for i in range(4)]
    assert [s.text for s in samples[:2]] == ["kept", "kept"]
    assert resumed.manifest.segments == (
        resumed.manifest.segments[0].model_copy(update={"requests": 2}),
    )
    again = Runner(store, log=quiet).run_one(plan, spec, 0)  # a completed run is not redone
    assert again.run_id == resumed.run_id and len(store.samples(again.run_id)) == 4
    assert Runner(store, log=quiet).resume(plan, resumed.run_id) == again
    with pytest.raises(ConfigError, match="no such run"):
        Runner(store, log=quiet).resume(plan, "feedbeef")


@pytest.mark.slow
def test_kill_9_mid_run_loses_nothing_finished_and_resume_completes(tmp_path: Path) -> None:
    campaign = tmp_path / "c.yaml"
    campaign.write_text(
        campaign_text(samples="all", max_tokens=200).replace(
            "  - {method: mtp, k: 2}", "  - {method: ngram, k: 2}"
        )
    )
    db = tmp_path / "runs.db"
    cmd = [sys.executable, "-m", "specverdict", "run", str(campaign), "--db", str(db), "--force"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    stored = 0
    while stored < 3 and time.monotonic() < deadline:
        if db.exists():
            con = SQLiteStore(db)
            stored = sum(len(con.samples(r.run_id)) for r in con.list_runs())
            con.close()
        time.sleep(0.05)
    assert stored >= 3, "the runner stored nothing within two minutes"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    store = SQLiteStore(db)
    for run in store.list_runs():  # the engine lives in its own session: stop the orphan
        pid = run.manifest.engine_pid
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
    before = {(s.run_id, s.sample_id) for r in store.list_runs() for s in store.samples(r.run_id)}
    assert len(before) >= 3
    assert store.list_runs()[0].status == "running"
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    runs = store.list_runs()
    assert [r.status for r in runs] == ["completed", "completed"]
    after = [(s.run_id, s.sample_id) for r in runs for s in store.samples(r.run_id)]
    assert len(after) == len(set(after)) == 32  # 16 samples x 2 runs, none twice
    assert before <= set(after)


class ReturnsSomething(BuiltinCode):
    """The built-in prompts with a scorer: an answer passes when it contains a return."""

    def score(
        self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]
    ) -> Score | None:
        passed = "return" in text
        return Score(passed=passed, outcome="passed" if passed else "failed", detail=None)


def test_answers_are_scored_after_the_requests_and_resumed_scoring_fills_gaps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("specverdict.run.runner.suite_for", lambda spec: ReturnsSomething())
    plan = build_plan(parse_campaign(campaign_text(max_tokens=24), Path("e2e.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    base = Runner(store, log=quiet).run_one(plan, plan.runs[0], 0)
    samples = store.samples(base.run_id)
    assert len(samples) == 4 and all(s.score is not None for s in samples)
    assert [s.score.passed for s in samples] == ["return" in s.text for s in samples]  # type: ignore[union-attr]
    # a sample stored without its score (a runner killed while scoring) is scored on resume
    orphan = store.create_run(plan.runs[1], repeat=0)
    for s in samples:
        store.add_sample(s.model_copy(update={"run_id": orphan.run_id, "score": None}))
    runner = Runner(store, log=quiet)
    assert (
        runner.score_pending(orphan.run_id, ReturnsSomething(), ReturnsSomething().samples()) == 4
    )
    rescored = store.samples(orphan.run_id)
    assert [s.score for s in rescored] == [s.score for s in samples]
    assert (
        runner.score_pending(orphan.run_id, ReturnsSomething(), ReturnsSomething().samples()) == 0
    )


class JudgedOnce(ReturnsSomething):
    """``ReturnsSomething`` whose scores are pure, counting the answers it judges; answers that
    contain ``slow`` time out."""

    pure_scoring = True

    def __init__(self) -> None:
        self.judged: list[str] = []

    def score(
        self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]
    ) -> Score | None:
        self.judged.append(text)
        if "slow" in text:
            return Score(passed=False, outcome="timeout", detail=None)
        return super().score(sample, text, tool_calls)


def test_an_answer_judged_before_gets_its_score_without_the_scorer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lossless candidate writes the baseline's answers: with a pure suite each is judged once
    and the candidate's run gets the same scores; a changed answer, a timeout, or a suite whose
    scores are not pure is judged again."""
    suite = JudgedOnce()
    monkeypatch.setattr("specverdict.run.runner.suite_for", lambda spec: suite)
    plan = build_plan(parse_campaign(campaign_text(max_tokens=24), Path("e2e.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    lines: list[str] = []
    runner = Runner(store, log=lines.append)
    base = runner.run_one(plan, plan.runs[0], 0)
    samples = store.samples(base.run_id)
    assert len(suite.judged) == 4

    def copy(edit: dict[int, str]) -> str:
        run = store.create_run(plan.runs[1], repeat=0)
        for n, s in enumerate(samples):
            text = edit.get(n, s.text)
            store.add_sample(
                s.model_copy(update={"run_id": run.run_id, "score": None, "text": text})
            )
        return run.run_id

    same = copy({})
    assert runner.score_pending(same, suite, suite.samples()) == 4
    assert len(suite.judged) == 4 and runner.scores.reused == 4
    assert [s.score for s in store.samples(same)] == [s.score for s in samples]
    # one answer differs, one times out: both judged, and the timeout is judged again next time
    edited = {0: "    return 1\n", 1: "slow"}
    assert runner.score_pending(copy(edited), suite, suite.samples()) == 4
    assert suite.judged[4:] == ["    return 1\n", "slow"]
    runner.score_pending(copy(edited), suite, suite.samples())
    assert suite.judged[6:] == ["slow"]
    # a suite whose scores are not pure judges every answer
    plain = ReturnsSomething()
    calls: list[str] = []
    monkeypatch.setattr(plain, "score", lambda sample, text, tool_calls: calls.append(text))
    runner.score_pending(copy({}), plain, plain.samples())
    assert len(calls) == 4
    store.close()


def run_two_agent_samples(store: SQLiteStore) -> RunRecord:
    """The first two samples of the (patched) suite as agent episodes, one candidate execution."""
    text = campaign_text(samples="{first: 2}", max_tokens=24).replace(
        "load: {concurrency: [1], warmup: 1, baseline_repeats: 1}",
        "load: {concurrency: [1], warmup: 0}",
    )
    plan = build_plan(parse_campaign(text, Path("agent.yaml")))
    return Runner(store, log=quiet).run_one(plan, plan.runs[1], 0)


def test_an_agent_suite_runs_episodes_through_the_runner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from specverdict.suites.agent import AgentTasks

    monkeypatch.setattr("specverdict.run.runner.suite_for", lambda spec: AgentTasks())
    store = SQLiteStore(tmp_path / "runs.db")
    run = run_two_agent_samples(store)
    assert run.status == "completed"
    records = store.samples(run.run_id)
    assert len(records) == 2
    for r in records:
        assert (
            r.status == "ok" and r.extra.episode is not None
        )  # one sample, one multi-turn episode
        assert r.score is not None and r.score.outcome  # scored as the episode ended
        assert r.acceptance is not None  # summed over the episode's turns


def test_an_episode_whose_harness_fails_is_a_failed_sample_not_the_campaigns_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo once died with a traceback when an agent's test run raised (CPython's
    concurrent-parse SystemError): the episode's failure is that sample's, stored and retried."""
    from specverdict.suites.agent import AgentTasks

    class BrokenTests(AgentTasks):
        async def run_episode(self, sample: Sample, chat: Any) -> Any:
            if sample.id == self.samples()[0].id:
                raise SystemError("AST constructor recursion depth mismatch (before=27, after=23)")
            return await super().run_episode(sample, chat)

    monkeypatch.setattr("specverdict.run.runner.suite_for", lambda spec: BrokenTests())
    store = SQLiteStore(tmp_path / "runs.db")
    run = run_two_agent_samples(store)
    assert run.status == "completed"
    failed, ok = sorted(store.samples(run.run_id), key=lambda r: r.status)
    assert (failed.status, ok.status) == ("error", "ok")
    assert failed.error == (
        "harness: SystemError: AST constructor recursion depth mismatch (before=27, after=23)"
    )
    assert failure_kind(failed.status, failed.error) == "harness error" and retryable(failed)
