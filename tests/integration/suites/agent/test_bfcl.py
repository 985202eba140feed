"""bfcl@1: the wheel's data, the tools conversion, the AST checker's classes, and the plain
runner path against the reference engine."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.errors import ConfigError
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.suites.agent.bfcl import Bfcl, BfclItem, judge, openai_name
from tests.conftest import campaign_yaml
from tests.integration.suites.agent.conftest import call


@pytest.fixture(scope="module")
def bfcl() -> Bfcl:
    suite = Bfcl()
    try:
        suite.items()
    except ConfigError as exc:
        pytest.skip(str(exc))
    return suite


def _gold_value(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _gold_value(next(o for o in opts if o != ""))
            for k, opts in value.items()
            if "" not in opts
        }
    return value


def gold(item: BfclItem) -> list[dict[str, Any]]:
    """Each expected call with the first accepted value of every parameter the answer needs
    (optional ones, which accept ``""``, left out unless the schema requires them), in reverse
    order: order must not matter."""
    out = []
    schemas = {f["name"]: f["parameters"] for f in item.functions}
    for n, answer in enumerate(item.answers):
        name = next(iter(answer))
        required = schemas[name].get("required", [])
        args = {
            p: _gold_value(next(x for x in v if x != ""))
            for p, v in answer[name].items()
            if "" not in v or p in required
        }
        out.append(call(openai_name(name), args, n))
    return out[::-1]


def test_the_five_categories_are_read_from_the_wheel(bfcl: Bfcl) -> None:
    counts = Counter(i.category for i in bfcl.items().values())
    assert counts == {
        "simple": 400,
        "multiple": 200,
        "parallel": 200,
        "parallel_multiple": 200,
        "irrelevance": 240,
    }
    assert bfcl.stage == "agent" and "Apache-2.0" in bfcl.licence


def test_tools_are_openai_tools(bfcl: Bfcl) -> None:
    sample = next(s for s in bfcl.samples() if s.id == "parallel_multiple_0")
    tools = sample.request_fields()["tools"]
    assert [t["function"]["name"] for t in tools] == [
        "math_toolkit_sum_of_multiples",
        "math_toolkit_product_of_primes",
    ]
    params = tools[0]["function"]["parameters"]
    assert params["type"] == "object" and params["required"] == [
        "lower_limit",
        "upper_limit",
        "multiples",
    ]
    assert params["properties"]["multiples"] == {
        "type": "array",
        "items": {"type": "integer"},
        "description": "The numbers to find multiples of.",
    }
    assert sample.messages is not None and sample.messages[0]["role"] == "user"


def test_gold_answers_pass_and_silence_fails(bfcl: Bfcl) -> None:
    items = bfcl.items().values()
    assert items  # the checks below ran
    for item in items:
        if item.category == "irrelevance":
            assert judge(item, []).passed
            bad = call(openai_name(item.functions[0]["name"]), {}, 0)
            assert judge(item, [bad]).outcome == "irrelevance_error:decoder_success"
            continue
        score = judge(item, gold(item))
        assert score.passed, (item.id, score)
        assert judge(item, []).outcome == "ast_decoder:decoder_failed"


@pytest.mark.parametrize(
    ("args", "outcome"),
    [
        ({"base": 10, "height": 5}, "passed"),
        ({"base": 10, "height": 5, "unit": "units"}, "passed"),
        ({"base": 10}, "simple_function_checker:missing_required"),
        ({"base": 10, "height": 5, "colour": "red"}, "simple_function_checker:unexpected_param"),
        ({"base": "10", "height": 5}, "type_error:simple"),
        ({"base": 10.5, "height": 5}, "type_error:simple"),
        ({"base": 11, "height": 5}, "value_error:others"),
        ({"base": 10, "height": 5, "unit": "cm"}, "value_error:string"),
    ],
)
def test_simple_checker_classes(bfcl: Bfcl, args: dict[str, Any], outcome: str) -> None:
    item = bfcl.items()["simple_python_0"]
    assert judge(item, [call("calculate_triangle_area", args)]).outcome == outcome


def test_name_count_decode_and_parallel_classes(bfcl: Bfcl) -> None:
    items = bfcl.items()
    simple = items["simple_python_0"]
    ok = {"base": 10, "height": 5}
    assert judge(simple, [call("area", ok)]).outcome == "simple_function_checker:wrong_func_name"
    two = [call("calculate_triangle_area", ok, 0), call("calculate_triangle_area", ok, 1)]
    assert judge(simple, two).outcome == "simple_function_checker:wrong_count"
    assert judge(simple, [call("calculate_triangle_area", '{"base": 10,')]).outcome == (
        "ast_decoder:decoder_failed"
    )
    multiple = next(i for i in items.values() if i.category == "multiple")
    twice = [{**c, "index": n} for n, c in enumerate([*gold(multiple), *gold(multiple)])]
    assert judge(multiple, twice).outcome == ("multiple_function_checker:wrong_count")
    pm = items["parallel_multiple_0"]
    sums = {"lower_limit": 1, "upper_limit": 1000, "multiples": [3, 5]}
    primes = {"count": 5}
    assert judge(
        pm,
        [
            call("math_toolkit_product_of_primes", primes, 0),
            call("math_toolkit_sum_of_multiples", sums, 1),
        ],
    ).passed
    wrong = {**sums, "multiples": [3, 7]}
    assert judge(
        pm,
        [
            call("math_toolkit_sum_of_multiples", wrong, 0),
            call("math_toolkit_product_of_primes", primes, 1),
        ],
    ).outcome == ("parallel_function_checker_no_order:cannot_find_match")
    assert judge(pm, [call("math_toolkit_product_of_primes", primes)]).outcome == (
        "parallel_function_checker_no_order:wrong_count"
    )
    nested = {**sums, "multiples": ["3", "5"]}
    assert judge(
        pm,
        [
            call("math_toolkit_sum_of_multiples", nested, 0),
            call("math_toolkit_product_of_primes", primes, 1),
        ],
    ).outcome == ("parallel_function_checker_no_order:cannot_find_match")


def test_nested_type_and_list_value_and_missing_optional(bfcl: Bfcl) -> None:
    item = bfcl.items()["simple_python_307"]  # teams: list of strings; venue optional
    base = {"teams": ["Lakers", "Clippers"], "date": "2021-01-28"}
    assert judge(item, [call("game_result_get_winner", base)]).passed
    assert judge(item, [call("game_result_get_winner", {**base, "teams": [1, 2]})]).outcome == (
        "type_error:nested"
    )
    assert judge(
        item, [call("game_result_get_winner", {**base, "teams": ["Heat", "Nets"]})]
    ).outcome == ("value_error:list/tuple")
    # strings compare without case, spaces and ",./-_*^": a reformatted date still matches
    assert judge(item, [call("game_result_get_winner", {**base, "date": "Jan 28, 2021"})]).passed
    needs = next(
        i
        for i in bfcl.items().values()
        if i.category == "simple"
        and any(
            p not in f["parameters"].get("required", []) and "" not in v
            for f in i.functions
            for p, v in i.answers[0][f["name"]].items()
        )
    )
    name = next(iter(needs.answers[0]))
    required = needs.functions[0]["parameters"].get("required", [])
    args = {p: v[0] for p, v in needs.answers[0][name].items() if p in required}
    assert judge(needs, [call(openai_name(name), args)]).outcome == (
        "simple_function_checker:missing_optional"
    )


CAMPAIGN = campaign_yaml(
    "bfcl-e2e",
    samples={"ids": ["simple_python_0", "parallel_0", "irrelevance_0"]},
    max_tokens=24,
    concurrency=[2],
    warmup=0,
    baseline_repeats=None,
)


def test_plain_runner_path_against_the_reference_engine(
    bfcl: Bfcl, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("specverdict.run.runner.suite_for", lambda spec: bfcl)
    plan = build_plan(parse_campaign(CAMPAIGN, Path("bfcl-e2e.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    run = Runner(store, log=lambda _: None).run_one(plan, plan.runs[1], 0)
    assert run.status == "completed"
    records = {r.sample_id: r for r in store.samples(run.run_id)}
    assert set(records) == {"simple_python_0", "parallel_0", "irrelevance_0"}
    for record in records.values():
        assert record.status == "ok" and record.score is not None
        assert record.acceptance is not None
    # the reference model answers in text: no decodable call, except where none is wanted
    irrelevance = records["irrelevance_0"].score
    assert irrelevance is not None
    assert irrelevance.passed is (not records["irrelevance_0"].extra.tool_calls)
    for sid in ("simple_python_0", "parallel_0"):
        score = records[sid].score
        assert score is not None
        assert score.outcome == "passed" or score.outcome.split(":")[0] in {
            "ast_decoder",
            "simple_function_checker",
            "parallel_function_checker_no_order",
            "type_error",
            "value_error",
        }, json.dumps(score.model_dump())
