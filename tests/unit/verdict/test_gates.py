"""The gates as registered units, and the typed figures every reader takes from a reason."""

from __future__ import annotations

import pytest

from specverdict.campaign.spec import RunSpec
from specverdict.records.acceptance import AcceptanceSummary
from specverdict.verdict import judge_pair
from specverdict.verdict.gates import GATES
from specverdict.verdict.model import (
    DecidingFigures,
    DecompositionFigures,
    IdentityFigures,
    NonInferiorityFigures,
    Reason,
)
from tests.unit.verdict.test_judge import GATES as LEVELS
from tests.unit.verdict.test_judge import arm, noisy, samples, specs, twice

__all__ = ["specs"]  # the module fixture, shared with the judge's tests


def test_the_gates_run_once_each_in_an_order_that_feeds_the_later_ones() -> None:
    names = [g.name for g in GATES]
    assert len(names) == len(set(names)) == 13
    at = names.index
    assert at("validity") == 0
    assert at("quality") < at("distribution")  # the distribution may turn quality to reject
    assert at("speed") < at("acceptance")  # the decomposition reads the speed's means
    assert max(at("quality"), at("speed")) < at("futility")


def test_an_adopted_pair_carries_typed_figures_its_readers_take(specs: dict[str, RunSpec]) -> None:
    n = 400
    passed = [i % 2 == 0 for i in range(n)]
    acc = AcceptanceSummary(
        source="per-request", valid=True, drafts=100, draft_tokens=200, accepted=150
    )
    base = twice(specs["none"], n, passed)
    cand = arm(specs["mtp"], samples("c", noisy(n, 0.012, 2), passed), acc=acc)
    v = judge_pair(base, cand, LEVELS)
    assert v.verdict == "ADOPT", [str(r) for r in v.reasons]

    ni = NonInferiorityFigures.of(v.reason("quality.noninferiority"))
    assert ni is not None and ni.margin == LEVELS.margin and ni.lower <= ni.drop <= ni.upper

    dec = DecompositionFigures.of(v.reason("speed.decomposition"))
    assert dec is not None and dec.mal == pytest.approx(2.5)
    assert dec.speedup == pytest.approx(dec.mal / dec.step_cost)

    q = DecidingFigures.of(v.reason("quality.noninferiority"))
    s = DecidingFigures.of(v.reason("speed.tpot"))
    assert q is not None and s is not None
    assert v.p_adopt == max(q.p_value, s.p_value)


def test_identity_figures_name_each_divergent_answer(specs: dict[str, RunSpec]) -> None:
    n = 20
    base = arm(specs["none"], samples("b", noisy(n, 0.02, 1), text="def f(): return 1"))
    cand_records = list(samples("c", noisy(n, 0.01, 2), text="def f(): return 1"))
    cand_records[3] = cand_records[3].model_copy(update={"text": "def f(): return 2"})
    v = judge_pair(base, arm(specs["mtp"], tuple(cand_records)), LEVELS)
    figures = IdentityFigures.of(v.reason("identity"))
    assert figures is not None
    assert figures.share == pytest.approx(19 / 20)
    assert figures.divergences == {"s003": 16}


def test_a_reason_without_the_figures_reads_as_none() -> None:
    bare = Reason(gate="quality.noninferiority", status="inconclusive", message="no signal")
    assert NonInferiorityFigures.of(bare) is None
    assert NonInferiorityFigures.of(None) is None
    partial = Reason(gate="speed.decomposition", status="info", message="", data={"mal": 2.0})
    assert DecompositionFigures.of(partial) is None
