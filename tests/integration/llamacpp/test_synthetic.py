"""A synthetic stage on real engines: prompts cut to length by each engine's own tokenizer
(llama.cpp's ``/tokenize`` and ``/detokenize``, the reference server's vLLM-shaped ones) are
the same text on both, since they serve the same tokenizer; ``ignore_eos`` runs every answer
to its length on both; and a campaign of a synthetic stage on llama.cpp, timed on the wall
clock, sends the same prompts to every execution and ends in verdicts."""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path

import httpx
import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.engines.tokens import TokenCounter
from specverdict.reference.tokenizer import RefTokenizer
from specverdict.reference.weights import shipped
from specverdict.store import SQLiteStore
from specverdict.suites import Sample, suite_for
from specverdict.suites.function.builtin import BuiltinCode
from specverdict.suites.synthetic import SyntheticSample, SyntheticSuite
from tests.conftest import Servers, campaign_yaml, specverdict_cli
from tests.integration.llamacpp.conftest import SERVER, LlamaServers


def suite(source: str, prompts: int, tokens: int) -> SyntheticSuite:
    section = {"prompts": prompts, "input_tokens": tokens, "output_tokens": 16, "source": source}
    text = campaign_yaml("syn", stages={"side:syn": {"synthetic": section}})
    found = suite_for(build_plan(parse_campaign(text, Path("c.yaml"))).runs[0])
    assert isinstance(found, SyntheticSuite)
    return found


async def cut(suite: SyntheticSuite, counter: TokenCounter) -> list[Sample]:
    async with httpx.AsyncClient() as client:
        return await suite.make_prompts(suite.samples(), client, counter)


def test_both_engines_cut_the_same_prompts_to_the_asked_length(
    llama: LlamaServers, servers: Servers
) -> None:
    tokenizer = RefTokenizer(shipped("target"))
    counters = {
        "llamacpp": TokenCounter(llama.get() + "/tokenize", "llamacpp", "reference-target"),
        "reference": TokenCounter(servers.get() + "/tokenize", "vllm", "reference-target"),
    }
    for source, tokens in (("corpus", 96), ("random", 40)):
        made = {
            name: asyncio.run(cut(suite(source, 6, tokens), counter))
            for name, counter in counters.items()
        }
        assert [s.prompt for s in made["llamacpp"]] == [s.prompt for s in made["reference"]]
        for sample in made["reference"]:
            assert isinstance(sample, SyntheticSample) and sample.prompt
            n = len(tokenizer.encode(sample.prompt))
            if source == "corpus":  # a prefix of a passage's own tokens: it tokenizes back
                assert n == tokens, (n, sample.prompt[-40:])
            else:  # random ids may merge, or split, when their text is tokenized again
                assert 0.75 * tokens <= n <= 1.25 * tokens, n
        if source == "corpus":
            assert all("def " in (s.prompt or "") for s in made["reference"])


@pytest.mark.parametrize("engine", ["llamacpp", "reference"])
def test_ignore_eos_runs_an_answer_to_its_length(
    engine: str, llama: LlamaServers, servers: Servers
) -> None:
    base = llama.get() if engine == "llamacpp" else servers.get()
    prompt = BuiltinCode().samples()[0].prompt
    body = {"model": "reference-target", "prompt": prompt, "max_tokens": 160, "temperature": 0}
    stops = httpx.post(base + "/v1/completions", json=body, timeout=120).json()
    assert stops["choices"][0]["finish_reason"] == "stop"  # the reference models stop early
    assert stops["usage"]["completion_tokens"] < 160
    runs = httpx.post(
        base + "/v1/completions", json={**body, "ignore_eos": True}, timeout=120
    ).json()
    assert runs["choices"][0]["finish_reason"] == "length"
    assert runs["usage"]["completion_tokens"] == 160


LAUNCH = (
    f"{shlex.join(SERVER)} -m {{model}} --host {{host}} --port {{port}} "
    "--alias {served_name} --metrics {speculative_args} -t 1"
)


def test_a_synthetic_campaign_on_llamacpp_sends_every_execution_the_same_prompts(
    gguf_dir: Path, tmp_path: Path
) -> None:
    campaign = tmp_path / "synthetic.yaml"
    campaign.write_text(
        f"""\
name: llamacpp-synthetic
engine:
  kind: llamacpp
  launch: {{command: {json.dumps(LAUNCH)}, startup_timeout_s: 60}}
model: {{family: specverdict-reference, served_name: reference-target,
         path: '{gguf_dir / "target.gguf"}'}}
quantization: fp32
baseline: {{method: none}}
candidates:
  - {{method: ngram, k: 8, params: {{spec_ngram_simple_size_n: 3}}}}
stages:
  side:fixed: {{synthetic: {{prompts: 8, input_tokens: 80, output_tokens: 48}}}}
sampling: {{temperature: 0.0, max_tokens: 16, seed: 0}}
load: {{concurrency: [1], warmup: 1}}
"""
    )
    db = tmp_path / "runs.db"
    ran = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    store = SQLiteStore(db)
    runs = store.list_runs()
    assert len(runs) == 3 and all(r.status == "completed" for r in runs)
    digests = set()
    for run in runs:
        samples = store.samples(run.run_id)
        assert len(samples) == 8
        for s in samples:  # the stage's own length, not sampling.max_tokens
            assert (s.status, s.finish_reason, s.completion_tokens) == ("ok", "length", 48)
            assert s.clock == "host"  # llama.cpp: the wall clock
        digests.add(
            tuple(s.extra.prompt_sha256 for s in sorted(samples, key=lambda s: s.sample_id))
        )
    assert len(digests) == 1 and None not in next(iter(digests))
    judged = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    (verdict,) = json.loads(judged.stdout)["verdicts"]
    gates = {(r["gate"], r["status"]) for r in verdict["reasons"]}
    assert ("pairing", "invalid") not in gates and ("workload", "info") not in gates
    assert verdict["speedup"] is not None


def test_a_server_whose_tokenizer_cannot_be_read_fails_the_run_before_it_measures(
    llama: LlamaServers, tmp_path: Path
) -> None:
    """An OpenAI-compatible server asked in vLLM's tokenize shape: llama.cpp answers an empty
    list to a body without ``content``, so no tokenizer is found, and the synthetic stage's
    prompts cannot be cut."""
    campaign = tmp_path / "attached.yaml"
    campaign.write_text(
        f"""\
name: attached-synthetic
engine: {{kind: openai, base_url: '{llama.get()}'}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
baseline: {{method: none}}
candidates: [{{method: ngram, k: 8, base_url: '{llama.ngram()}'}}]
stages:
  side:fixed: {{synthetic: {{prompts: 4, input_tokens: 32, output_tokens: 8, ignore_eos: false}}}}
load: {{concurrency: [1], warmup: 0}}
"""
    )
    db = tmp_path / "runs.db"
    ran = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert ran.returncode != 0
    (line,) = [x for x in ran.stderr.splitlines() if x.startswith("specverdict: error")]
    assert "no tokenize endpoint" in line and "nothing was measured" in line
    (run,) = SQLiteStore(db).list_runs()
    assert run.status == "failed" and SQLiteStore(db).samples(run.run_id) == []
