"""Choosing runs: ``--only`` keeps a stage or a speculation with the baselines it needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import Plan, build_plan, parse_campaign
from specverdict.errors import ConfigError
from specverdict.run.runner import select_runs
from tests.integration.campaign.test_campaign import BASE


@pytest.fixture(scope="module")
def plan() -> Plan:
    return build_plan(parse_campaign(BASE, Path("c.yaml")))


def test_only_a_method_keeps_its_runs_and_their_baselines(plan: Plan) -> None:
    runs = select_runs(plan, "mtp")
    labels = sorted({r.speculation.label for r in runs})
    assert labels == ["mtp k=1", "mtp k=2", "mtp k=3", "none"]
    assert len(runs) == 4 * 2 * 2  # 3 mtp + 1 baseline, 2 stages, 2 load levels


def test_only_a_stage_or_an_exact_label(plan: Plan) -> None:
    assert {r.stage for r in select_runs(plan, "agent")} == {"agent"}
    exact = select_runs(plan, "eagle3 k=3")
    assert sorted({r.speculation.label for r in exact}) == ["eagle3 k=3", "none"]


def test_an_unmatched_name_lists_what_exists(plan: Plan) -> None:
    with pytest.raises(ConfigError, match=r"--only 'medusa' matches no run; try one of: .*mtp k=1"):
        select_runs(plan, "medusa")
