"""``specverdict validate`` on a candidate's k schedule: exit 2 and one line for a malformed
schedule or an engine without the key, exit 0 for a good one on vLLM."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.cli.test_expect_golden import run_main

CAMPAIGN = """\
name: t
engine: {{kind: {kind}, launch: {{}}}}
model: {{family: f, served_name: m}}
quantization: bf16
candidates:
  - {{method: eagle3, draft: d, k_schedule: {schedule}}}
stages:
  function: {{suite: builtin-code@1, samples: {{first: 2}}}}
"""
GOOD = "[[1, 8, 4], [9, 32, 2], [33, 1024, 1]]"


@pytest.mark.parametrize(
    ("kind", "schedule", "says"),
    [
        ("vllm", "[[1, 8, 4], [10, 32, 2]]", "candidates[0].k_schedule: Value error, range 2"),
        ("sglang", GOOD, "k_schedule: engine 'sglang' cannot run a k schedule: SGLang has no k"),
        ("llamacpp", GOOD, "k_schedule: engine 'llamacpp' cannot run a k schedule"),
    ],
)
def test_a_refused_schedule_exits_2_in_one_line(
    kind: str, schedule: str, says: str, tmp_path: Path
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CAMPAIGN.format(kind=kind, schedule=schedule))
    code, _, err = run_main("validate", str(path))
    assert code == 2, err
    (line,) = err.strip().splitlines()
    assert says in line


def test_a_good_schedule_on_vllm_validates(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CAMPAIGN.format(kind="vllm", schedule=GOOD))
    code, out, err = run_main("validate", str(path))
    assert code == 0, err
    assert "eagle3 k=4/2/1@8,32,1024" in out
