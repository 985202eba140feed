"""The reference engine's k schedule (``num_speculative_tokens_per_batch_size``): each step,
each request drafts the k of the step's batch size (the requests the step runs)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.engine import EngineCore, GenerationRequest, RequestState
from specverdict.reference.options import k_at, k_range, k_schedule_problem
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.server.cli import build_config, parser
from specverdict.reference.weights import shipped

KEY = "num_speculative_tokens_per_batch_size"
SCHEDULE = [[1, 1, 3], [2, 3, 2], [4, 64, 1]]
PROMPT = 'def flatten(items):\n    """Flatten a list of lists into one list."""\n'


def core(schedule: list[list[int]] | None = SCHEDULE, method: str = "mtp") -> EngineCore:
    spec = {"method": method, "num_speculative_tokens": 3}
    if schedule is not None:
        spec[KEY] = schedule  # type: ignore[assignment]
    return EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="t",
            speculative=SpeculativeConfig.model_validate(spec),
        )
    )


def states(c: EngineCore, n: int) -> list[RequestState]:
    ids = tuple(c.tokenizer.encode(PROMPT))
    greedy = SamplingParams(temperature=0.0)
    return [
        c.start(GenerationRequest(f"r{i}", ids, 200, greedy, ignore_eos=True)) for i in range(n)
    ]


def drafted(s: RequestState) -> list[int]:
    assert s.spec is not None
    return s.spec.per_step_drafted


@pytest.mark.parametrize(("n", "k"), [(1, 3), (2, 2), (3, 2), (4, 1), (6, 1)])
def test_each_request_drafts_the_k_of_the_batch_size(n: int, k: int) -> None:
    c = core()
    batch = states(c, n)
    for _ in range(4):  # the prefill, then three verify steps
        c.step_batch(batch)
    assert [drafted(s) for s in batch] == [[k] * 3] * n


def test_a_shrinking_batch_drafts_more_per_request() -> None:
    c = core()
    batch = states(c, 4)
    for _ in range(3):
        c.step_batch(batch)  # prefill + two steps at batch 4: k 1
    c.step_batch(batch[:2])  # batch 2: k 2
    c.step_batch(batch[:1])  # batch 1: k 3
    assert drafted(batch[0]) == [1, 1, 2, 3]
    assert drafted(batch[1]) == [1, 1, 2]
    assert drafted(batch[3]) == [1, 1]
    assert c.batch_sizes == {4: 3, 2: 1, 1: 1}


def test_a_zero_k_range_drafts_nothing_there() -> None:
    c = core([[1, 1, 3], [2, 64, 0]])
    batch = states(c, 2)
    for _ in range(3):
        c.step_batch(batch)
    assert [drafted(s) for s in batch] == [[], []]
    c.step_batch(batch[:1])
    assert drafted(batch[0]) == [3]


def test_without_a_schedule_every_batch_drafts_k() -> None:
    c = core(None)
    batch = states(c, 4)
    for _ in range(3):
        c.step_batch(batch)
    assert [drafted(s) for s in batch] == [[3, 3]] * 4


@pytest.mark.parametrize(
    ("schedule", "says"),
    [
        ([[1, 4, 5]], "a k of 5 is above num_speculative_tokens (3)"),
        ([[2, 4, 1]], "range 1 [2, 4, 1]: expected to start from 1"),
        ([[1, 4, 1], [6, 9, 1]], "expected to start at 5 (contiguous, no overlap)"),
        ([[1, 4, 0]], "every range has k = 0"),
    ],
)
def test_the_server_refuses_a_malformed_schedule(
    schedule: list[list[int]], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = {"method": "mtp", "num_speculative_tokens": 3, KEY: schedule}
    with pytest.raises(ValidationError, match=KEY):
        SpeculativeConfig.model_validate(raw)
    with pytest.raises(SystemExit) as info:
        build_config(parser().parse_args(["--speculative-config", json.dumps(raw)]))
    assert info.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert says in line


def test_the_server_takes_the_key_as_vllm_does() -> None:
    raw = {"method": "ngram", "num_speculative_tokens": 3, KEY: SCHEDULE}
    config = build_config(parser().parse_args(["--speculative-config", json.dumps(raw)]))
    assert config.speculative is not None
    assert [config.speculative.k_for(b) for b in (1, 2, 3, 4, 64, 500)] == [3, 2, 2, 1, 1, 1]


def test_schedule_lookups() -> None:
    assert k_schedule_problem(SCHEDULE) is None
    assert [k_at(SCHEDULE, b) for b in (1, 2, 4, 100)] == [3, 2, 1, 1]
    assert k_range(SCHEDULE, 1) == (3, 3)
    assert k_range(SCHEDULE, 3) == (2, 3)
    assert k_range(SCHEDULE, 16) == (1, 3)
