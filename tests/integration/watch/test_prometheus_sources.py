"""The Prometheus-text watch sources on expositions in their servers' real formats: vLLM's
recorded scrapes (tests/fixtures/vllm-0.32.0-cpu, sent by a real vLLM 0.32.0 CPU server with
ngram and draft-model speculation), and SGLang's verify-call counters and acceptance gauge
(tests/fixtures/sglang, hand-written after ``python/sglang/srt/metrics/collector.py``).

Expected figures are recomputed here from ``prometheus_client``'s parser, not taken from the
sources under test."""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from specverdict.policy.model import Expectation, Expectations, Figure, OverridesTarget
from specverdict.watch.counter_sources import SGLangGaugeSource, SGLangSource, VLLMSource
from specverdict.watch.detect import (
    Baseline,
    Counters,
    DetectorConfig,
    DetectorState,
    Event,
    step,
)
from specverdict.watch.scrape import Watcher
from specverdict.watch.source import SOURCES, MetricsSource, SourceError, source_for
from tests.conftest import FIXTURES, specverdict_cli

VLLM = FIXTURES / "vllm-0.32.0-cpu"
SGLANG = FIXTURES / "sglang"
CONFIG = DetectorConfig(min_drafts=1)


def total(text: str, name: str) -> float:
    """The sum of a sample over its label sets, by prometheus_client's parser."""
    return sum(
        s.value for f in text_string_to_metric_families(text) for s in f.samples if s.name == name
    )


def windows(
    source: MetricsSource, texts: list[str], base: Baseline
) -> tuple[DetectorState, list[Event]]:
    state: DetectorState = DetectorState()
    last: Counters | None = None
    events: list[Event] = []
    for text in texts:
        reading = source.read(text, last)
        last = reading.counters
        state, got = step(state, last, base, CONFIG)
        events += got
    return state, events


# --- vLLM, recorded ---------------------------------------------------------------------------


@pytest.mark.parametrize(("prefix", "k"), [("ngram-k4-detailed", 4), ("draft-model-k3-summary", 3)])
def test_recorded_vllm_windows(prefix: str, k: int) -> None:
    texts = [(VLLM / f"{prefix}.metrics-{p}.txt").read_text() for p in ("before", "after", "end")]
    base = Baseline(mal_lower=1.2, k=k)
    _, events = windows(VLLMSource(), texts, base)
    got = [e.window for e in events if e.window is not None]
    assert len(got) == 2  # one request between each pair of scrapes
    for (before, after), w in zip([texts[:2], texts[1:]], got, strict=True):
        names = ("num_drafts", "num_draft_tokens", "num_accepted_tokens")
        d, t, a = (
            total(after, f"vllm:spec_decode_{n}_total")
            - total(before, f"vllm:spec_decode_{n}_total")
            for n in names
        )
        assert d > 0 and (w.drafts, w.draft_tokens, w.accepted) == (d, t, a)
        assert w.acceptance == pytest.approx(a / t) and w.mal == pytest.approx(1 + a / d)
        assert t == k * d  # vLLM drafts k tokens per step with a fixed-k method
        name = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
        assert total(after, name) - total(before, name) == a  # per position, summed


def test_recorded_vllm_figures() -> None:
    """The recorded ngram server's first request: 12 verify steps, 48 draft tokens, 9 accepted."""
    before, after = (
        VLLMSource().read((VLLM / f"ngram-k4-detailed.metrics-{p}.txt").read_text(), None)
        for p in ("before", "after")
    )
    assert before.counters.start_time == after.counters.start_time == 1.79601962729e9
    c = after.counters
    assert (c.drafts, c.draft_tokens, c.accepted) == (12.0, 48.0, 9.0)


def test_recorded_vllm_restart_seen_by_the_start_time_alone() -> None:
    """Two real servers one after the other: every counter of the second one (56 drafts, 168
    draft tokens, 38 accepted) is above the first one's last (24, 96, 18), so only
    process_start_time_seconds tells the restart."""
    old = (VLLM / "ngram-k4-detailed.metrics-end.txt").read_text()
    new = (VLLM / "draft-model-k3-summary.metrics-end.txt").read_text()
    for n in ("num_drafts", "num_draft_tokens", "num_accepted_tokens"):
        name = f"vllm:spec_decode_{n}_total"
        assert total(new, name) > total(old, name)
    _, events = windows(VLLMSource(), [old, new], Baseline(mal_lower=1.2, k=4))
    assert [e.kind for e in events] == ["restart"]
    assert "process start time changed" in events[0].message


def test_recorded_vllm_without_speculation_alarms_at_once() -> None:
    """A real vLLM started without speculation exports no spec-decode series: a watch that
    expects speculation alarms at the first scrape (before, it waited for drafts forever)."""
    texts = [(VLLM / f"baseline.metrics-{p}.txt").read_text() for p in ("before", "after")]
    state, events = windows(VLLMSource(), texts, Baseline(mal_lower=1.2, k=4))
    assert [e.kind for e in events] == ["alarm"] and state.alarm
    assert "no speculative-decoding counters" in events[0].message


def test_counters_that_vanish_or_are_not_numbers_alarm_and_a_return_clears() -> None:
    spec = (VLLM / "ngram-k4-detailed.metrics-before.txt").read_text()
    later = (VLLM / "ngram-k4-detailed.metrics-after.txt").read_text()
    plain = (VLLM / "baseline.metrics-after.txt").read_text()
    nan = "\n".join(
        f"{line.split()[0]} NaN" if line.startswith("vllm:spec_decode_num_drafts_total") else line
        for line in later.splitlines()
    )
    base = Baseline(mal_lower=1.2, k=4)
    state, events = windows(VLLMSource(), [spec, nan], base)
    assert [e.kind for e in events] == ["alarm"] and "drafts=nan" in events[0].message
    state, events = windows(VLLMSource(), [spec, plain], base)
    assert [e.kind for e in events] == ["alarm"] and "counters are gone" in events[0].message
    assert state.alarm
    # the counters back (a restart with speculation): the alarm is reset with the detector
    state, events = windows(VLLMSource(), [spec, plain, later], base)
    assert [e.kind for e in events][-2:] == ["restart", "clear"] and not state.alarm


# --- SGLang, counters -------------------------------------------------------------------------


def sglang(name: str) -> str:
    return (SGLANG / name).read_text()


def test_sglang_counter_window() -> None:
    before, after = sglang("metrics-counters-before.txt"), sglang("metrics-counters-after.txt")
    _, events = windows(SGLangSource(), [before, after], Baseline(mal_lower=2.0, k=3))
    (w,) = [e.window for e in events if e.window is not None]

    def delta(name: str) -> float:
        return total(after, name) - total(before, name)

    steps = delta("sglang:spec_verify_calls_total")
    generated = delta("sglang:generation_tokens_total")  # both is_streaming label sets
    requests = delta("sglang:num_requests_total")
    assert (steps, generated, requests) == (400, 1130, 10)
    assert w.drafts == steps and w.accepted == generated - steps - requests
    assert w.mal == pytest.approx(2.8) and w.acceptance is None  # no draft-token count


def test_sglang_counter_restart() -> None:
    texts = [sglang(f"metrics-counters-{p}.txt") for p in ("after", "restarted")]
    _, events = windows(SGLangSource(), texts, Baseline(mal_lower=2.0, k=3))
    assert [e.kind for e in events] == ["restart"]
    assert "drafts went down (1600 -> 90)" in events[0].message


def test_sglang_without_the_counter_points_to_the_gauge_source() -> None:
    with pytest.raises(SourceError, match="--source sglang-gauge"):
        SGLangSource().read(sglang("metrics-gauges-1.txt"), None)
    with pytest.raises(SourceError, match="no sglang:spec_accept_length"):
        SGLangGaugeSource().read("# TYPE x counter\nx_total 1.0\n", None)


# --- SGLang, gauge ----------------------------------------------------------------------------


def test_sglang_gauge_windows() -> None:
    texts = [sglang(f"metrics-gauges-{i}.txt") for i in (1, 2, 3)]
    value = total(texts[1], "sglang:spec_accept_length")
    src = SGLangGaugeSource()
    _, events = windows(src, texts, Baseline(mal_lower=2.0, k=3))
    assert [e.kind for e in events] == ["window", "skipped"]  # -3 repeats -2's interval
    w = events[0].window
    assert w is not None and w.drafts == src.steps == 40
    assert w.mal == pytest.approx(value) == 2.3125 and w.acceptance is None
    assert "not a run-delimited figure" in (src.caveat or "")


def test_sglang_gauge_ranks_are_counted_apart() -> None:
    two = sglang("metrics-gauges-2.txt").replace(
        'tp_rank="0"} 2.3125', 'tp_rank="0"} 2.3125\nsglang:spec_accept_length{dp_rank="1"} 2.0'
    )
    src = SGLangGaugeSource()
    c = src.read(sglang("metrics-gauges-1.txt"), None).counters
    c2 = src.read(two, c).counters  # the label sets changed: every value is new
    assert c2.drafts - c.drafts == 80 and c2.accepted - c.accepted == pytest.approx(
        40 * 1.3125 + 40 * 1.0
    )


def test_sglang_idle_gauge_counts_nothing() -> None:
    idle = sglang("metrics-gauges-1.txt").replace('tp_rank="0"} 2.6875', 'tp_rank="0"} 0.0')
    c = SGLangGaugeSource().read(idle, Counters(drafts=0, draft_tokens=0, accepted=0)).counters
    assert c.drafts == 0


def test_source_registry() -> None:
    assert {"vllm", "llamacpp", "trtllm", "sglang", "sglang-gauge"} <= set(SOURCES.names())
    assert isinstance(source_for("sglang"), SGLangSource)
    with pytest.raises(KeyError, match="did you mean sglang"):
        source_for("sglng")


def test_watch_command_says_the_gauge_caveat(tmp_path: Path) -> None:
    e = Expectation(
        stage="function",
        configuration="eagle3 k=3",
        load="concurrency=1",
        k=3,
        acceptance=Figure(point=0.55, lower=0.4, upper=0.7),
        mean_accepted_length=Figure(point=2.6, lower=2.2, upper=3.0),
        run_ids=("r1",),
    )
    exp = tmp_path / "expectations.json"
    exp.write_text(Expectations(campaign="c", engine="sglang", expectations=(e,)).model_dump_json())
    args = ["watch", str(exp), "--target", "http://127.0.0.1:9", "--once", "--interval", "0.01"]
    run = specverdict_cli(*args, "--source", "sglang-gauge")
    assert run.returncode == 0, run.stderr
    assert "caveat: sglang-gauge:" in run.stdout and "not a run-delimited figure" in run.stdout


def test_a_target_back_after_failing_is_audited_again(tmp_path: Path) -> None:
    """The gauges never show a restart: a target answering again after failed scrapes gets
    the override audit, which finds the file the re-created container lost."""
    mounts = tmp_path / "mounts"
    mounts.mkdir()
    kept = mounts / "generation_config.json"
    kept.write_text("{}\n")
    digest = hashlib.sha256(kept.read_bytes()).hexdigest()
    manifest = tmp_path / "overrides.yaml"
    manifest.write_text(f'files:\n  generation_config.json: "{digest}"\n')
    answers: list[str | None] = [
        sglang("metrics-gauges-1.txt"),
        None,
        sglang("metrics-gauges-2.txt"),
    ]

    def fetch(url: str) -> str:
        text = answers.pop(0)
        if text is None:
            raise httpx.ConnectError("refused")
        return text

    lines: list[str] = []
    w = Watcher(
        ["http://t"],
        Baseline(mal_lower=2.0, k=3),
        CONFIG,
        overrides=OverridesTarget(manifest=str(manifest), root=str(mounts)),
        fetch=fetch,
        out=lines.append,
        source=SGLangGaugeSource(),
    )
    w.poll()
    assert w.targets[0].audit_clean is True, lines
    assert [e.kind for _, e in w.poll()] == ["down"]
    kept.unlink()  # the container came back without its mount
    kinds = [e.kind for _, e in w.poll()]
    assert kinds[0] == "up" and kinds[-1] == "alarm", lines
    assert w.targets[0].audit_clean is False and w.alarmed
