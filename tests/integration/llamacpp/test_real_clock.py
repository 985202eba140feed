"""Speed decided on the host's wall clock on real llama.cpp servers, attached, with the
campaign's default load settings: a draft model that is slower on this CPU is REJECT, and a
server against an identical one (A/A) is never ADOPT."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import specverdict_cli
from tests.integration.llamacpp.conftest import LlamaServers

CAMPAIGN = """\
name: llamacpp-wall-clock
engine: {{kind: llamacpp, base_url: '{base}'}}
model: {{family: specverdict-reference, served_name: reference-target, path: '{target}'}}
quantization: fp32
candidates:
  - {candidate}
stages:
  function: {{suite: synth-function@1, samples: {{first: {n}}}}}
sampling: {{temperature: 0.0, max_tokens: {max_tokens}, seed: 0}}
"""


def judged(
    tmp_path: Path, base: str, candidate: str, models: Path, n: int = 120, max_tokens: int = 64
) -> dict[str, Any]:
    campaign = tmp_path / "c.yaml"
    target = models / "target.gguf"
    campaign.write_text(
        CAMPAIGN.format(base=base, candidate=candidate, target=target, n=n, max_tokens=max_tokens)
    )
    db = tmp_path / "runs.db"
    proc = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    (v,) = json.loads(out.stdout)["verdicts"]
    return dict(v)


def test_a_slower_draft_model_is_rejected(
    llama: LlamaServers, gguf_dir: Path, tmp_path: Path
) -> None:
    draft = gguf_dir / "draft.gguf"
    cand = f"{{method: draft_model, k: 3, draft: '{draft}', base_url: '{llama.draft(3)}'}}"
    # a block of 8 requests lasts about a second on these tiny models, and the other tests
    # sharing two cores can starve one arm's segment (a block's ratio off by 10x was seen):
    # 240 prompts give 30 blocks, and answers of up to 128 tokens time each TPOT on more steps
    v = judged(tmp_path, llama.get(), cand, gguf_dir, n=240, max_tokens=128)
    speed = {r["gate"]: r for r in v["reasons"]}["speed.tpot"]
    # 30 blocks; a block whose requests all failed under the whole suite's load is dropped
    # from the pairs and counted by the failure gate, not by this one (seen: df 28 under the
    # suite alone, df 24 with the suite beside other work at a load average of 8 on two cores)
    assert speed["data"]["design"] == "blocks" and 20 <= speed["data"]["df"] <= 29
    # read by rank (Hodges-Lehmann, signed-rank interval): the starved blocks move the
    # estimate by a rank each; read as a mean of log ratios, one run of the whole suite put
    # this slower draft model at 1.13x [0.67, 1.92] (blocks' sd 141%); by rank, under a
    # spread of 100% (two suites' load on two cores) it read 1.32x [0.85, 2.10]: the point is
    # required under 1 only where the blocks measured the servers more than the host
    if speed["data"]["block_sd"] < 0.5:
        assert speed["data"]["point"] < 1.0, speed["message"]
    # the blocks' robust spread: under 30% the blocks measured the servers (22-36% with three
    # and five CPU burners sharing the cores, REJECT each time); at 44% under the whole suite's
    # load the same servers read 0.876x [0.710, 1.173], rightly undecided
    lo, hi = speed["data"]["interval"]
    assert v["verdict"] != "ADOPT" and lo < 1.05, speed["message"]
    if speed["data"]["block_sd"] < 0.3:
        assert v["verdict"] == "REJECT", speed["message"]
        assert speed["status"] == "reject" and hi < 1.0
    elif hi < 1.05:
        # a loaded host (one whole-suite run: spread exactly 30%, 0.544x [0.485, 0.607]) can
        # still give an interval wholly under the bar: then the gate rejects on it
        assert speed["status"] == "reject" and v["verdict"] == "REJECT", speed["message"]
    else:
        # a host too loaded to tell (44%: 0.876x [0.710, 1.173]; 100%: 1.32x [0.85, 2.10]):
        # the gate decides nothing, says so, and names the blocks that would
        assert v["verdict"] == "INCONCLUSIVE", speed["message"]
        assert "not established" in speed["message"] and "blocks" in speed["message"]


@pytest.mark.parametrize("method", ["ngram"])
def test_a_server_against_its_twin_is_never_adopted(
    llama: LlamaServers, gguf_dir: Path, tmp_path: Path, method: str
) -> None:
    """Two servers started alike (no speculation), the second declared as a candidate: the
    speed interval has no lower bound over the bar, and the declared speculation that the
    server does not run makes the pair INVALID."""
    twin = llama.get("--alias", "reference-target")  # the same flags in another process
    v = judged(tmp_path, llama.get(), f"{{method: {method}, k: 8, base_url: '{twin}'}}", gguf_dir)
    speed = {r["gate"]: r for r in v["reasons"]}["speed.tpot"]
    assert v["verdict"] == "INVALID", v["reasons"]
    assert speed["data"]["interval"][0] < 1.05, speed["message"]


@pytest.mark.parametrize("declared", [8, 2])
def test_a_declared_k_the_server_does_not_run_is_invalid(
    llama: LlamaServers, gguf_dir: Path, tmp_path: Path, declared: int
) -> None:
    """The server drafts up to 3 tokens (--spec-draft-n-max 3); the campaign says k=8 or k=2:
    the engine's own counts (3 drafted tokens per verify step, 3 position counters) make the
    pair INVALID, naming both. The counts are the engine's, not a statistic: a few requests
    show them."""
    draft = gguf_dir / "draft.gguf"
    cand = f"{{method: draft_model, k: {declared}, draft: '{draft}', base_url: '{llama.draft(3)}'}}"
    v = judged(tmp_path, llama.get(), cand, gguf_dir, n=32)
    k = {r["gate"]: r for r in v["reasons"]}.get("speculation.k")
    assert v["verdict"] == "INVALID", v["reasons"]
    assert k is not None and k["status"] == "invalid", v["reasons"]
    assert k["data"]["declared_k"] == declared and k["data"]["engine_k"] == 3, k
    assert f"declared draft_model k={declared}" in k["message"]


PREFLIGHT = """\
name: preflight
engine: {{kind: {kind}, base_url: '{base}'}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates:
  - {{method: draft_model, k: 3, draft: d.gguf, base_url: '{cand}'}}
stages:
  function: {{suite: synth-function@1, samples: {{first: 8}}}}
sampling: {{temperature: 0.0, max_tokens: 16, seed: 0}}
load: {{concurrency: {conc}}}
"""


@pytest.mark.parametrize(
    ("kind", "conc", "twin", "expected"),
    [
        ("llamacpp", 1, True, "runs no speculation (/slots: speculative false on every slot)"),
        ("llamacpp", 2, False, "has 1 slot(s) (/props total_slots) for concurrency 2"),
        ("vllm", 1, False, "is llamacpp (its /v1/models owned_by), the campaign declares"),
    ],
)
def test_a_server_that_contradicts_its_configuration_is_refused_before_measuring(
    llama: LlamaServers, tmp_path: Path, kind: str, conc: int, twin: bool, expected: str
) -> None:
    """Pre-flight of attached servers: what llama.cpp says about itself (/slots, /props,
    /v1/models) against the declared configuration, before the first measured request; with
    --force it is measured anyway and the manifest records what the server said."""
    from specverdict.campaign import build_plan, parse_campaign
    from specverdict.errors import PreflightError
    from specverdict.run.runner import Runner
    from specverdict.store import SQLiteStore

    cand = llama.get("--alias", "reference-target") if twin else llama.draft(3)
    text = PREFLIGHT.format(kind=kind, base=llama.get(), cand=cand, conc=conc)
    file = tmp_path / "c.yaml"
    file.write_text(text)
    probed = specverdict_cli("validate", str(file), "--probe")
    assert probed.returncode == 2 and expected in probed.stderr, probed.stderr
    assert specverdict_cli("validate", str(file)).returncode == 0  # no server asked
    plan = build_plan(parse_campaign(text, file))
    store = SQLiteStore(tmp_path / "runs.db")
    with pytest.raises(PreflightError, match=re.escape(expected)) as info:
        Runner(store, log=lambda _: None).run_plan(plan)
    assert "nothing was measured" in str(info.value)
    assert all(not store.samples(r.run_id) for r in store.list_runs())
    forced = Runner(SQLiteStore(tmp_path / "forced.db"), log=lambda _: None, force=True)
    records = forced.run_plan(plan)
    assert any(any(expected in line for line in r.manifest.preflight) for r in records)


def test_compare_live_knows_a_llama_cpp_server_and_reads_its_acceptance(
    llama: LlamaServers, tmp_path: Path
) -> None:
    """No --engine: the baseline's /v1/models (owned_by llamacpp) names the kind, so the
    acceptance comes from the answers' timings instead of being dropped as a generic
    OpenAI server's; the report's command is printed."""
    db = tmp_path / "runs.db"
    proc = specverdict_cli(
        "compare-live", "--baseline", llama.get(), "--candidate", llama.draft(3),
        "--suite", "synth-function@1", "--method", "draft_model", "--k", "3",
        "--samples", "24", "--max-tokens", "32", "--db", str(db), "--json",
    )  # fmt: skip
    assert proc.returncode in (0, 1, 2, 3, 4), proc.stderr
    assert "engine llamacpp (the servers')" in proc.stderr
    assert "next: specverdict report " in proc.stderr
    (v,) = json.loads(proc.stdout)["verdicts"]
    gates = {r["gate"]: r for r in v["reasons"]}
    assert gates["acceptance"]["data"]["source"] == "per-request", gates["acceptance"]


def test_a_server_that_changed_is_measured_again_and_remeasure_forces_it(
    llama: LlamaServers, gguf_dir: Path, tmp_path: Path
) -> None:
    """The baseline's server is restarted on the same port with another model file: the same
    command measures a new execution instead of reusing the stored one (what the server says
    about itself, its identity, changed), and the verdict rests on the new one;
    ``--remeasure`` measures anew even when nothing changed."""
    from specverdict.engines.launcher import LaunchedServer, free_port
    from specverdict.store import SQLiteStore

    port = free_port()
    url = f"http://127.0.0.1:{port}"

    def start(model: str) -> LaunchedServer:
        command = llama.command(port)
        command[command.index("-m", 3) + 1] = str(gguf_dir / model)  # after `python -m ...`
        return LaunchedServer(command, url).start()

    draft = gguf_dir / "draft.gguf"
    cand = f"{{method: draft_model, k: 3, draft: '{draft}', base_url: '{llama.draft(3)}'}}"
    campaign = tmp_path / "c.yaml"
    campaign.write_text(
        CAMPAIGN.format(
            base=url, candidate=cand, target=gguf_dir / "target.gguf", n=16, max_tokens=64
        )
    )
    db = tmp_path / "runs.db"
    run = ["run", str(campaign), "--db", str(db), "--force"]
    server = start("target.gguf")
    try:
        assert specverdict_cli(*run).returncode == 0
        again = specverdict_cli(*run)
        assert again.stdout.count("nothing to send") == 2, again.stdout  # same servers: reused
    finally:
        server.stop()
    server = start("draft.gguf")  # restarted with another model under the same alias
    try:
        changed = specverdict_cli(*run)
    finally:
        server.stop()
    assert changed.returncode == 0, changed.stderr
    assert "is not the one it was measured on (models, props changed)" in changed.stdout
    store = SQLiteStore(db)
    bases = [r for r in store.list_runs() if r.spec.speculation.method == "none"]
    assert len(bases) == 2 and {r.repeat for r in bases} == {0}
    assert bases[1].manifest.server is not None and bases[0].manifest.server is not None
    assert bases[1].manifest.server.digest != bases[0].manifest.server.digest
    out = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    (v,) = json.loads(out.stdout)["verdicts"]
    assert v["baseline_run_ids"] == [bases[1].run_id]  # the new execution replaces the old
    server = start("draft.gguf")  # the same server again: --remeasure measures anew anyway
    try:
        forced = specverdict_cli(*run, "--remeasure")
    finally:
        server.stop()
    assert forced.stdout.count("measured again (--remeasure), a new execution") == 2, forced.stdout
