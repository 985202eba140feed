"""Greedy speculation is lossless: every method and k gives the tokens of method ``none``."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from specverdict.reference.engine import EngineCore, GenerationRequest, generate
from specverdict.reference.sampling import SamplingParams
from tests.conftest import make_core

N_PROMPTS = 50
MAX_TOKENS = 24
KS = (1, 2, 4, 8)


def stdlib_prompts(n: int) -> list[str]:
    """Function openings from the standard library: code-shaped, deterministic, no fixture file."""
    root = Path(sysconfig.get_paths()["stdlib"])
    prompts = []
    for path in sorted(root.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        at = text.find("\ndef ")
        if at >= 0:
            prompts.append(text[at + 1 : at + 161])
        if len(prompts) == n:
            break
    assert len(prompts) == n
    return prompts


def run(
    core: EngineCore, prompt: str, temperature: float = 0.0, seed: int | None = None
) -> tuple[list[int], int]:
    req = GenerationRequest(
        "t",
        tuple(core.tokenizer.encode(prompt)),
        MAX_TOKENS,
        SamplingParams(temperature=temperature),
        seed=seed,
    )
    outs = generate(core, req)
    accepted = outs[-1].spec.num_accepted_draft_tokens if outs[-1].spec else 0
    return [t for o in outs for t in o.token_ids], accepted


def run_batch(core: EngineCore, prompts: list[str]) -> tuple[list[list[int]], int]:
    """Every prompt at once, greedy, stepped together as the server's batcher steps them
    (continuous batching: one target forward over all the requests a step): the tokens of each
    and the accepted draft tokens of all."""
    states = [
        core.start(
            GenerationRequest(
                f"t{i}",
                tuple(core.tokenizer.encode(p)),
                MAX_TOKENS,
                SamplingParams(temperature=0.0),
            )
        )
        for i, p in enumerate(prompts)
    ]
    tokens: list[list[int]] = [[] for _ in prompts]
    accepted = 0
    active = list(range(len(states)))
    while active:
        outs = core.step_batch([states[i] for i in active])
        for i, out in zip(active, outs, strict=True):
            assert not isinstance(out, Exception), out
            tokens[i].extend(out.token_ids)
            if states[i].finished and out.spec is not None:
                accepted += out.spec.num_accepted_draft_tokens
        active = [i for i in active if not states[i].finished]
    return tokens, accepted


@pytest.fixture(scope="module")
def prompts() -> list[str]:
    return stdlib_prompts(N_PROMPTS)


@pytest.fixture(scope="module")
def baseline(prompts: list[str], core_none: EngineCore) -> list[list[int]]:
    return [run(core_none, p)[0] for p in prompts]


SPECS = [
    {"method": "ngram", "prompt_lookup_min": 1, "prompt_lookup_max": 4},
    {"method": "suffix"},
    {"method": "draft_model"},
    {"method": "mtp"},
    {"method": "medusa"},
    {"method": "dflash"},
    {"method": "eagle3"},
]
#: methods with one module per draft position draft at most as many as they ship
MAX_K = {"medusa": 4}
CASES = [
    pytest.param(spec, k, id=f"{spec['method']}-{k}")
    for spec in SPECS
    for k in KS
    if k <= MAX_K.get(str(spec["method"]), k)
]
#: DSpark at its shipped checkpoints' k (7 of a block of 8), verifying k drafts or, adaptively,
#: the prefix its confidence pays for at this batch (50 requests: fewer than k)
CASES += [
    pytest.param(
        {"method": "dspark", "enable_adaptive_verification": adaptive},
        k,
        id=f"dspark-{k}{'-adaptive' if adaptive else ''}",
    )
    for adaptive in (False, True)
    for k in (1, 2, 4, 7)
]


@pytest.mark.parametrize(("spec", "k"), CASES)
def test_greedy_output_is_identical_to_no_speculation(
    spec: dict[str, object], k: int, prompts: list[str], baseline: list[list[int]]
) -> None:
    """The baseline decodes each prompt alone; the candidate decodes all of them in one
    continuous batch, so each request's verification shares its steps with others'."""
    core = make_core({**spec, "num_speculative_tokens": k})
    outputs, total_accepted = run_batch(core, prompts)
    for prompt, tokens, expected in zip(prompts, outputs, baseline, strict=True):
        assert tokens == expected, f"{spec['method']} k={k} diverged on {prompt[:40]!r}"
    # The comparison is only meaningful if speculation really happened.
    assert total_accepted > 0


def test_seeded_sampling_is_reproducible() -> None:
    core = make_core({"method": "mtp", "num_speculative_tokens": 3})
    prompt = stdlib_prompts(1)[0]
    assert run(core, prompt, 0.8, seed=7) == run(core, prompt, 0.8, seed=7)
