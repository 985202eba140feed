"""Ground truth: the reference run in the sandbox once, cached on disk by suite version and
seed, and reused by later suites without touching the sandbox."""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from specverdict.sandbox import ExecResult, Execution, Sandbox
from specverdict.suites.function.amplify import AmplifyConfig
from specverdict.suites.function.groundtruth import (
    BuildPolicy,
    GroundTruthError,
    TruthStore,
    truth_directory,
)
from specverdict.suites.function.humaneval import HumanEval
from specverdict.suites.function.task import FunctionTask

SQUARE = FunctionTask(
    task_id="t/square",
    prompt="def square(x):\n",
    entry_point="square",
    reference="def square(x):\n    return x * x\n",
    base_inputs=((2,), (-3,), (10,)),
)


class Counting(Sandbox):
    isolation = "counting wrapper"

    def __init__(self, inner: Sandbox) -> None:
        self.inner = inner
        self.runs = 0

    def run(self, execution: Execution) -> ExecResult:
        self.runs += 1
        return self.inner.run(execution)

    def run_many(self, executions: Sequence[Execution], workers: int = 2) -> list[ExecResult]:
        self.runs += len(executions)
        return self.inner.run_many(executions, workers)


def test_built_once_then_read_from_disk(sandbox: Sandbox, tmp_path: Path) -> None:
    counting = Counting(sandbox)
    store = TruthStore(counting, "fam-v1", AmplifyConfig(seed=0, count=20, generator=6), tmp_path)
    truth = store.get(SQUARE)
    assert counting.runs == 1
    assert [c.expected for c in truth.base] == [4, 9, 100]
    assert all(c.expected == c.args[0] ** 2 for c in truth.plus)
    assert 0 < len(truth.plus) <= 20
    assert store.path(SQUARE).exists()
    again = TruthStore(counting, "fam-v1", AmplifyConfig(seed=0, count=20, generator=6), tmp_path)
    assert again.get(SQUARE) == truth
    assert counting.runs == 1  # read from disk
    other_seed = TruthStore(
        counting, "fam-v1", AmplifyConfig(seed=1, count=20, generator=6), tmp_path
    )
    assert other_seed.directory != store.directory
    assert [c.args for c in other_seed.get(SQUARE).plus] != [c.args for c in truth.plus]
    assert counting.runs == 2


def test_cache_key_names_family_seed_and_versions(tmp_path: Path) -> None:
    path = truth_directory("humaneval-v1", AmplifyConfig(seed=7), tmp_path)
    assert path.parent == tmp_path / "groundtruth"
    assert path.name.startswith("humaneval-v1-seed7-n100-amp")
    assert truth_directory("x-v1", None, tmp_path).name.startswith("x-v1-given-")


def test_a_reference_failing_a_base_input_is_an_error(sandbox: Sandbox, tmp_path: Path) -> None:
    broken = FunctionTask(
        task_id="t/broken",
        prompt="",
        entry_point="inv",
        reference="def inv(x):\n    return 1 / x\n",
        base_inputs=((1,), (0,)),
    )
    store = TruthStore(sandbox, "fam-v1", None, tmp_path)
    with pytest.raises(GroundTruthError, match="base input 1"):
        store.get(broken)


def test_extra_inputs_the_reference_fails_on_are_dropped(sandbox: Sandbox, tmp_path: Path) -> None:
    task = FunctionTask(
        task_id="t/inv",
        prompt="",
        entry_point="inv",
        reference="def inv(x):\n    if x == 7:\n        while True: pass\n    return 1 / x\n",
        base_inputs=((1,), (2,)),
        plus_inputs=((0,), (4,), (7,), (5,)),
    )
    policy = BuildPolicy(base_cap_s=1.0)
    truth = TruthStore(sandbox, "fam-v1", None, tmp_path, policy=policy).get(task)
    assert [c.args for c in truth.plus] == [(4,), (5,)]
    assert truth.dropped == 2


def test_recorded_inputs_are_deterministic(sandbox: Sandbox, tmp_path: Path) -> None:
    first = HumanEval(sandbox=sandbox, cache_dir=tmp_path / "a").prepare(["HumanEval/53"])
    second = HumanEval(sandbox=sandbox, cache_dir=tmp_path / "b").prepare(["HumanEval/53"])
    base = first["HumanEval/53"].base
    assert len(base) > 50  # five literal calls and a hundred random ones (deduplicated)
    assert [(c.args, c.expected) for c in base] == [
        (c.args, c.expected) for c in second["HumanEval/53"].base
    ]
    assert all(c.expected == c.args[0] + c.args[1] for c in base)
    files = list((tmp_path / "a").rglob("HumanEval_53-*.json.gz"))
    assert len(files) == 1
    assert json.loads(gzip.decompress(files[0].read_bytes()))["task_id"] == "HumanEval/53"


DYING = FunctionTask(
    task_id="t/dying",
    prompt="def double(n):\n",
    entry_point="double",
    reference=(
        "import os\n\ndef double(n):\n    if n == 5:\n        os._exit(3)  # the process ends\n"
        "    return 2 * n\n"
    ),
    base_inputs=((1,), (2,), (3,), (8,)),
)


def test_generator_eight_goes_on_past_an_input_the_reference_does_not_survive(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    def kept(generator: int) -> list[tuple[int, ...]]:
        config = AmplifyConfig(seed=0, count=30, generator=generator)
        return [c.args for c in TruthStore(sandbox, "fam-v1", config, tmp_path).get(DYING).plus]

    seven, eight = kept(7), kept(8)
    assert seven == []  # the process ended at 5: no input after it has its second run
    assert len(eight) >= 20 and (5,) not in eight
    assert all(type(a[0]) is int for a in eight)


SLOW_WHEN_LONG = FunctionTask(
    task_id="t/slow",
    prompt="def total(xs):\n",
    entry_point="total",
    reference=(
        "import time\n\ndef total(xs):\n    if len(xs) > 5000:\n"
        "        time.sleep(0.3)  # work the line events do not count\n    return sum(xs)\n"
    ),
    base_inputs=(([1, 2, 3],), ([4, 5],), ([6, 7, 8, 9],)),
)


def test_generator_eight_drops_grown_inputs_the_reference_is_slow_on(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    def longest(generator: int) -> int:
        config = AmplifyConfig(seed=0, count=20, generator=generator)
        truth = TruthStore(sandbox, "fam-v1", config, tmp_path).get(SLOW_WHEN_LONG)
        return max(len(c.args[0]) for c in truth.plus)

    assert longest(7) > 5000  # 0.3 s is within the half second every extra input has
    assert longest(8) <= 5000  # a grown input must take at most grown_cap_s
