"""llama.cpp's real server on the exported reference models, over real HTTP.

- its ``/tokenize`` gives the project tokenizer's ids on code, prose, unicode, CRLF and tabs
  (the GGUF carries llama.cpp's plain ``gpt-2`` pre-tokenizer, not the shipped newline split);
- greedy, it writes the reference engine's answers token for token, without speculation, with
  the draft model and with ngram-simple (where an answer differs, the target's two best tokens
  were tied to within ``NEAR_TIE`` nats at that position: llama.cpp's f32 kernels sum in
  another order than PyTorch's, and batched verification rounds differently from one-token
  decode);
- each answer's ``timings.draft_n`` / ``draft_n_accepted`` (on ``/completion``,
  ``/v1/completions`` and the last chunk of a streamed completion or chat answer) add up to the
  ``/metrics`` counter deltas, and ``tokens_predicted_total`` grows by the answers' tokens.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import httpx
import pytest

from specverdict.engines.client import StreamedResponse, connections, stream
from specverdict.engines.llamacpp import LlamaCppAdapter, counter_delta
from specverdict.reference.tokenizer import RefTokenizer
from specverdict.reference.weights import shipped
from specverdict.suites.function.builtin import BuiltinCode
from tests.conftest import Servers
from tests.integration.llamacpp.conftest import LlamaServers

CORPUS = [
    'def flatten(items):\n    """Flatten a list of lists."""\n    return [x for xs in items for x in xs]\n',
    "class Node:\n\tdef __init__(self, value):\n\t\tself.value = value\n",
    "for i in range(10):\r\n    print(i)\r\n\r\n",
    "if (x && !y) { return a->b[i] >> 2; }  // C, with   runs   of spaces\n\n\n",
    "It's a dog's life; they'll've done 1,234.5 things -- or 12e-3 of them.",
    "héllo wörld, naïve café, Ärger, ß; 漢字かな交じり文; emoji 🙂🚀; Ελληνικά; עברית",
    "  leading spaces\n   \n\t\n trailing spaces   ",
    "\u00a0no-break\u2028line separator\u200bzero width\ufeffbom",
    "<|im_start|>user\nWrite add(a, b).<|im_end|>\n<|im_start|>assistant\n",
    'x = {\'a\': [1, 2, 3], "b": (4.5, -6)}\nprint(f"{x!r:>10}")\n',
    "",
]
#: largest gap (nats) between the target's two best tokens at which llama.cpp's answer may
#: differ from the reference engine's; measured: 0.0031 (builtin-code/1, token 22, with and
#: without speculation), 0.0021 (builtin-code/6 with the draft model, earlier weights)
NEAR_TIE = 0.01
PROMPTS = [s.prompt for s in BuiltinCode().samples()]
MAX_TOKENS = 64


def test_tokenize_equals_the_project_tokenizer(llama: LlamaServers) -> None:
    tokenizer = RefTokenizer(shipped("target"))
    base = llama.get()
    for text in CORPUS:
        ids = httpx.post(base + "/tokenize", json={"content": text}).json()["tokens"]
        assert ids == tokenizer.encode(text), repr(text)
        back = httpx.post(base + "/detokenize", json={"tokens": ids}).json()["content"]
        assert back == text, repr(text)


def complete(base_url: str, prompt: str, **extra: Any) -> dict[str, Any]:
    body = {"model": "reference-target", "prompt": prompt, "max_tokens": MAX_TOKENS}
    resp = httpx.post(
        base_url + "/v1/completions", json={**body, "temperature": 0, **extra}, timeout=120
    )
    resp.raise_for_status()
    out: dict[str, Any] = resp.json()
    return out


def top_two_gap(base_url: str, prompt: str, position: int) -> float:
    """The target's log-probability gap between its two best tokens at ``position`` of its
    greedy answer to ``prompt`` (llama.cpp's ``/completion`` with ``n_probs``)."""
    body = {"prompt": prompt, "n_predict": position + 1, "temperature": 0, "n_probs": 2}
    probs = httpx.post(base_url + "/completion", json=body, timeout=120).json()
    top = probs["completion_probabilities"][position]["top_logprobs"]
    return float(top[0]["logprob"] - top[1]["logprob"])


def test_greedy_answers_are_the_reference_engines(llama: LlamaServers, servers: Servers) -> None:
    tokenizer = RefTokenizer(shipped("target"))
    reference = servers.get()
    plain = llama.get()
    expected = [complete(reference, p)["choices"][0]["text"] for p in PROMPTS]
    same = 0
    for server in (plain, llama.draft(3), llama.ngram(8)):
        for prompt, want in zip(PROMPTS, expected, strict=True):
            got = complete(server, prompt)["choices"][0]["text"]
            if got == want:
                same += server == plain
                continue
            a, b = tokenizer.encode(want), tokenizer.encode(got)
            j = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
            assert top_two_gap(plain, prompt, j) < NEAR_TIE, (server, prompt, j)
    # ties are rare: without speculation nearly every answer is the same token for token
    assert same >= len(PROMPTS) - 1, same


def scrape(base_url: str) -> str:
    return httpx.get(base_url + "/metrics").text


def answers(base_url: str) -> list[tuple[dict[str, Any] | None, int]]:
    """Every way of asking: (the adapter's per-request acceptance, completion tokens)."""
    adapter = LlamaCppAdapter()
    out: list[tuple[dict[str, Any] | None, int]] = []
    for prompt in PROMPTS[:4]:
        body = {"prompt": prompt, "n_predict": MAX_TOKENS, "temperature": 0}
        native = httpx.post(base_url + "/completion", json=body, timeout=120).json()
        out.append((adapter.per_request_acceptance(native), native["tokens_predicted"]))
        oai = complete(base_url, prompt)
        out.append((adapter.per_request_acceptance(oai), oai["usage"]["completion_tokens"]))

    async def streamed() -> None:
        async with httpx.AsyncClient(timeout=120) as client:
            for prompt in PROMPTS[4:8]:
                body = {"model": "m", "prompt": prompt, "max_tokens": MAX_TOKENS, "temperature": 0}
                text = await stream(client, base_url + "/v1/completions", body)
                chat_body = {
                    "model": "m",
                    "messages": [{"role": "user", "content": prompt}],
                    "max_tokens": MAX_TOKENS,
                    "temperature": 0,
                }
                chat = await stream(client, base_url + "/v1/chat/completions", chat_body)
                for r in (text, chat):
                    assert r.status == "ok" and r.completion_tokens, r
                    out.append((adapter.per_request_acceptance(r.extras), r.completion_tokens))

    asyncio.run(streamed())
    return out


@pytest.mark.parametrize("method", ["draft", "ngram"])
def test_per_request_draft_counts_add_up_to_the_metrics_deltas(
    llama: LlamaServers, method: str
) -> None:
    base = llama.draft(3) if method == "draft" else llama.ngram(8)
    before = scrape(base)
    got = answers(base)
    delta = counter_delta(before, scrape(base))
    assert delta is not None and delta.slack == 0
    found = [acc for acc, _ in got if acc is not None]
    assert len(found) >= len(got) // 2  # most answers drafted; the others carry no draft fields
    assert sum(a["num_draft_tokens"] for a in found) == delta.draft_tokens > 0
    assert sum(a["num_accepted_draft_tokens"] for a in found) == delta.accepted
    assert sum(delta.accepted_per_pos) == delta.accepted
    assert delta.drafts is not None and 0 < delta.drafts <= delta.draft_tokens
    # the pollution check's premise: generated tokens grow by exactly the answers' tokens
    assert delta.predicted == sum(tokens for _, tokens in got)
    for acc in found:
        assert acc["num_spec_steps"] is None  # llama.cpp sends no verify-step count


def test_a_server_without_speculation_drafts_nothing(llama: LlamaServers) -> None:
    base = llama.get()
    before = scrape(base)
    got = answers(base)
    assert all(acc is None for acc, _ in got)
    delta = counter_delta(before, scrape(base))
    assert delta is not None and delta.draft_tokens == 0 and delta.accepted == 0
    assert delta.predicted == sum(tokens for _, tokens in got)


def test_props_misreports_the_speculative_type_and_slots_tell_the_truth(
    llama: LlamaServers,
) -> None:
    draft, plain = llama.draft(3), llama.get()
    found = asyncio.run(_probe(draft))
    assert found["/props"] == "ok" and found["/slots"] == "ok"
    assert found["slots_speculative"] == [True]
    assert found["pollution_check"] == "llamacpp:tokens_predicted_total"
    assert "llamacpp:spec_decode_num_draft_tokens_total" in found["spec_counters"]
    assert asyncio.run(_probe(plain))["slots_speculative"] == [False]


async def _probe(base_url: str) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=30) as client:
        return await LlamaCppAdapter().probe(client, base_url)


def test_watch_reads_the_llama_cpp_counters_window_by_window(llama: LlamaServers) -> None:
    """``watch`` on a real llama.cpp server: its counter family (``llamacpp:spec_decode_``, the
    prefix watch takes for an llamacpp expectation) gives windows whose drafted and accepted
    tokens are the counters' deltas, and a healthy server raises no alarm."""
    from specverdict.watch.counter_sources import LlamaCppSource
    from specverdict.watch.detect import Baseline, DetectorConfig
    from specverdict.watch.scrape import Watcher, parse_counters

    base_url = llama.ngram(8)
    prefix = LlamaCppSource.default_prefix
    lines: list[str] = []
    watcher = Watcher(
        [base_url],
        Baseline(mal_lower=1.01, k=8),
        DetectorConfig(min_drafts=1),
        prefix=prefix,
        out=lines.append,
    )
    watcher.poll()
    before = parse_counters(scrape(base_url), prefix)
    got = answers(base_url)
    after = parse_counters(scrape(base_url), prefix)
    events = [e for _, e in watcher.poll()]
    window = watcher.targets[0].state.last_window
    assert window is not None, lines
    assert window.draft_tokens == after.draft_tokens - before.draft_tokens > 0
    assert window.accepted == after.accepted - before.accepted
    assert window.drafts == after.drafts - before.drafts > 0
    assert sum(a["num_draft_tokens"] for a, _ in got if a is not None) == window.draft_tokens
    assert not any(e.kind == "alarm" for e in events), lines


def test_back_to_back_streams_survive_the_connection_it_closes_after_each(
    llama: LlamaServers,
) -> None:
    """llama-server closes the connection after every streamed answer, while its headers offer
    keep-alive (``Keep-Alive: timeout=5, max=100``, no ``Connection: close``). A request sent at
    once on the pooled connection then finds it closed before any answer; the client sends it
    again on a new one. Without that resend about half of these requests failed."""
    base = llama.get()

    async def main() -> tuple[list[StreamedResponse], dict[str, str]]:
        client, session = connections(2)  # the runner's pools, at concurrency 1
        async with client, session:
            url = base + "/v1/completions"
            body = {"model": "reference-target", "prompt": "def f(x):", "max_tokens": 4}
            got = [await stream(session, url, body, timeout_s=60) for _ in range(40)]
        # the headers, read on a new connection
        async with (
            aiohttp.ClientSession() as fresh,
            fresh.post(url, json={**body, "stream": True}) as resp,
        ):
            await resp.read()
            headers = dict(resp.headers)
        return got, headers

    got, headers = asyncio.run(main())
    assert [r.status for r in got] == ["ok"] * 40, [r.error for r in got if r.error]
    assert "close" not in headers.get("Connection", "").lower()  # keep-alive offered...
    assert sum(r.reconnects for r in got) > 0  # ... and the connection closed all the same
