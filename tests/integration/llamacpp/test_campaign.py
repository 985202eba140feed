"""A campaign on real llama.cpp through the runner: one server per execution, started from the
llama-server flags the adapter builds; baseline, the draft model and ngram-simple, ending in
verdicts and a report. And a run polluted by real foreign traffic on an attached server."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import httpx
import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.engines.llamacpp import LlamaCppAdapter
from specverdict.measure.results import run_results
from specverdict.records import SampleRecord
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from tests.conftest import specverdict_cli
from tests.integration.llamacpp.conftest import SERVER, LlamaServers

#: llama-server's own flags after the program, as the adapter's built-in command has them;
#: ``-t 1`` last (one thread per server)
LAUNCH = (
    f"{shlex.join(SERVER)} -m {{model}} --host {{host}} --port {{port}} "
    "--alias {served_name} --metrics {speculative_args} -t 1"
)

CAMPAIGN = """\
name: llamacpp-e2e
engine:
  kind: llamacpp
  {engine}
model: {{family: specverdict-reference, served_name: reference-target, path: '{target}'}}
quantization: fp32
baseline: {{method: none}}
candidates:
{candidates}
stages:
  function: {{suite: builtin-code@1, samples: {samples}}}
sampling: {{temperature: 0.0, max_tokens: 64, seed: 0}}
load: {{concurrency: [1], warmup: 1}}
gates: {{alpha: 0.05, margin: 0.02, min_speedup: 1.05}}
"""


def candidates(models: Path) -> str:
    draft = f"  - {{method: draft_model, k: 3, draft: '{models / 'draft.gguf'}'}}"
    ngram = "  - {method: ngram, k: 8, params: {spec_ngram_simple_size_n: 3}}"
    return f"{draft}\n{ngram}"


@pytest.fixture(scope="module")
def measured(gguf_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("campaign")
    campaign = root / "llamacpp.yaml"
    engine = f"launch: {{command: {json.dumps(LAUNCH)}, startup_timeout_s: 60}}"
    campaign.write_text(
        CAMPAIGN.format(
            engine=engine,
            target=gguf_dir / "target.gguf",
            candidates=candidates(gguf_dir),
            samples="all",
        )
    )
    db = root / "runs.db"
    proc = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return campaign, db


def test_every_run_is_launched_with_the_builtin_llama_server_flags(
    measured: tuple[Path, Path],
) -> None:
    _, db = measured
    store = SQLiteStore(db)
    adapter = LlamaCppAdapter()
    runs = store.list_runs()
    assert len(runs) == 4  # baseline, draft model, ngram, baseline again
    for run in runs:
        assert run.status == "completed"
        command = list(run.manifest.launch_command or ())
        spec = run.spec
        flags = command[len(SERVER) :]
        port, model = flags[flags.index("--port") + 1], flags[flags.index("-m") + 1]
        assert model.endswith("target.gguf")
        builtin = adapter.builtin_command(spec, model, "127.0.0.1", int(port), ".")
        assert builtin is not None and builtin[0] == "llama-server"
        # the same flags as llama-server's built-in template, after the in-process program
        assert command[: len(SERVER)] == SERVER
        assert command[len(SERVER) : -2] == builtin[1:] and command[-2:] == ["-t", "1"]
        (log,) = run.manifest.engine_logs
        assert "xllamacpp-server: llama.cpp server (xllamacpp 2026.10" in Path(log).read_text()
        # llama.cpp serves no /version: its build is read from /props, and said so
        assert run.manifest.engine_version_source == "/props build_info"
        build = run.manifest.acceptance_probe["props"]["build_info"]  # type: ignore[index]
        assert isinstance(build, str) and build and run.manifest.engine_version == build


def test_acceptance_is_per_request_and_agrees_with_the_counters(
    measured: tuple[Path, Path],
) -> None:
    _, db = measured
    store = SQLiteStore(db)
    seen = {}
    for run in store.list_runs():
        res = run_results(store, run.run_id)
        acc = res.acceptance
        method = run.spec.speculation.method
        if method == "none":
            assert acc.drafted is False and not acc.polluted, acc
            continue
        assert acc.source == "per-request" and acc.valid and not acc.polluted, acc
        assert acc.draft_tokens is not None and acc.draft_tokens > 0
        failed = [s for s in store.samples(run.run_id) if s.status != "ok"]
        if failed:
            # a request that failed generated an unknown number of tokens: the counter delta
            # cannot be delimited to the answers, and the summary must say so (the counts stay
            # the answers' own)
            assert all(s.error for s in failed), failed
            assert acc.drafts is None and acc.why is not None, acc
            assert f"{len(failed)} failed request(s)" in acc.why, acc
        else:
            # verify steps and per-position counts come from counters that matched the answers
            assert acc.drafts is not None and acc.drafts > 0, acc
            assert sum(acc.accepted_per_pos) == acc.accepted, acc
        seen[method] = acc
    assert set(seen) == {"draft_model", "ngram"}


def test_the_campaign_ends_in_verdicts_and_a_report(measured: tuple[Path, Path]) -> None:
    campaign, db = measured
    proc = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    verdicts = {v["candidate"]: v for v in json.loads(proc.stdout)["verdicts"]}
    assert set(verdicts) == {"draft_model k=3", "ngram k=8"}
    for v in verdicts.values():
        # builtin-code@1 has no scorer: never ADOPT
        assert v["verdict"] in ("INCONCLUSIVE", "REJECT", "INVALID"), v
        gates = {r["gate"]: r for r in v["reasons"]}
        assert gates["pairing"]["status"] == "pass"
        assert gates["acceptance"]["data"]["source"] == "per-request"
    out = db.parent / "report"
    report = specverdict_cli("report", str(campaign), "--db", str(db), "--out", str(out))
    assert report.returncode in (0, 1, 3, 4), report.stderr
    assert (out / "index.html").is_file() and (out / "report.json").is_file()
    assert "ngram k=8" in (out / "report.md").read_text()


class ForeignRequest:
    """A progress sink that sends one request of its own to the server after the first sample
    is stored: real traffic the run did not send, between its two scrapes."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.sent = 0

    def start(self, run_id: str, label: str, total: int) -> None:
        return None

    def advance(self, record: SampleRecord) -> None:
        if self.sent == 0:
            body = {"model": "reference-target", "prompt": "def add(a, b):\n", "max_tokens": 16}
            httpx.post(self.base_url + "/v1/completions", json=body, timeout=60).raise_for_status()
            self.sent += 1

    def finish(self) -> None:
        return None


def attached_plan(base_url: str, models: Path, candidate: str) -> object:
    engine = f"base_url: '{base_url}'"
    text = CAMPAIGN.format(
        engine=engine,
        target=models / "target.gguf",
        candidates=candidate,
        samples="{first: 6}",
    ).replace(
        "baseline: {method: none}", "baseline: {method: none, base_url: 'http://127.0.0.1:1'}"
    )
    return build_plan(parse_campaign(text, Path("attached.yaml")))


@pytest.mark.parametrize("source", ["per-request", "metrics-delta"])
def test_one_real_foreign_request_pollutes_the_run(
    tmp_path: Path, llama: LlamaServers, gguf_dir: Path, source: str
) -> None:
    base_url = llama.draft(3)
    plan = attached_plan(base_url, gguf_dir, candidates(gguf_dir).splitlines()[0])
    store = SQLiteStore(tmp_path / "runs.db")
    foreign = ForeignRequest(base_url)
    run = Runner(store, log=lambda _: None, progress=foreign).run_one(plan, plan.runs[1], 0)  # type: ignore[attr-defined]
    assert foreign.sent == 1 and run.status == "completed"
    res = run_results(store, run.run_id)
    acc = res.acceptance
    if source == "metrics-delta":  # the same run judged from its counters alone
        samples = [s.model_copy(update={"acceptance": None}) for s in store.samples(run.run_id)]
        acc = LlamaCppAdapter().summarize_acceptance(
            res.run.spec,
            samples,
            store.snapshots(run.run_id),
            int(res.run.manifest.segments[-1].requests),
        )
        assert not acc.valid and acc.acceptance_rate is None
    assert acc.source == source and acc.polluted, acc
    assert acc.why is not None and acc.why.startswith("polluted: the server generated")
