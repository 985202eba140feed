"""A sample's extra is typed where the harness reads it and open where it does not: records
stored before it was typed read the same, keys nobody declared survive a round trip, and what
is stored holds only what was observed."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from specverdict.records import SampleExtra, SampleRecord

OLD = {
    "run_id": "r",
    "sample_id": "s",
    "status": "ok",
    "extra": {
        "clock": "device",
        "device_span_s": [1.5, 2.25],
        "block": 3,
        "counted_tokens": 17,
        "token_ids": [1, 2, 3],  # a key no reader declares: kept as it was
        "tool_calls": [{"name": "run_tests", "arguments": "{}"}],
        "episode": {
            "end": "context",
            "turns": 2,  # the suite's own counts ride along
            "wall_s": 2.0,
            "turn_timings": [
                {"status": "ok", "ttft_s": 0.2, "completion_tokens": 5, "tool_calls": 1},
                {"status": "timeout", "ttft_s": None},
            ],
        },
    },
}


def test_a_stored_extra_reads_typed_and_keeps_what_it_does_not_declare() -> None:
    record = SampleRecord.model_validate_json(json.dumps(OLD))
    extra = record.extra
    assert (record.clock, record.device_span_s) == ("device", (1.5, 2.25))
    assert (extra.block, extra.counted_tokens) == (3, 17)
    assert extra.tool_calls == ({"name": "run_tests", "arguments": "{}"},)
    assert extra.episode is not None and extra.episode.end == "context"
    assert [t.status for t in extra.episode.turn_timings] == ["ok", "timeout"]
    assert extra.episode.turn_timings[0].tool_calls == 1
    stored = json.loads(record.model_dump_json())["extra"]
    assert stored["token_ids"] == [1, 2, 3] and stored["episode"]["turns"] == 2
    # written back, it reads the same
    assert SampleRecord.model_validate_json(record.model_dump_json()) == record


def test_what_is_stored_is_what_was_observed() -> None:
    record = SampleRecord(run_id="r", sample_id="s", status="ok")
    assert record.clock == "host" and record.device_span_s is None
    assert json.loads(record.model_dump_json())["extra"] == {}
    blocked = record.model_copy(update={"extra": record.extra.model_copy(update={"block": 0})})
    assert json.loads(blocked.model_dump_json())["extra"] == {"block": 0}


@pytest.mark.parametrize(
    "bad", [{"block": "first"}, {"device_span_s": [1.0]}, {"clock": "wall"}, {"episode": []}]
)
def test_a_declared_field_of_the_wrong_type_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        SampleExtra.model_validate(bad)
