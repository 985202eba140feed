"""The reference server over real HTTP, driven as vLLM is driven.

Formats checked against vLLM's source (v0.33.0):
- responses and stream chunks: ``vllm/entrypoints/openai/completion/serving.py``,
  ``vllm/entrypoints/openai/chat_completion/serving.py``;
- per-request speculation metrics: ``vllm/entrypoints/generate/base/protocol.py``
  (``SpeculativeDecodingMetrics``) and ``vllm/v1/metrics/stats.py`` (``RequestSpecDecodeMetrics``);
- Prometheus names and labels: ``vllm/v1/spec_decode/metrics.py``, ``vllm/v1/metrics/loggers.py``;
- error bodies: ``vllm/entrypoints/serve/engine/protocol.py`` (``ErrorResponse``).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import httpx
import openai
import pytest
from prometheus_client.parser import text_string_to_metric_families

from specverdict.engines.client import stream
from tests.conftest import Servers

MTP = {"method": "mtp", "num_speculative_tokens": 2}
PROMPTS = [
    'def add(a, b):\n    """Return the sum of a and b."""\n',
    'def is_even(n):\n    """Return True if n is even."""\n',
    "import os\n\n\ndef walk(root):\n",
    "class Node:\n    def __init__(self, value):\n",
]


def sdk(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0)


def metrics_samples(base_url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(base_url + "/metrics").text
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def counter(samples: dict, name: str, **labels: str) -> float:  # type: ignore[type-arg]
    return sum(
        v
        for (n, lab), v in samples.items()
        if n == name and all(dict(lab).get(k) == x for k, x in labels.items())
    )


def test_health_version_models(servers: Servers) -> None:
    base = servers.get()
    assert httpx.get(base + "/health").status_code == 200
    assert "version" in httpx.get(base + "/version").json()
    models = sdk(base).models.list()
    assert [m.id for m in models.data] == ["reference-target"]
    assert models.data[0].model_extra is not None
    assert models.data[0].model_extra["max_model_len"] == 1024


def test_openai_sdk_completions_streaming_and_not(servers: Servers) -> None:
    client = sdk(servers.spec(MTP))
    full = client.completions.create(
        model="reference-target", prompt=PROMPTS[0], max_tokens=20, temperature=0.0
    )
    assert full.usage is not None and full.usage.completion_tokens <= 20
    assert full.choices[0].finish_reason in ("stop", "length")
    spec = (full.model_extra or {})["metrics"]["speculative_decoding"]
    assert spec["num_spec_tokens"] == 2
    assert len(spec["acceptance_histogram"]) == 3
    assert spec["per_step_accepted"] is None  # summary mode

    chunks = list(
        client.completions.create(
            model="reference-target",
            prompt=PROMPTS[0],
            max_tokens=20,
            temperature=0.0,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text == full.choices[0].text
    last = chunks[-1]
    assert last.choices == [] and last.usage is not None
    assert last.usage.completion_tokens == full.usage.completion_tokens
    assert (last.model_extra or {})["metrics"]["speculative_decoding"] == {
        k: v for k, v in spec.items() if v is not None
    }


def test_openai_sdk_chat_streaming_and_not(servers: Servers) -> None:
    client = sdk(servers.get())
    messages = [
        {
            "role": "user",
            # the phrasing of the chat exchanges the reference models were trained on
            "content": "Write a Python function `square(x)`. Return x squared.",
        }
    ]
    full = client.chat.completions.create(
        model="reference-target",
        messages=messages,  # type: ignore[arg-type]
        max_tokens=40,
        temperature=0.0,
    )
    assert full.choices[0].message.role == "assistant"
    assert full.choices[0].message.content
    chunks = list(
        client.chat.completions.create(
            model="reference-target",
            messages=messages,
            max_tokens=40,
            temperature=0.0,  # type: ignore[arg-type]
            stream=True,
        )
    )
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == full.choices[0].message.content
    assert chunks[-1].choices[0].finish_reason == full.choices[0].finish_reason


def test_chat_accepts_tools_and_renders_them_into_the_prompt(servers: Servers) -> None:
    client = sdk(servers.get())
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    plain = client.chat.completions.create(
        model="reference-target", messages=messages, max_tokens=4
    )  # type: ignore[arg-type]
    with_tools = client.chat.completions.create(
        model="reference-target",
        messages=messages,  # type: ignore[arg-type]
        tools=tools,
        max_tokens=4,
    )  # type: ignore[arg-type]
    assert plain.usage and with_tools.usage
    assert with_tools.usage.prompt_tokens > plain.usage.prompt_tokens + 20


def test_counter_deltas_equal_the_per_request_acceptance(servers: Servers) -> None:
    base = servers.spec(
        {
            "method": "ngram",
            "num_speculative_tokens": 3,
            "prompt_lookup_min": 1,
            "prompt_lookup_max": 3,
        },
        metrics="detailed",
    )
    before = metrics_samples(base)
    per_request = []
    prompt_tokens = completion_tokens = 0
    for prompt in PROMPTS:
        body = httpx.post(
            base + "/v1/completions",
            json={"prompt": prompt, "max_tokens": 48, "temperature": 0.0, "ignore_eos": True},
            timeout=60,
        ).json()
        per_request.append(body["metrics"]["speculative_decoding"])
        prompt_tokens += body["usage"]["prompt_tokens"]
        completion_tokens += body["usage"]["completion_tokens"]
    after = metrics_samples(base)

    def delta(name: str, **labels: str) -> float:
        return counter(after, name, **labels) - counter(before, name, **labels)

    steps = sum(m["num_spec_steps"] for m in per_request)
    assert steps > 0
    assert delta("vllm:spec_decode_num_drafts_total") == steps
    assert delta("vllm:spec_decode_num_draft_tokens_total") == sum(
        m["num_draft_tokens"] for m in per_request
    )
    assert delta("vllm:spec_decode_num_accepted_tokens_total") == sum(
        m["num_accepted_draft_tokens"] for m in per_request
    )
    for pos in range(3):
        # steps that accepted more than `pos` drafts, from the per-request histograms
        expected = sum(sum(m["acceptance_histogram"][pos + 1 :]) for m in per_request)
        assert (
            delta("vllm:spec_decode_num_accepted_tokens_per_pos_total", position=str(pos))
            == expected
        )
    assert delta("vllm:generation_tokens_total") == completion_tokens
    assert delta("vllm:prompt_tokens_total") == prompt_tokens
    assert delta("vllm:request_success_total") == len(PROMPTS)
    for m in per_request:
        assert m["num_spec_steps"] == len(m["per_step_accepted"]) == sum(m["acceptance_histogram"])
        assert m["mean_acceptance_length"] == pytest.approx(
            1 + m["num_accepted_draft_tokens"] / m["num_spec_steps"]
        )
    labels = {lab for (name, lab) in after if name == "vllm:spec_decode_num_drafts_total"}
    assert labels == {(("engine", "0"), ("model_name", "reference-target"))}


def test_greedy_http_outputs_match_without_speculation_even_when_concurrent(
    servers: Servers,
) -> None:
    plain, spec = servers.get(), servers.spec(MTP)

    async def run(base: str) -> list[str]:
        async with httpx.AsyncClient() as client:
            results = await asyncio.gather(
                *[
                    stream(
                        client,
                        base + "/v1/completions",
                        {"prompt": p, "max_tokens": 32, "temperature": 0.0},
                    )
                    for p in PROMPTS
                ]
            )
        assert all(r.status == "ok" for r in results), [r.error for r in results]
        return [r.text for r in results]

    assert asyncio.run(run(spec)) == asyncio.run(run(plain))


def test_stop_strings_over_http(servers: Servers) -> None:
    base = servers.get()
    free = httpx.post(
        base + "/v1/completions", json={"prompt": PROMPTS[2], "max_tokens": 30, "temperature": 0.0}
    ).json()["choices"][0]["text"]
    stop = free[10:13]
    got = httpx.post(
        base + "/v1/completions",
        json={"prompt": PROMPTS[2], "max_tokens": 30, "temperature": 0.0, "stop": [stop]},
    ).json()
    assert got["choices"][0]["text"] == free[: free.find(stop)]
    assert got["choices"][0]["finish_reason"] == "stop"
    assert got["choices"][0]["stop_reason"] == stop


BAD_REQUESTS = [
    ({"prompt": "x", "max_tokens": 0}, 400, "max_tokens"),
    ({"prompt": "x", "max_tokens": 5000}, 400, "max_tokens"),
    ({"prompt": "x", "max_tokens": -3}, 400, "max_tokens"),
    ({"prompt": "x", "max_tokens": 4, "bogus_field": 1}, 400, "bogus_field"),
    ({"prompt": "x", "temperature": -1}, 400, "temperature"),
    ({"prompt": "x", "n": 2}, 400, "n"),
    ({"prompt": "x", "model": "no-such-model"}, 404, "model"),
    ({"prompt": "def f():\n" * 600, "max_tokens": 4}, 400, "input_tokens"),
    ({"prompt": [99999], "max_tokens": 4}, 400, "prompt"),
    ({"max_tokens": 4}, 400, "prompt"),
]


@pytest.mark.parametrize(("body", "status", "param"), BAD_REQUESTS)
def test_bad_requests_get_an_openai_error_naming_the_field(
    servers: Servers, body: dict[str, object], status: int, param: str
) -> None:
    base = servers.get()
    resp = httpx.post(base + "/v1/completions", json=body)
    assert resp.status_code == status
    err = resp.json()["error"]
    assert err["param"] == param
    assert err["code"] == status
    assert (
        param.split(".", maxsplit=1)[0] in err["message"]
        or status == 404
        or param == "input_tokens"
    )
    assert httpx.get(base + "/health").status_code == 200


def test_odd_but_valid_requests_are_served(servers: Servers) -> None:
    base = servers.get()
    negative_seed = httpx.post(
        base + "/v1/completions", json={"prompt": "x", "max_tokens": 2, "seed": -1}
    )
    assert negative_seed.status_code == 200, negative_seed.text
    null_system = httpx.post(
        base + "/v1/chat/completions",
        json={
            "messages": [{"role": "system", "content": None}, {"role": "user", "content": "hi"}],
            "max_tokens": 2,
        },
    )
    assert null_system.status_code == 200, null_system.text


def test_malformed_json_is_a_400_and_the_server_survives(servers: Servers) -> None:
    base = servers.get()
    resp = httpx.post(
        base + "/v1/chat/completions",
        content=b'{"messages": [',
        headers={"content-type": "application/json"},
    )
    assert resp.status_code == 400
    assert "JSON" in resp.json()["error"]["message"]
    bad_role = httpx.post(
        base + "/v1/chat/completions", json={"messages": [{"role": "robot", "content": "x"}]}
    )
    assert bad_role.status_code == 400
    assert bad_role.json()["error"]["param"] == "messages.0.role"
    assert httpx.get(base + "/health").status_code == 200


@pytest.mark.parametrize(
    ("flags", "needle"),
    [
        (["--speculative-config", "{not json"], "--speculative-config is not valid JSON"),
        (
            ["--speculative-config", '{"method": "mtp", "num_speculative_tokens": 2, "k": 3}'],
            "--speculative-config.k: unknown key",
        ),
        (
            ["--speculative-config", '{"method": "mtp", "num_speculative_tokens": 0}'],
            "--speculative-config.num_speculative_tokens",
        ),
        (
            ["--speculative-config", '{"method": "eagle", "num_speculative_tokens": 2}'],
            "--speculative-config.method",
        ),
        (
            [
                "--speculative-config",
                '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, '
                '"prompt_lookup_max": 2}',
            ],
            "prompt_lookup_min (4) must be <= prompt_lookup_max (2)",
        ),
        (["--port", "abc"], "--port"),
        (["--model", "/nonexistent"], "--model /nonexistent"),
        (["--no-such-flag"], "--no-such-flag"),
    ],
)
def test_invalid_launch_flags_exit_2_with_one_line(flags: list[str], needle: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "specverdict.reference.server.cli", *flags],
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert needle in lines[0]


def test_streaming_chunks_follow_vllm_shapes(servers: Servers) -> None:
    base = servers.spec(MTP)
    with httpx.stream(
        "POST",
        base + "/v1/chat/completions",
        json={
            "messages": [{"role": "user", "content": "hi"}],
            "max_tokens": 8,
            "stream": True,
            "stream_options": {"include_usage": True},
        },
    ) as resp:
        lines = [ln for ln in resp.iter_lines() if ln]
    assert lines[-1] == "data: [DONE]"
    chunks = [json.loads(ln[len("data: ") :]) for ln in lines[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    usage = chunks[-1]
    assert usage["choices"] == []
    assert set(usage["usage"]) == {"prompt_tokens", "total_tokens", "completion_tokens"}
    assert "speculative_decoding" in usage["metrics"]
    finish = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert len(finish) == 1


def test_a_client_that_gives_up_aborts_its_request(servers: Servers) -> None:
    base = servers.get()

    def aborted() -> float:
        return counter(metrics_samples(base), "vllm:request_success_total", finished_reason="abort")

    before = aborted()
    with pytest.raises(httpx.TimeoutException):
        httpx.post(
            base + "/v1/completions",
            json={"prompt": "import os\n", "max_tokens": 1000, "ignore_eos": True},
            timeout=0.3,
        )
    deadline = time.monotonic() + 30
    while aborted() == before and time.monotonic() < deadline:
        time.sleep(0.05)  # polling the server's own counter, not waiting for a fixed time
    assert aborted() == before + 1


def test_prefix_cache_counters_count_tokens_as_vllm_does(servers: Servers) -> None:
    """``vllm:prefix_cache_queries`` and ``vllm:prefix_cache_hits`` count tokens (vLLM 0.32's
    help texts); a prompt that repeats an earlier one and goes on hits its whole blocks, and
    ``--no-enable-prefix-caching`` hits nothing."""
    prompt = "import os\n\n\n" + "def f(x):\n    return x + 1\n\n\n" * 6
    for flags, hits in (((), True), (("--no-enable-prefix-caching",), False)):
        base = servers.get(*flags)
        before = metrics_samples(base)
        with sdk(base) as client:
            for text in (prompt, prompt + "def g(y):\n"):
                client.completions.create(
                    model="reference-target", prompt=text, max_tokens=4, temperature=0.0
                )
        after = metrics_samples(base)
        queried = counter(after, "vllm:prefix_cache_queries_total") - counter(
            before, "vllm:prefix_cache_queries_total"
        )
        hit = counter(after, "vllm:prefix_cache_hits_total") - counter(
            before, "vllm:prefix_cache_hits_total"
        )
        prompt_tokens = counter(after, "vllm:prompt_tokens_total") - counter(
            before, "vllm:prompt_tokens_total"
        )
        if hits:
            assert queried == prompt_tokens > 0  # every prompt token is queried
            assert hit > 0 and hit % 16 == 0 and hit < queried / 2 + 16
        else:
            assert hit == 0
