"""The TensorRT-LLM watch source: drained iteration stats summed into windows, rank-0 rows only,
unseen iterations reported, restarts told from the iteration counter going back, and the CLI
against a real HTTP server that drains its queue on every read.

The bodies are tests/fixtures/trtllm (hand-written after NVIDIA/TensorRT-LLM's
``cpp/tensorrt_llm/executor/jsonSerialization.cpp`` and ``tensorrt_llm/serve/openai_server.py``;
its README names the commits)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from specverdict.policy.model import Expectation, Expectations, Figure
from specverdict.watch.detect import Baseline, Counters, DetectorConfig, DetectorState, step
from specverdict.watch.scrape import Watcher
from specverdict.watch.source import SourceError, source_for
from specverdict.watch.trtllm_source import TRTLLMSource
from tests.conftest import FIXTURES, specverdict_cli

DIR = FIXTURES / "trtllm"
BASE = Baseline(mal_lower=2.2, mal_upper=3.0, acceptance_lower=0.4, acceptance_upper=0.7, k=3)


def body(name: str) -> str:
    return (DIR / name).read_text()


def raw_sums(name: str) -> tuple[float, float, float]:
    """Rank-0 sums of one fixture, computed here from the JSON, not by the source."""
    rows = [r for r in json.loads(body(name)) if r["attentionDpRank"] == 0]
    spec = [r["specDecodingStats"] for r in rows]
    return (
        sum(s["numRequestsWithDraftTokens"] for s in spec),
        sum(s["numDraftTokens"] for s in spec),
        sum(s["numAcceptedTokens"] for s in spec),
    )


def test_fixture_rows_carry_the_serialised_keys() -> None:
    row = json.loads(body("drain-1.json"))[0]
    # the order of NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IterationStats, ...), then the backend's
    assert list(row)[:3] == ["timestamp", "iter", "iterLatencyMS"]
    assert list(row["specDecodingStats"]) == [
        "numDraftTokens",
        "numAcceptedTokens",
        "numRequestsWithDraftTokens",
        "acceptanceLength",
        "iterLatencyMS",
        "draftOverhead",
    ]
    assert list(row)[-1] == "attentionDpRank"


def test_a_read_is_exactly_the_iterations_it_drained() -> None:
    src = TRTLLMSource()
    first = src.read(body("drain-1.json"), None)
    assert (first.counters.drafts, first.counters.draft_tokens, first.counters.accepted) == (
        raw_sums("drain-1.json")
    )
    assert (first.counters.drafts, first.counters.accepted) == (12, 21)  # not 24, 42: rank 1
    assert first.counters.marks == (503.0,) and first.notes == ()
    second = src.read(body("drain-2.json"), first.counters)
    d, t, a = raw_sums("drain-2.json")
    assert second.counters.drafts == 12 + d and second.counters.draft_tokens == 36 + t
    assert second.counters.accepted == 21 + a and second.notes == ()
    state, _ = step(DetectorState(), first.counters, BASE, DetectorConfig(min_drafts=1))
    state, events = step(state, second.counters, BASE, DetectorConfig(min_drafts=1))
    (window,) = [e.window for e in events if e.window is not None]
    assert (window.drafts, window.draft_tokens, window.accepted) == (6, 18, 10)
    assert window.mal == pytest.approx(1 + 10 / 6)
    assert window.acceptance == pytest.approx(10 / 18)


def test_an_empty_read_changes_nothing_and_keeps_the_position() -> None:
    src = TRTLLMSource()
    c = src.read(body("drain-1.json"), None).counters
    idle = src.read(body("drain-empty.json"), c)
    assert idle.counters == c and idle.notes == ()


def test_iterations_taken_by_another_reader_are_reported() -> None:
    src = TRTLLMSource()
    c = src.read(body("drain-1.json"), None).counters
    c = src.read(body("drain-2.json"), c).counters
    gap = src.read(body("drain-gap.json"), c)
    (note,) = gap.notes
    assert note.startswith("3 iterations not seen")  # 506, 507, 508
    assert gap.counters.epoch == 0 and gap.counters.drafts == c.drafts + 8


def test_a_restart_is_the_iteration_counter_going_back() -> None:
    src = TRTLLMSource()
    config = DetectorConfig(min_drafts=1)
    c1 = src.read(body("drain-1.json"), None).counters
    c2 = src.read(body("drain-2.json"), c1).counters
    c3 = src.read(body("drain-restarted.json"), c2).counters
    assert c3.epoch == 1 and c3.marks == (2.0,)
    # the new process's iterations only: the old totals are gone with it
    assert (c3.drafts, c3.draft_tokens, c3.accepted) == raw_sums("drain-restarted.json")
    state, _ = step(DetectorState(), c1, BASE, config)
    state, _ = step(state, c2, BASE, config)
    state = state.model_copy(update={"cusum": 3.0})
    state, events = step(state, c3, BASE, config)
    assert [e.kind for e in events] == ["restart"]
    assert "iteration counter went back (505 -> 0)" in events[0].message
    assert state.cusum == 0.0 and state.restarts == 1
    # the epoch carries on: the next read of the same process is a window again
    c4 = src.read(body("drain-restarted.json").replace('"iter": ', '"iter": 1'), c3).counters
    assert c4.epoch == 1
    _, events = step(state, c4, BASE, config)
    assert [e.kind for e in events] == ["window"]


def test_a_waiting_window_loses_no_drained_iterations() -> None:
    """A window with too few drafts waits for the next read; the drained iterations of the
    read it skipped must still be in it (the queue holds them only once)."""
    reads = iter(body(n) for n in ("drain-1.json", "drain-2.json", "drain-gap.json"))
    lines: list[str] = []
    w = Watcher(
        ["http://t"],
        BASE,
        DetectorConfig(min_drafts=10),
        fetch=lambda url: next(reads),
        out=lines.append,
        source=TRTLLMSource(),
    )
    w.poll()
    assert [e.kind for _, e in w.poll()] == ["skipped"]  # 6 drafts
    events = [e for _, e in w.poll()]
    (window,) = [e.window for e in events if e.window is not None]
    assert (window.drafts, window.accepted) == (6 + 8, 10 + 5)
    assert any("3 iterations not seen" in line for line in lines)


def test_bodies_that_are_not_iteration_stats() -> None:
    src = source_for("trtllm")
    with pytest.raises(SourceError, match="no JSON"):
        src.read("# HELP vllm:x\n", None)
    with pytest.raises(SourceError, match="not a list"):
        src.read('{"iter": 1}', None)
    lines: list[str] = []
    w = Watcher(["http://t"], BASE, DetectorConfig(), fetch=lambda u: "<html>", out=lines.append)
    w.source = src
    w.poll()
    assert w.targets[0].state.up is False
    assert any("trtllm source: /metrics answered no JSON" in line for line in lines)


class _Drains(BaseHTTPRequestHandler):
    """trtllm-serve's /metrics: each GET answers what is queued and empties the queue."""

    queue: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        text = self.queue.pop(0) if self.path == "/metrics" and self.queue else "[]"
        data = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def draining_server() -> Iterator[str]:
    _Drains.queue = [body("drain-1.json"), body("drain-2.json")]
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Drains)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


def test_watch_command_reads_trtllm_serve(tmp_path: Path, draining_server: str) -> None:
    e = Expectation(
        stage="function",
        configuration="eagle3 k=3",
        load="concurrency=4",
        k=3,
        acceptance=Figure(point=0.55, lower=0.4, upper=0.7),
        mean_accepted_length=Figure(point=2.6, lower=2.2, upper=3.0),
        run_ids=("r1",),
    )
    exp = tmp_path / "expectations.json"
    exp.write_text(Expectations(campaign="c", engine="trtllm", expectations=(e,)).model_dump_json())
    state = tmp_path / "state.json"
    args = ["watch", str(exp), "--target", draining_server, "--once", "--interval", "0.01"]
    run = specverdict_cli(*args, "--min-drafts", "1", "--state", str(state))
    assert run.returncode == 0, run.stderr
    assert "caveat: trtllm: /metrics empties the server's iteration-stats queue" in run.stdout
    assert f"{draining_server} window: MAL 2.667" in run.stdout, run.stdout
    saved = json.loads(state.read_text())[draining_server]
    reading = Counters.model_validate(saved["reading"])
    assert (reading.drafts, reading.accepted, reading.marks) == (18, 31, (505.0,))
