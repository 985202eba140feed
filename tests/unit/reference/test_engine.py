"""Stop rules, applied per token even inside a multi-token speculative step."""

from __future__ import annotations

from specverdict.reference.config import EngineConfig
from specverdict.reference.engine import EngineCore, GenerationRequest, generate
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.weights import shipped
from tests.conftest import make_core

PROMPT = 'def read_lines(path):\n    """Return the lines of the file at path."""\n'
GREEDY = SamplingParams(temperature=0.0)


def request(core: EngineCore, **kw: object) -> GenerationRequest:
    base: dict[str, object] = {
        "request_id": "t",
        "prompt_ids": tuple(core.tokenizer.encode(PROMPT)),
        "max_tokens": 40,
        "sampling": GREEDY,
        "ignore_eos": True,
    }
    return GenerationRequest(**{**base, **kw})  # type: ignore[arg-type]


def text_of(outs: list) -> str:  # type: ignore[type-arg]
    return "".join(o.text for o in outs)


def test_max_tokens_cuts_a_speculative_step_exactly(core_none: EngineCore) -> None:
    core = make_core({"method": "ngram", "num_speculative_tokens": 8, "prompt_lookup_min": 1})
    for n in (1, 5, 13):
        outs = generate(core, request(core, max_tokens=n))
        assert outs[-1].completion_tokens == n
        assert sum(len(o.token_ids) for o in outs) == n
        assert outs[-1].finish_reason == "length"
        assert text_of(outs) == text_of(generate(core_none, request(core_none, max_tokens=n)))


def test_stop_string_truncates_text_and_names_the_string(core_none: EngineCore) -> None:
    full = text_of(generate(core_none, request(core_none)))
    stop = full[len(full) // 2 : len(full) // 2 + 3]
    assert stop.strip(), "the model output should have visible text to stop on"
    outs = generate(core_none, request(core_none, stop=(stop,)))
    assert text_of(outs) == full[: full.find(stop)]
    assert (outs[-1].finish_reason, outs[-1].stop_reason) == ("stop", stop)


def test_streamed_deltas_add_up_to_the_final_text(core_none: EngineCore) -> None:
    core = make_core({"method": "mtp", "num_speculative_tokens": 3})
    outs = generate(core, request(core, max_tokens=60))
    assert text_of(outs) == core.tokenizer.decode([t for o in outs for t in o.token_ids])
    assert text_of(outs) == text_of(generate(core_none, request(core_none, max_tokens=60)))


def test_eos_and_stop_token_ids_follow_vllm_stop_reasons() -> None:
    core = make_core()
    free = [t for o in generate(core, request(core, max_tokens=10)) for t in o.token_ids]
    t = free[3]
    first = free.index(t)
    core.tokenizer.eos_token_id, core.tokenizer.stop_token_ids = t, (t,)
    outs = generate(core, request(core, ignore_eos=False))
    tokens = [x for o in outs for x in o.token_ids]
    assert tokens == free[: first + 1]
    assert (outs[-1].finish_reason, outs[-1].stop_reason) == ("stop", None)
    # A stop token other than the primary EOS is reported by id, as vLLM does.
    core.tokenizer.eos_token_id, core.tokenizer.stop_token_ids = -1, (-1, t)
    outs = generate(core, request(core, ignore_eos=False))
    assert (outs[-1].finish_reason, outs[-1].stop_reason) == ("stop", t)


def test_a_full_context_finishes_with_length() -> None:
    core = EngineCore(
        EngineConfig(model_dir=shipped("target"), served_model_name="t", max_model_len=64)
    )
    ids = tuple(core.tokenizer.encode(PROMPT * 4))[:60]
    outs = generate(core, request(core, prompt_ids=ids, max_tokens=100))
    assert outs[-1].finish_reason == "length"
    assert len(ids) + outs[-1].completion_tokens == 64


def test_a_stop_string_completed_by_the_last_allowed_token_still_wins(
    core_none: EngineCore,
) -> None:
    free = generate(core_none, request(core_none, max_tokens=30))
    ids = [t for o in free for t in o.token_ids]
    tok = core_none.tokenizer
    for n in range(3, 30):
        text = tok.decode(ids[:n])
        stop = text[-3:]
        if stop.strip() and stop not in text[:-1] and not text.endswith("\ufffd"):
            break
    else:
        raise AssertionError("no usable stop string in the greedy output")
    outs = generate(core_none, request(core_none, max_tokens=n, stop=(stop,)))
    assert (outs[-1].finish_reason, outs[-1].stop_reason) == ("stop", stop)
    assert text_of(outs) == text[: -len(stop)]


def test_negative_seeds_are_accepted_and_reproducible() -> None:
    core = make_core({"method": "mtp", "num_speculative_tokens": 2})
    sampled = SamplingParams(temperature=0.9)
    a = generate(core, request(core, sampling=sampled, seed=-5))
    b = generate(core, request(core, sampling=sampled, seed=-5))
    assert text_of(a) == text_of(b)
