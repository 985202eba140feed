"""Each speculation method the reference server serves, over real HTTP: a short greedy request
is answered with the text of no speculation, with drafts accepted (per-request metrics)."""

from __future__ import annotations

import json

import httpx
import pytest

from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.reference.engine import EngineCore, GenerationRequest, generate
from specverdict.reference.sampling import SamplingParams
from tests.conftest import server_cmd

PROMPTS = [
    "def fibonacci(n):\n",
    "import os\n\n\ndef list_python_files(root):\n",
    "class Stack:\n    def __init__(self):\n",
]
MAX_TOKENS = 32
METHODS = [
    {"method": "suffix"},
    {"method": "medusa"},
    {"method": "dflash"},
    {"method": "eagle3"},
    {"method": "dspark"},
    {"method": "dspark", "enable_adaptive_verification": True},
]


def baseline_text(core: EngineCore, prompt: str) -> str:
    req = GenerationRequest(
        "b", tuple(core.tokenizer.encode(prompt)), MAX_TOKENS, SamplingParams(temperature=0.0)
    )
    return core.tokenizer.decode([t for o in generate(core, req) for t in o.token_ids])


@pytest.mark.parametrize(
    "spec",
    METHODS,
    ids=lambda s: str(s["method"]) + ("-adaptive" if s.get("enable_adaptive_verification") else ""),
)
def test_a_short_request_over_http_is_lossless_with_drafts_accepted(
    spec: dict[str, object], core_none: EngineCore
) -> None:
    config = json.dumps({**spec, "num_speculative_tokens": 4})
    port = free_port()
    cmd = server_cmd(
        port, "--speculative-config", config, "--per-request-spec-decode-metrics", "summary"
    )
    accepted = 0
    with LaunchedServer(cmd, f"http://127.0.0.1:{port}") as server:
        # twice over: a method that remembers earlier responses (suffix) is seen doing so
        for prompt in PROMPTS * 2:
            body = {
                "model": "reference-target",
                "prompt": prompt,
                "max_tokens": MAX_TOKENS,
                "temperature": 0,
            }
            r = httpx.post(server.base_url + "/v1/completions", json=body, timeout=120)
            r.raise_for_status()
            answer = r.json()
            assert answer["choices"][0]["text"] == baseline_text(core_none, prompt)
            metrics = answer["metrics"]["speculative_decoding"]
            assert metrics["num_spec_tokens"] == 4
            accepted += metrics["num_accepted_draft_tokens"]
    assert accepted > 0
