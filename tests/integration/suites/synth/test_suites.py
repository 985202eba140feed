"""The generated suites score in the sandbox: canonical answers pass, wrong ones fail."""

from __future__ import annotations

import asyncio

import pytest

from specverdict.records import Score
from specverdict.sandbox import Sandbox
from specverdict.suites.registry import get_suite
from specverdict.suites.synth.suites import SynthAgent, SynthFunction, SynthRepository
from tests.integration.suites.agent.conftest import Script, answer, call


@pytest.fixture(scope="module")
def function_suite(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> SynthFunction:
    return SynthFunction(sandbox=sandbox, cache_dir=tmp_path_factory.mktemp("synth-truth"))


def test_registered_with_their_stages() -> None:
    assert get_suite("synth-function@1").stage == "function"
    assert get_suite("synth-agent@2").stage == "agent"
    assert get_suite("synth-repository@2").stage == "repository"


def test_function_canonical_bodies_pass_and_stubs_fail(function_suite: SynthFunction) -> None:
    tasks = function_suite.tasks()[::10]
    samples = {s.id: s for s in function_suite.samples()}
    bodies = [(samples[t.task_id], t.reference[len(t.prompt) :]) for t in tasks]
    good = function_suite.score_many(bodies)
    assert all(s.passed for s in good), [s.detail for s in good if not s.passed][:3]
    stubs = function_suite.score_many([(s, "    return 0\n") for s, _ in bodies])
    assert not any(s.passed for s in stubs)
    nones = function_suite.score_many([(s, "    return None\n") for s, _ in bodies])
    assert not any(s.passed for s in nones)


def play(suite: SynthAgent, sample_id: str, script: Script) -> Score:
    sample = next(s for s in suite.samples() if s.id == sample_id)
    return suite.score_episode(sample, asyncio.run(suite.run_episode(sample, script)))


def test_agent_gold_edit_passes_and_a_wrong_edit_fails(sandbox: Sandbox) -> None:
    suite = SynthAgent(sandbox=sandbox)
    tasks = list(suite.tasks.values())[::12]
    assert tasks  # the checks below ran
    for task in tasks:
        path = next(iter(task.files))
        lines = [
            (a, b)
            for a, b in zip(
                task.files[path].splitlines(), task.gold[path].splitlines(), strict=True
            )
            if a != b
        ]
        assert len(lines) == 1
        old, new = (x.strip() for x in lines[0])
        gold = Script(
            [
                answer("", [call("read_file", {"path": path})]),
                answer("", [call("replace_in_file", {"path": path, "old": old, "new": new})]),
                answer("", [call("run_tests", {})]),
                answer("Fixed."),
            ]
        )
        score = play(suite, task.id, gold)
        assert (score.passed, score.outcome) == (True, "passed"), score.detail
        assert '"trajectory_recall": 1.0' in (score.detail or "")
        idle = play(suite, task.id, Script([answer("", [call("run_tests", {})]), answer("ok")]))
        assert idle.outcome == "no_edit"


def test_agent_suite_offers_only_its_three_tools(sandbox: Sandbox) -> None:
    suite = SynthAgent(sandbox=sandbox)
    sample = suite.samples()[0]
    names = [t["function"]["name"] for t in sample.request_fields()["tools"]]
    assert names == ["read_file", "replace_in_file", "run_tests"]
    score = play(
        suite,
        sample.id,
        Script([answer("", [call("write_file", {"path": "x", "content": ""})]), answer("ok")]),
    )
    assert '"unknown_tools": 1' in (score.detail or "")


def test_repository_gold_patch_resolves_and_a_wrong_one_does_not(sandbox: Sandbox) -> None:
    suite = SynthRepository(sandbox=sandbox)
    tasks = suite.tasks()[::12]
    answers = []
    for t in tasks:
        ((path, old, new),) = t.fix
        answers.append((t.task_id, f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"))
    scores = suite.score_texts(answers)
    assert all(s.passed for s in scores), [s.detail for s in scores if not s.passed][:2]
    wrong = suite.score_texts([(t.task_id, "no patch here") for t in tasks])
    assert not any(s.passed for s in wrong)
