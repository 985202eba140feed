"""Every agent task: its gold trajectory passes, doing nothing or breaking the code fails."""

from __future__ import annotations

import asyncio

import pytest

from specverdict.records import Score
from specverdict.sandbox import Sandbox
from specverdict.suites.agent import AgentTasks
from specverdict.suites.agent.tasks import TASKS, AgentTask
from tests.integration.suites.agent.conftest import Script, answer, call


@pytest.fixture(scope="module")
def suite(sandbox: Sandbox) -> AgentTasks:
    return AgentTasks(sandbox=sandbox)


def gold_script(task: AgentTask) -> Script:
    """The reference trajectory with the gold content written."""
    turns = []
    for step in task.trajectory:
        if step.tool == "write_file":
            assert step.path is not None
            args = {"path": step.path, "content": task.gold[step.path]}
        elif step.tool == "search":
            args = {"text": "def "}
        elif step.tool == "run_tests":
            args = {}
        else:
            args = {"path": step.path or ""}
        turns.append(answer("", [call(step.tool, args)]))
    return Script([*turns, answer("Done.")])


def play(suite: AgentTasks, task: AgentTask, script: Script) -> Score:
    sample = next(s for s in suite.samples() if s.id == task.id)
    return suite.score_episode(sample, asyncio.run(suite.run_episode(sample, script)))


def test_the_suite_has_twenty_tasks_or_more(suite: AgentTasks) -> None:
    ids = [s.id for s in suite.samples()]
    assert len(ids) >= 20 and len(set(ids)) == len(ids)
    assert suite.stage == "agent" and f"{suite.name}@{suite.version}" == "agent-tasks@1"
    assert all(s.request_fields()["tools"] for s in suite.samples())


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_gold_trajectory_passes(suite: AgentTasks, task: AgentTask) -> None:
    score = play(suite, task, gold_script(task))
    assert (score.passed, score.outcome) == (True, "passed"), score.detail
    assert '"trajectory_recall": 1.0' in (score.detail or "")
    assert '"off_reference": 0' in (score.detail or "")


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_known_bad_answers_fail(suite: AgentTasks, task: AgentTask) -> None:
    assert play(suite, task, Script([answer("Looks fine to me.")])).outcome == "no_edit"
    path = next(iter(task.gold))
    broken = Script(
        [answer("", [call("write_file", {"path": path, "content": "def (:\n"})]), answer("Done.")]
    )
    score = play(suite, task, broken)
    assert (score.passed, score.outcome) == (False, "tests_failed")


def test_a_module_that_exits_at_import_does_not_pass(suite: AgentTasks) -> None:
    task = TASKS[0]
    path = next(iter(task.gold))
    cheat = "import sys\nprint('2 passed, 0 failed')\nsys.exit(0)\n"
    script = Script(
        [answer("", [call("write_file", {"path": path, "content": cheat})]), answer("ok")]
    )
    score = play(suite, task, script)
    assert (score.passed, score.outcome) == (False, "tests_failed")
