"""Agent-stage suites: a sample is an *episode* of several chat requests, not one request.

``AgentSuite`` implements the suites' multi-turn interface (``Suite.episodic``): ``run_episode(sample, chat)`` drives the
conversation through ``chat(messages, tools)`` (one timed request, provided by the runner) and
returns an ``Episode``; ``score_episode`` judges it. ``specverdict.run.episodes`` turns the episode
into the sample's stored record.

``agent-tasks@1`` (stage ``agent``): 22 small coding tasks written for specverdict (Apache-2.0,
as the project). The model gets five tools (``read_file``, ``write_file``, ``list_dir``,
``search``, ``run_tests``), works for up to 12 turns, and *passes* when the task's tests pass on
the final workspace. The score's ``outcome`` is ``passed`` or the failure class:
``request_error`` (a request failed), ``context_overflow`` (the conversation outgrew the model's
context and the server refused the next turn: an end of the episode, not a failed request), ``loop`` (the same call a third time, workspace unchanged),
``turn_limit``, ``parse_failure`` (no tool call was ever decoded), ``invalid_arguments`` (no
call ever passed its schema), ``no_edit`` (the model changed nothing), ``tests_failed``. The
detail holds the episode's counts (see ``loop``), as JSON.
"""

from __future__ import annotations

import json
import threading
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from specverdict.records import Score
from specverdict.sandbox import Sandbox
from specverdict.suites.agent.loop import Chat, Episode, run_loop
from specverdict.suites.agent.tasks import DATA, TASKS, AgentTask
from specverdict.suites.agent.testrun import TestRunner, sandbox_runner
from specverdict.suites.agent.workspace import TOOLS
from specverdict.suites.base import Sample, Suite
from specverdict.suites.dataset import DataDir

SYSTEM_PROMPT = (
    "You are a coding agent working in a small Python workspace. Use the tools to look at the "
    "files, change them and run the tests. Test files are read-only. When the tests pass, reply "
    "with a short summary and no tool call."
)


class AgentSample(Sample):
    """A sample whose requests carry ``tools`` (OpenAI format)."""

    tools: tuple[dict[str, Any], ...] = ()

    def request_fields(self) -> dict[str, Any]:
        fields = super().request_fields()
        if self.tools:
            fields["tools"] = [dict(t) for t in self.tools]
        return fields


class AgentSuite(Suite):
    """A suite whose samples are multi-turn episodes."""

    stage = "agent"

    def episodic(self) -> AgentSuite:
        return self

    @abstractmethod
    async def run_episode(self, sample: Sample, chat: Chat) -> Episode:
        """Play one episode of ``sample`` through ``chat``; never raises for model behaviour."""

    @abstractmethod
    def score_episode(self, sample: Sample, episode: Episode) -> Score:
        """Judge a finished episode."""


def episode_outcome(episode: Episode) -> str:
    """The failure class of an episode (``passed`` when the final tests pass)."""
    m = episode.metrics
    if episode.completed:
        return "passed"
    if episode.end == "request_error":
        return "request_error"
    if episode.end == "context":
        return "context_overflow"
    if episode.end in ("loop", "turn_limit"):
        return episode.end
    ok_calls = [c for c in episode.calls if c.status == "ok"]
    if m.parse_failures and not any(c.status != "parse_failure" for c in episode.calls):
        return "parse_failure"
    if m.invalid_arguments and not ok_calls:
        return "invalid_arguments"
    if not episode.changed:
        return "no_edit"
    return "tests_failed"


def episode_detail(episode: Episode) -> dict[str, Any]:
    """The episode's counts, as stored in the score's detail and the record's extra."""
    m = episode.metrics
    return {
        "end": episode.end,
        "turns": len(episode.responses),
        "calls": len(episode.calls),
        "parse_failures": m.parse_failures,
        "invalid_arguments": m.invalid_arguments,
        "unknown_tools": m.unknown_tools,
        "tool_errors": m.tool_errors,
        "recovered": m.recovered,
        "off_reference": m.off_reference,
        "trajectory_recall": round(m.trajectory_recall, 4),
        "first_call_matches": m.first_call_matches,
        "loop": m.loop,
        "finish_reasons": m.finish_reasons,
        "changed_files": sorted(episode.changed),
        "tests": episode.report.summary.splitlines()[0] if episode.report else None,
    }


class AgentTasks(AgentSuite):
    """Coding episodes on small workspaces; a subclass brings other tasks (``load_tasks``),
    tools (``tools``, the schemas offered to the model) and a default ``max_turns``."""

    name = "agent-tasks"
    version = 1
    source = "written for specverdict (22 coding tasks with tools)"
    licence = "Apache-2.0, as specverdict"
    data_dir: ClassVar[DataDir | None] = DATA
    tools: tuple[dict[str, Any], ...] = tuple(TOOLS)
    default_max_turns = 12

    def __init__(
        self,
        sandbox: Sandbox | None = None,
        max_turns: int | None = None,
        run_tests: TestRunner | None = None,
    ) -> None:
        """``run_tests`` replaces the sandboxed test runner (tests of the loop only)."""
        self._sandbox = sandbox
        self._run_tests = run_tests
        self._lock = threading.Lock()
        self.max_turns = self.default_max_turns if max_turns is None else max_turns
        self.tasks: dict[str, AgentTask] = {t.id: t for t in self.load_tasks()}

    def load_tasks(self) -> Sequence[AgentTask]:
        return TASKS

    def samples(self) -> list[Sample]:
        return [
            AgentSample(
                id=t.id,
                endpoint="chat",
                messages=(
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": t.instruction},
                ),
                task_id=t.id,
                tools=self.tools,
            )
            for t in self.tasks.values()
        ]

    def test_runner(self) -> TestRunner:
        """The sandboxed test runner (the sandbox starts at first use, shared by episodes)."""
        if self._run_tests is None:
            with self._lock:
                if self._sandbox is None:
                    from specverdict.suites.functional import default_sandbox

                    self._sandbox = default_sandbox()
                self._run_tests = sandbox_runner(self._sandbox)
        return self._run_tests

    async def run_episode(self, sample: Sample, chat: Chat) -> Episode:
        task = self.tasks[sample.id]
        return await run_loop(
            chat,
            sample.messages or (),
            task.files,
            task.tests,
            self.test_runner(),
            task.trajectory,
            self.max_turns,
            tools=self.tools,
        )

    def score_episode(self, sample: Sample, episode: Episode) -> Score:
        outcome = episode_outcome(episode)
        detail = json.dumps(episode_detail(episode), sort_keys=True)
        return Score(passed=outcome == "passed", outcome=outcome, detail=detail)
