"""Stratified seeded selection: the largest-remainder allocation (properties and worked cases),
a dataset's categories kept in proportion, and ``stratify`` in the run identity only when set."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from specverdict.campaign import build_plan, parse_campaign
from specverdict.suites import suite_for
from specverdict.suites.stratify import allocate

CAMPAIGN = """\
name: strata
engine: {{kind: reference}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates: [{{method: mtp, k: 2}}]
stages:
  side:chat: {{dataset: {{path: rows.jsonl, format: chat}}, samples: {samples}}}
"""


@pytest.mark.parametrize(
    ("sizes", "n", "expected"),
    [
        ({"a": 50, "b": 30, "c": 20}, 10, {"a": 5, "b": 3, "c": 2}),
        # quotas 4.2, 2.4, 2.4 -> floors 4, 2, 2; the one left goes to b (tie: larger, then name)
        ({"a": 35, "b": 20, "c": 20}, 9, {"a": 4, "b": 3, "c": 2}),
        # a small category gets its one sample, taken from the most over-quota category
        ({"a": 97, "b": 2, "c": 1}, 3, {"a": 1, "b": 1, "c": 1}),
        ({"a": 97, "b": 2, "c": 1}, 10, {"a": 8, "b": 1, "c": 1}),
        # fewer samples than categories: no minimum, the largest remainders win
        ({"a": 5, "b": 3, "c": 2}, 2, {"a": 1, "b": 1, "c": 0}),
    ],
)
def test_largest_remainder_allocation(
    sizes: dict[str, int], n: int, expected: dict[str, int]
) -> None:
    assert allocate(sizes, n) == expected


@given(
    st.dictionaries(st.text("abcdef", min_size=1, max_size=3), st.integers(1, 60), min_size=1),
    st.data(),
)
def test_allocation_properties(sizes: dict[str, int], data: st.DataObject) -> None:
    total = sum(sizes.values())
    n = data.draw(st.integers(0, total))
    out = allocate(sizes, n)
    assert sum(out.values()) == n and set(out) == set(sizes)
    assert all(0 <= out[c] <= sizes[c] for c in sizes)
    if n >= len(sizes):
        assert all(out[c] >= 1 for c in sizes)
    else:  # without the minimum, each share is its quota rounded down or up
        assert all(abs(out[c] - n * sizes[c] / total) < 1 for c in sizes)
    assert all(out[c] <= math.ceil(n * sizes[c] / total) or out[c] == 1 for c in sizes)


def write_rows(work: Path) -> None:
    counts = {"chat": 30, "code": 15, "math": 4, "rare": 1}
    rows = [
        {"id": f"{c}-{i}", "category": c, "messages": [{"role": "user", "content": f"{c} {i}"}]}
        for c, k in counts.items()
        for i in range(k)
    ]
    (work / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_stratified_selection_keeps_the_categories_proportions(tmp_path: Path) -> None:
    write_rows(tmp_path)
    text = CAMPAIGN.format(samples="{seeded: 10, seed: 3, stratify: category}")
    spec = build_plan(parse_campaign(text, tmp_path / "c.yaml")).runs[0]
    chosen = suite_for(spec).select(spec.samples)
    by_category = Counter(s.labels["category"] for s in chosen)
    # quotas 6, 3, 0.8, 0.2: math gets the one left, rare its minimum one from chat
    assert by_category == {"chat": 5, "code": 3, "math": 1, "rare": 1}
    # seeded: the same seed the same samples, in the suite's order; another seed others
    again = suite_for(spec).select(spec.samples)
    assert [s.id for s in again] == [s.id for s in chosen]
    ids = [s.id for s in suite_for(spec).samples()]
    assert [s.id for s in chosen] == sorted((s.id for s in chosen), key=ids.index)
    other = CAMPAIGN.format(samples="{seeded: 10, seed: 4, stratify: category}")
    spec4 = build_plan(parse_campaign(other, tmp_path / "c.yaml")).runs[0]
    assert {s.id for s in suite_for(spec4).select(spec4.samples)} != {s.id for s in chosen}
    plain = CAMPAIGN.format(samples="{seeded: 10, seed: 3}")
    spec_plain = build_plan(parse_campaign(plain, tmp_path / "c.yaml")).runs[0]
    assert spec_plain.fingerprint != spec.fingerprint


def test_stratify_is_identity_only_when_set(tmp_path: Path) -> None:
    write_rows(tmp_path)
    plain = CAMPAIGN.format(samples="{seeded: 10, seed: 3}")
    spec = build_plan(parse_campaign(plain, tmp_path / "c.yaml")).runs[0]
    # a run planned before stratify existed keeps its fingerprint
    assert spec.identity()["samples"] == {"seeded": 10, "seed": 3}
    text = CAMPAIGN.format(samples="{seeded: 10, seed: 3, stratify: category}")
    stratified = build_plan(parse_campaign(text, tmp_path / "c.yaml")).runs[0]
    assert stratified.identity()["samples"]["stratify"] == "category"


def test_stratifying_samples_without_categories_is_refused(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text(
        "".join(
            json.dumps({"messages": [{"role": "user", "content": str(i)}]}) + "\n" for i in range(5)
        )
    )
    text = CAMPAIGN.format(samples="{seeded: 2, stratify: category}")
    spec = build_plan(parse_campaign(text, tmp_path / "c.yaml")).runs[0]
    with pytest.raises(ValueError, match="samples have no category"):
        suite_for(spec).select(spec.samples)
