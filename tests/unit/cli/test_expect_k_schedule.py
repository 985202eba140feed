"""``specverdict expect --k-schedule``: a prediction per load level from the schedule's k at
that batch size."""

from __future__ import annotations

import json

import pytest

from specverdict.errors import ConfigError
from specverdict.stats.expectation import expected_tokens
from specverdict.verdict.expect import expect_schedule, parse_k_schedule, resolve_inputs
from tests.unit.cli.test_expect_golden import refused, run_main

SCHEDULE = "[[1, 8, 4], [9, 32, 2], [33, 1024, 0]]"


def test_each_level_is_predicted_at_the_schedules_k_there() -> None:
    code, out, err = run_main(
        "expect", "--acceptance", "0.7", "--k-schedule", SCHEDULE, "--concurrency", "1,16,64",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["concurrency"], r["k"]) for r in rows] == [(1, 4), (16, 2), (64, 0)]
    assert rows[0]["expectation"]["expected_accepted_length"] == pytest.approx(
        expected_tokens((0.7,) * 4)
    )
    assert rows[1]["expectation"]["expected_accepted_length"] == pytest.approx(1 + 0.7 + 0.49)
    assert rows[2]["expectation"] is None  # k 0: no speculation


def test_the_text_names_the_level_and_its_k() -> None:
    code, out, _ = run_main("expect", "--acceptance", "0.7", "--k-schedule", SCHEDULE)
    assert code == 0
    # default levels: each range's start
    assert "concurrency 1: the schedule's k is 4" in out
    assert "concurrency 9: the schedule's k is 2" in out
    assert "concurrency 33: the schedule's k is 0: no speculation" in out


def test_per_position_acceptance_is_cut_to_each_levels_k() -> None:
    schedule = parse_k_schedule("[[1, 1, 3], [2, 64, 1]]")
    rows = expect_schedule(
        schedule,
        [1, 4],
        lambda k: resolve_inputs(k=k, per_position=[0.9, 0.5, 0.1][:k]),
    )
    assert [r.expectation.conditional_acceptance for r in rows if r.expectation] == [
        (0.9, 0.5, 0.1),
        (0.9,),
    ]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--k", "3"), "--k-schedule gives k at each load level: drop --k"),
        (("--k-schedule", "[[2, 8, 4]]"), "--k-schedule: range 1 [2, 8, 4]: expected to start"),
        (("--k-schedule", "[1, 2"), "--k-schedule is not JSON"),
        (("--k-schedule", "[[1, 8, 0]]"), "every range has k = 0"),
    ],
)
def test_bad_schedules_are_one_line(args: tuple[str, ...], says: str) -> None:
    base = ("--acceptance", "0.7")
    if "--k-schedule" not in args:
        base += ("--k-schedule", SCHEDULE)
    assert says in refused(*base, *args)


def test_concurrency_needs_a_schedule() -> None:
    assert "--concurrency" in refused("--acceptance", "0.7", "--k", "3", "--concurrency", "4")


def test_parse_refuses_what_is_not_ranges() -> None:
    with pytest.raises(ConfigError, match="expected a list of ranges"):
        parse_k_schedule('{"a": 1}')
