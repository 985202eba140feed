"""The fault matrix (docs/faults.md), end to end on real reference servers and a real registry.

Each test causes one fault for real (a killed or stopped process, a closed port, a proxy that
breaks streams, a registry that runs out of pages) and checks what the user sees, the exit code,
and that no finished sample is lost.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan
from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.errors import EngineUnreachableError, RunInterruptedError, StoreError
from specverdict.measure.results import run_results
from specverdict.run.health import CONSECUTIVE_FAULTS
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from tests.conftest import SPECVERDICT, server_cmd, specverdict_cli
from tests.e2e.test_runner import campaign_text, quiet
from tests.faultproxy import Action, FaultProxy

CLI = SPECVERDICT


def plan_for(text: str) -> Plan:
    return build_plan(parse_campaign(text, Path("faults.yaml")))


def attached(base_url: str, **kw: object) -> str:
    """A campaign on an attached server (16 prompts, answers of 60 tokens); the tests run its
    baseline only (``--only none``)."""
    return campaign_text(
        candidates="  - {method: mtp, k: 2, base_url: 'http://127.0.0.1:1'}",  # not run
        samples=str(kw.get("samples", "all")),
        max_tokens=int(str(kw.get("max_tokens", 60))),
        engine_extra=f", base_url: '{base_url}'",
    )


@contextlib.contextmanager
def reference_server(port: int | None = None, *flags: str) -> Iterator[LaunchedServer]:
    port = port or free_port()
    server = LaunchedServer(server_cmd(port, *flags), f"http://127.0.0.1:{port}").start()
    try:
        yield server
    finally:
        if server.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.process.pid, signal.SIGCONT)
        server.stop()


def when_stored(db: Path, n: int, action: Callable[[], object]) -> threading.Thread:
    """Run ``action`` once ``n`` samples are in the registry (read through its own connection)."""

    def watch() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if db.exists():
                store = SQLiteStore(db)
                stored = sum(len(store.samples(r.run_id)) for r in store.list_runs())
                store.close()
                if stored >= n:
                    action()
                    return
            time.sleep(0.02)  # polling the registry from outside, as a user would

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_an_unreachable_engine_stops_the_campaign_before_any_request(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    campaign = tmp_path / "c.yaml"
    campaign.write_text(attached(url))
    db = tmp_path / "runs.db"
    done = specverdict_cli("run", str(campaign), "--db", str(db), "--force", "--only", "none")
    assert done.returncode == 5, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(
        f"specverdict: error: engine at {url} (none, function, concurrency=1) is unreachable: "
    )
    assert "ConnectError" in line and line.endswith("fix base_url in the campaign")
    assert SQLiteStore(db).list_runs() == []  # no run was created, nothing to clean up


def test_a_candidate_server_without_metrics_is_refused_before_measuring(tmp_path: Path) -> None:
    """An attached vLLM-style server measured as speculating must serve /metrics: without it
    neither its acceptance nor whether it drafts at all can be read, and the speculation gate
    would pass as "not verifiable". Refused before any request; --force measures anyway."""
    mtp = json.dumps({"method": "mtp", "num_speculative_tokens": 2})
    with (
        reference_server(None, "--speculative-config", mtp) as cand,
        FaultProxy(cand.base_url, lambda n: "pass", hidden=("/metrics",)) as proxy,
    ):
        campaign = tmp_path / "c.yaml"
        campaign.write_text(
            campaign_text(
                candidates=f"  - {{method: mtp, k: 2, base_url: '{proxy.base_url}'}}",
                samples="{first: 2}",
                engine_extra=f", base_url: '{cand.base_url}'",
            ).replace("builtin-code@1", "synth-function@1")  # a scored suite: no checklist gap
        )
        db = tmp_path / "runs.db"
        refused = specverdict_cli("run", str(campaign), "--db", str(db), "--only", "mtp")
        assert refused.returncode == 2, refused.stderr
        assert f"the server at {proxy.base_url} serves no metrics (/metrics: HTTP 404" in (
            refused.stderr
        )
        assert "nothing was measured" in refused.stderr
        forced = specverdict_cli("run", str(campaign), "--db", str(db), "--only", "mtp", "--force")
    assert forced.returncode == 0, forced.stderr


def test_a_server_that_serves_another_model_is_refused(tmp_path: Path) -> None:
    with reference_server(None, "--served-model-name", "someone-else") as server:
        plan = plan_for(attached(server.base_url))
        with pytest.raises(EngineUnreachableError, match="serves 'someone-else', not the camp"):
            Runner(SQLiteStore(":memory:"), log=quiet).run_plan(plan, "none")


def test_a_launched_engine_killed_mid_run_stops_the_run_and_a_rerun_completes(
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.db"
    text = campaign_text(samples="all", max_tokens=60, concurrency=2)
    plan = plan_for(text)
    store = SQLiteStore(db)

    def kill_engine() -> None:
        pid = SQLiteStore(db).list_runs()[0].manifest.engine_pid
        os.killpg(pid, signal.SIGKILL)

    watcher = when_stored(db, 3, kill_engine)
    with pytest.raises(RunInterruptedError) as err:
        Runner(store, log=quiet).run_plan(plan, "none")
    watcher.join()
    message = str(err.value)
    assert "stopped: the engine exited with code -9" in message
    assert "samples saved; fix the engine and run the same command again to resume" in message
    (run,) = store.list_runs()
    assert run.status == "interrupted"
    assert run.manifest.interruption.cause.startswith("the engine exited with code -9")
    stored = store.samples(run.run_id)
    # the dead server got at most the requests in flight (concurrency 2) and the few that
    # found it gone before the run stopped (CONSECUTIVE_FAULTS)
    errors = [s for s in stored if s.status != "ok"]
    assert len(stored) >= 3 and len(errors) <= 2 + CONSECUTIVE_FAULTS
    assert f"{len(stored)} of 16 samples saved" in message
    failed = {s.sample_id for s in stored if s.status != "ok"}
    kept = {s.sample_id: s.text for s in stored if s.status == "ok"}

    again = Runner(store, log=quiet).run_plan(plan, "none")
    assert [r.status for r in again] == ["completed"]
    final = {s.sample_id: s for s in store.samples(run.run_id)}
    assert len(final) == 16 and all(s.status == "ok" for s in final.values())
    assert {i: final[i].text for i in kept} == kept  # finished samples kept, not redone
    assert all(final[i].attempt == 1 for i in failed)  # failed in flight: retried
    assert len(store.attempts(run.run_id)) == 16 + len(failed)


def test_a_runner_stopped_while_scoring_leaves_its_segment_and_a_true_acceptance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner dies while it scores (a SIGKILL, a registry that filled up): every answer and
    the measured segment are stored, so the re-run sends nothing, and the run's acceptance counts
    the requests its counters saw; never "polluted: the run sent 0" for good."""
    store = SQLiteStore(tmp_path / "runs.db")
    plan = plan_for(campaign_text(samples="{first: 6}", max_tokens=24))

    def killed(*_: object) -> int:
        raise SystemExit(137)

    monkeypatch.setattr(Runner, "score_pending", killed)
    with pytest.raises(SystemExit):
        Runner(store, log=quiet).run_plan(plan, "mtp")
    (run,) = store.list_runs()
    (segment,) = run.manifest.segments
    assert segment.samples == 6 and run.status == "running"
    monkeypatch.undo()
    records = Runner(store, log=quiet).run_plan(plan, "mtp")
    (done,) = [r for r in records if r.run_id == run.run_id]
    assert done.status == "completed" and len(done.manifest.segments) == 1
    results = run_results(store, done.run_id)
    assert results.acceptance.valid and not results.acceptance.polluted, results.acceptance
    assert len(store.samples(done.run_id)) == 6


def test_an_attached_engine_killed_mid_run_stops_after_consecutive_failures(
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.db"
    port = free_port()
    with reference_server(port) as server:
        plan = plan_for(attached(server.base_url))
        store = SQLiteStore(db)
        proc = server.process
        assert proc is not None
        watcher = when_stored(db, 3, lambda: os.killpg(proc.pid, signal.SIGKILL))
        with pytest.raises(RunInterruptedError, match="3 requests in a row failed, the last wi"):
            Runner(store, log=quiet).run_plan(plan, "none")
        watcher.join()
    (run,) = store.list_runs()
    stored = store.samples(run.run_id)
    assert run.status == "interrupted"
    assert [s.status for s in stored].count("error") == 3  # then it stopped sending
    assert len(stored) <= 3 + 1 + 3
    with reference_server(port):  # the engine is back on its port: the re-run finishes
        (done,) = Runner(store, log=quiet).run_plan(plan, "none")
    assert done.status == "completed" and len(store.samples(run.run_id)) == 16


def test_a_hung_engine_times_out_and_stops_the_run(tmp_path: Path) -> None:
    """A hung engine (stopped, its port open) fails each request at the deadline that
    ``run --request-timeout`` sets; three in a row stop the run."""
    db = tmp_path / "runs.db"
    with reference_server() as server:
        store = SQLiteStore(db)
        proc = server.process
        assert proc is not None
        watcher = when_stored(db, 2, lambda: os.killpg(proc.pid, signal.SIGSTOP))
        campaign = tmp_path / "c.yaml"
        campaign.write_text(attached(server.base_url))
        t0 = time.monotonic()
        args = ("run", str(campaign), "--db", str(db), "--force", "--only", "none")
        hung = specverdict_cli(*args, "--request-timeout", "1.5")
        watcher.join()
        assert hung.returncode == 5, hung.stderr
        assert "in a row failed, the last with: timed out" in hung.stderr
        # three deadlines and no more: the runner does not wait out every remaining prompt
        assert time.monotonic() - t0 < 30
    (run,) = store.list_runs()
    assert [s.status for s in store.samples(run.run_id)].count("timeout") == 3


def test_a_run_whose_every_request_failed_is_loud_and_its_pair_invalid(tmp_path: Path) -> None:
    """The candidate's server answers 404 to every request (a wrong path in its base_url):
    ``run`` exits 5 naming the count, the first error and the URL, and ``verdict`` says
    INVALID with the HTTP error, never "run the campaign first"."""
    db = tmp_path / "runs.db"
    with reference_server() as server:
        wrong = f"{server.base_url}/wrong"
        campaign = tmp_path / "c.yaml"
        campaign.write_text(
            campaign_text(
                candidates=f"  - {{method: mtp, k: 2, base_url: '{wrong}'}}",
                samples="{first: 8}",
                engine_extra=f", base_url: '{server.base_url}/v1'",  # the OpenAI-client habit
            )
        )
        proc = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
        assert proc.returncode == 5, proc.stderr
        assert "(mtp k=2, function, concurrency=1): 8 of 8 requests failed" in proc.stderr
        assert f"from {wrong}: HTTP 404" in proc.stderr
        store = SQLiteStore(db)
        runs = {r.spec.speculation.method: r for r in store.list_runs()}
        # the baseline's /v1 was taken off, and it was measured
        assert runs["none"].spec.engine.base_url == server.base_url
        assert runs["none"].status == "completed" and runs["mtp"].status == "failed"
        verdict = specverdict_cli("verdict", str(campaign), "--db", str(db))
        assert "INVALID" in verdict.stdout, verdict.stdout
        assert "HTTP 404" in verdict.stdout and "run the campaign first" not in verdict.stdout
        # fixed (another server: another execution), the campaign measures it
        with reference_server() as other:
            campaign.write_text(campaign.read_text().replace(wrong, other.base_url))
            again = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert again.returncode == 0, again.stderr
    assert "(mtp k=2, function, concurrency=1, repeat 0): started" in again.stdout


def test_server_errors_and_broken_streams_are_data_and_retried_on_a_rerun(
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.db"
    broken: dict[int, Action] = {3: "http500", 5: "malformed", 7: "drop"}  # request 0: warm-up
    with (
        reference_server() as server,
        FaultProxy(server.base_url, lambda n: broken.get(n, "pass")) as proxy,
    ):
        campaign = tmp_path / "c.yaml"
        campaign.write_text(attached(proxy.base_url, max_tokens=24))
        first = specverdict_cli("run", str(campaign), "--db", str(db), "--force", "--only", "none")
        # 3 of 16 failed, above the campaign's max_failure_rate: a failed run, said loudly,
        # its answers stored
        assert first.returncode == 5, first.stderr
        assert "3 of 16 requests failed, above max_failure_rate 5%" in first.stderr
        assert f"from {proxy.base_url}: HTTP 500" in first.stderr
        assert f"next: specverdict verdict {campaign} --db {db}" in first.stdout
        store = SQLiteStore(db)
        (run,) = store.list_runs()
        assert run.status == "completed"
        kinds = sorted(
            (s.status, (s.error or "")[:24]) for s in store.samples(run.run_id) if s.status != "ok"
        )
        assert [k for k, _ in kinds] == ["error"] * 3
        errors = specverdict_cli("runs", "errors", run.run_id[:6], "--db", str(db))
        assert errors.returncode == 0, errors.stderr
        for kind in ("HTTP 500", "malformed response", "connection"):
            assert kind in errors.stdout

        no_retry = specverdict_cli(
            "run", str(campaign), "--db", str(db), "--force", "--no-retry", "--only", "none"
        )
        assert no_retry.returncode == 5, no_retry.stderr
        assert "13 of 16 samples ok, 3 failed (not retried); nothing to send" in no_retry.stdout

        broken.clear()
        retried = specverdict_cli(
            "run", str(campaign), "--db", str(db), "--force", "--only", "none"
        )
        assert retried.returncode == 0, retried.stderr
        assert "resuming, 3 failed before, retried" in retried.stdout
    samples = store.samples(run.run_id)
    assert len(samples) == 16 and all(s.status == "ok" for s in samples)
    assert sorted(s.attempt for s in samples) == [0] * 13 + [1] * 3
    assert len(store.attempts(run.run_id)) == 19  # the failed attempts are kept


def test_answers_of_the_wrong_shape_are_failed_samples_with_their_reason(tmp_path: Path) -> None:
    """A server that answers with valid JSON of the wrong shape, an HTML page, or a stream
    without its end: each is a failed sample with its reason, the run completes (no traceback,
    nothing left ``running``) and is loud about its failure rate, and a re-run retries them."""
    db = tmp_path / "runs.db"
    broken: dict[int, Action] = {2: "shape", 4: "html", 6: "no_done"}  # request 0: warm-up
    with (
        reference_server() as server,
        FaultProxy(server.base_url, lambda n: broken.get(n, "pass")) as proxy,
    ):
        campaign = tmp_path / "c.yaml"
        campaign.write_text(attached(proxy.base_url, max_tokens=24, samples="{first: 8}"))
        first = specverdict_cli("run", str(campaign), "--db", str(db), "--force", "--only", "none")
        assert first.returncode == 5, first.stderr
        assert "Traceback" not in first.stderr
        assert "3 of 8 requests failed, above max_failure_rate 5%" in first.stderr
        store = SQLiteStore(db)
        (run,) = store.list_runs()
        assert run.status == "completed"
        errors = sorted((s.error or "").split(":", 1)[0] for s in store.samples(run.run_id))
        rejected = ["malformed_response", "not_a_stream", "truncated_stream"]
        assert errors == [""] * 5 + rejected
        listed = specverdict_cli("runs", "errors", run.run_id[:6], "--db", str(db))
        for kind in ("malformed response", "not a stream", "truncated stream"):
            assert kind in listed.stdout, listed.stdout
        broken.clear()
        again = specverdict_cli("run", str(campaign), "--db", str(db), "--force", "--only", "none")
    assert again.returncode == 0, again.stderr
    assert all(s.status == "ok" for s in store.samples(run.run_id))


def test_a_server_that_doubles_its_token_counts_is_not_believed(tmp_path: Path) -> None:
    """The candidate's server speculates, but a proxy in front of it doubles every
    ``usage.completion_tokens``: with identical timing its TPOT would look twice as fast. The
    harness counts the texts' tokens on the engine's tokenize endpoint, measures speed on its
    count, and the pair is INVALID with both figures."""
    db = tmp_path / "runs.db"
    mtp = json.dumps({"method": "mtp", "num_speculative_tokens": 2})
    with (
        reference_server() as base,
        reference_server(None, "--speculative-config", mtp) as cand,
        FaultProxy(cand.base_url, lambda n: "inflate") as proxy,
    ):
        campaign = tmp_path / "c.yaml"
        campaign.write_text(
            campaign_text(
                candidates=f"  - {{method: mtp, k: 2, base_url: '{proxy.base_url}'}}",
                samples="{first: 8}",
                max_tokens=128,  # generated functions stop well before: doubled, still under
                engine_extra=f", base_url: '{base.base_url}'",
            ).replace("builtin-code@1", "synth-function@1")
        )
        proc = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
        assert proc.returncode == 0, proc.stderr
        out = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    (v,) = json.loads(out.stdout)["verdicts"]
    assert v["verdict"] == "INVALID", v["reasons"]
    (tokens,) = [r for r in v["reasons"] if r["gate"] == "speed.tokens"]
    data = tokens["data"]
    assert data["arm"] == "candidate" and data["answers"] == 8
    assert 1.8 < data["reported"] / data["counted"] < 2.2, tokens["message"]
    assert "the server reported" in tokens["message"]
    store = SQLiteStore(db)
    runs = {r.spec.speculation.method: r for r in store.list_runs()}
    for run in runs.values():
        assert run.manifest.token_counter and "tokenize endpoint" in run.manifest.token_counter
    counted = {
        m: {s.sample_id: s.extra.counted_tokens for s in store.samples(r.run_id)}
        for m, r in runs.items()
    }
    assert counted["mtp"] == counted["none"]  # lossless: the same texts, the same counts


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_saves_what_finished_says_so_and_the_rerun_resumes(
    tmp_path: Path, sig: int, code: int
) -> None:
    """Ctrl-C, and a SIGTERM (``kill``, a scheduler, ``docker stop``) alike: the finished
    samples are kept, the launched engine is stopped, and the exit code names the signal."""
    campaign = tmp_path / "c.yaml"
    # paced on a modelled device, so that the run is still sending when Ctrl-C comes (at host
    # speed the last 13 samples could finish before the signal did)
    paced = ', launch: {args: ["--device-model", "accel-2b"]}'
    campaign.write_text(campaign_text(samples="all", max_tokens=120, engine_extra=paced))
    db = tmp_path / "runs.db"
    cmd = [*CLI, "run", str(campaign), "--db", str(db), "--force", "--only", "none"]
    # Ctrl-C as a terminal delivers it: a test run started in the background (``make test &``)
    # has SIGINT ignored, which a child would inherit; a handled signal is reset to its default
    # in the child at exec, so the child is started while this process handles SIGINT
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, before)
    when_stored(db, 3, lambda: proc.send_signal(sig)).join()
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == code, stderr
    store = SQLiteStore(db)
    (run,) = store.list_runs()
    saved = len(store.samples(run.run_id))
    assert (
        f"{'interrupted (SIGTERM)' if sig == signal.SIGTERM else 'interrupted'}: run "
        f"{run.run_id} (none, function, concurrency=1): {saved} of 16 samples saved; run the same "
        in (stderr)
    )
    assert run.status == "interrupted"
    assert run.manifest.interruption.cause == "interrupted by the user"
    pid = run.manifest.engine_pid  # the engine was stopped with the run
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
    done = specverdict_cli(*cmd[3:])
    assert done.returncode == 0, done.stderr
    ids = [s.sample_id for s in store.samples(run.run_id)]
    assert len(ids) == len(set(ids)) == 16


def test_an_engine_left_by_a_killed_runner_is_stopped_by_the_rerun(tmp_path: Path) -> None:
    """SIGKILL gives the runner no chance to stop the engine it launched; the re-run finds it
    by the pid and process identity in the manifest, stops it, and measures the rest."""
    campaign = tmp_path / "c.yaml"
    paced = ', launch: {args: ["--device-model", "accel-2b"]}'
    campaign.write_text(campaign_text(samples="all", max_tokens=120, engine_extra=paced))
    db = tmp_path / "runs.db"
    cmd = [*CLI, "run", str(campaign), "--db", str(db), "--force", "--only", "none"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    when_stored(db, 3, proc.kill).join()
    proc.wait(timeout=60)
    store = SQLiteStore(db)
    (run,) = store.list_runs()
    pid = run.manifest.engine_pid
    assert pid is not None and run.manifest.engine_identity is not None
    os.killpg(pid, 0)  # the orphan is still running
    done = specverdict_cli(*cmd[3:])
    assert done.returncode == 0, done.stderr
    assert f"{run.run_id}: stopped its engine (pid {pid}), left running" in done.stdout
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
    assert len({s.sample_id for s in store.samples(run.run_id)}) == 16


def test_a_second_runner_on_the_same_registry_is_refused(tmp_path: Path) -> None:
    campaign = tmp_path / "c.yaml"
    campaign.write_text(campaign_text(samples="all", max_tokens=60))
    db = tmp_path / "runs.db"
    cmd = [*CLI, "run", str(campaign), "--db", str(db), "--force", "--only", "none"]
    first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    second: list[subprocess.CompletedProcess[str]] = []

    def run_second_while_the_first_is_stopped() -> None:
        first.send_signal(signal.SIGSTOP)  # mid-run, holding the registry
        try:
            second.append(specverdict_cli(*cmd[3:]))
        finally:
            first.send_signal(signal.SIGCONT)

    when_stored(db, 1, run_second_while_the_first_is_stopped).join()
    _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    (refused,) = second
    assert refused.returncode == 5, refused.stdout
    assert f"run registry {db} is in use by a runner (pid {first.pid})" in refused.stderr
    store = SQLiteStore(db)
    (run,) = store.list_runs()
    ids = [s.sample_id for s in store.attempts(run.run_id)]
    assert len(ids) == len(set(ids)) == 16  # never a sample twice


def test_a_full_registry_stops_the_runner_cleanly_and_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    plan = plan_for(campaign_text(samples="all", max_tokens=120))
    store = SQLiteStore(db)
    # the disk fills up mid-run: SQLite's page limit gives a real SQLITE_FULL (the limit cannot
    # go below the file's size, so 1 means "not one page more")
    full = when_stored(db, 3, lambda: store._db.execute("PRAGMA max_page_count = 1"))
    with pytest.raises(StoreError) as err:
        Runner(store, log=quiet).run_plan(plan, "none")
    full.join()
    message = str(err.value)
    assert "cannot write: database or disk is full" in message
    assert (
        "samples saved: make room (or make it writable) and run the same command again" in message
    )
    store.close()
    roomy = SQLiteStore(db)  # a new connection has no page limit: room was made
    (run,) = roomy.list_runs()
    stored = roomy.samples(run.run_id)
    assert 3 <= len(stored) < 16 and f"{len(stored)} of 16 samples saved" in message
    saved = {s.sample_id: s.text for s in stored if s.status == "ok"}
    (done,) = Runner(roomy, log=quiet).run_plan(plan, "none")
    assert done.status == "completed"
    final = {s.sample_id: s.text for s in roomy.samples(run.run_id)}
    assert len(final) == 16 and {i: final[i] for i in saved} == saved


def test_an_agent_run_stops_after_consecutive_faults_episodes_not_fewer(tmp_path: Path) -> None:
    """Each failed episode counts once toward CONSECUTIVE_FAULTS: with every request after the
    warm-up cut mid-stream, an agent run at concurrency 1 stores exactly that many episodes
    before it stops (an episode counted twice stopped it one episode early)."""
    with (
        reference_server() as server,
        FaultProxy(server.base_url, lambda n: "pass" if n == 0 else "drop") as proxy,
    ):
        text = attached(proxy.base_url, samples="{first: 8}").replace(
            "function: {suite: builtin-code@1", "agent: {suite: agent-tasks@1"
        )
        plan = plan_for(text)
        store = SQLiteStore(tmp_path / "runs.db")
        with pytest.raises(RunInterruptedError, match=f"{CONSECUTIVE_FAULTS} requests in a row"):
            Runner(store, log=quiet, force=True).run_plan(plan, "none")
    (run,) = store.list_runs()
    stored = store.samples(run.run_id)
    assert len(stored) == CONSECUTIVE_FAULTS
    assert all(s.status != "ok" and s.extra.episode is not None for s in stored)
