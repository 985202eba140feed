"""The canonical per-request acceptance with per-step arrays: what the adapters keep, what
``RequestAcceptance`` refuses, and records stored before the arrays existed."""

from __future__ import annotations

import pytest

from specverdict.records import RequestAcceptance, SampleRecord
from specverdict.records.acceptance import canonical_acceptance

#: the fields of vLLM's SpeculativeDecodingMetrics at the detailed level, as a server sends them
DETAILED = {
    "mean_acceptance_length": 2.0,
    "draft_acceptance_rate": 0.5,
    "acceptance_histogram": [1, 0, 1],
    "num_spec_steps": 2,
    "num_accepted_draft_tokens": 2,
    "num_draft_tokens": 4,
    "num_spec_tokens": 2,
    "per_step_accepted": [0, 2],
    "per_step_drafted": [2, 2],
}


def canonical(raw: dict[str, object]) -> dict[str, object] | None:
    return canonical_acceptance(
        raw,
        raw["num_draft_tokens"],
        raw["num_accepted_draft_tokens"],
        raw.get("num_spec_steps"),
        raw.get("acceptance_histogram"),
        raw.get("per_step_accepted"),
        raw.get("per_step_drafted"),
    )


def sample(acceptance: dict[str, object] | None) -> SampleRecord:
    return SampleRecord.model_validate(
        {"run_id": "r", "sample_id": "s", "status": "ok", "acceptance": acceptance}
    )


def test_the_arrays_are_lifted_into_their_fields_and_stored_once() -> None:
    acc = canonical(DETAILED)
    assert acc is not None
    assert acc["per_step_accepted"] == [0, 2] and acc["per_step_drafted"] == [2, 2]
    raw = acc["raw"]
    assert isinstance(raw, dict)
    assert "per_step_accepted" not in raw and "per_step_drafted" not in raw
    assert raw["num_spec_tokens"] == 2  # the rest of the engine's fields as they came
    parsed = RequestAcceptance.parse(sample(acc))
    assert parsed.per_step_accepted == (0, 2) and parsed.per_step_drafted == (2, 2)


@pytest.mark.parametrize(
    ("accepted", "drafted"),
    [
        ([0, 2], [2]),  # not one length
        ([3], [2]),  # a step accepting more than it drafted
        ([0, -1], [2, 2]),  # not counts
        ([0, 2], None),  # one array without the other
        ("0,2", "2,2"),
    ],
)
def test_malformed_arrays_are_left_in_raw_as_they_came(accepted: object, drafted: object) -> None:
    raw = {**DETAILED, "per_step_accepted": accepted, "per_step_drafted": drafted}
    acc = canonical(raw)
    assert acc is not None
    assert "per_step_accepted" not in acc and "per_step_drafted" not in acc
    assert acc["raw"] == raw
    parsed = RequestAcceptance.parse(sample(acc))
    assert parsed.per_step_accepted is None and parsed.num_accepted_draft_tokens == 2


def test_the_summary_level_has_no_per_step_fields() -> None:
    summary = {k: v for k, v in DETAILED.items() if not k.startswith("per_step")}
    acc = canonical(summary)
    assert acc is not None and set(acc) == {
        "num_draft_tokens",
        "num_accepted_draft_tokens",
        "num_spec_steps",
        "acceptance_histogram",
        "raw",
    }


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"per_step_accepted": [1, 0]}, "come together"),
        ({"per_step_accepted": [1], "per_step_drafted": [1, 1]}, "arrays of 1 and 2 steps"),
        ({"per_step_accepted": [0, 2], "per_step_drafted": [1, 1]}, "step 1 accepted 2 of 1"),
    ],
)
def test_a_stored_record_with_inconsistent_arrays_is_refused_by_name(
    fields: dict[str, object], message: str
) -> None:
    bad = sample({"num_draft_tokens": 2, "num_accepted_draft_tokens": 1, **fields})
    with pytest.raises(ValueError, match=message) as err:
        RequestAcceptance.parse(bad)
    assert "sample s: acceptance" in str(err.value)


def test_a_record_stored_before_the_per_step_fields_reads_with_none() -> None:
    old = sample(
        {
            "num_draft_tokens": 4,
            "num_accepted_draft_tokens": 2,
            "num_spec_steps": 2,
            "acceptance_histogram": [1, 0, 1],
            "raw": {"per_step_accepted": [0, 2], "per_step_drafted": [2, 2]},
        }
    )
    parsed = RequestAcceptance.parse(SampleRecord.model_validate_json(old.model_dump_json()))
    assert parsed.per_step_accepted is None and parsed.per_step_drafted is None
    assert parsed.num_spec_steps == 2
