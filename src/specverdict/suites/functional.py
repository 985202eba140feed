"""``FunctionSuite``: a suite of function tasks scored by running answers in a sandbox.

A concrete suite supplies its tasks (``load_tasks``) and says how they are asked (completion or
chat). Scoring is concurrent: ``score_many`` builds any missing ground truth, then runs every
answer with ``Sandbox.run_many``; ``score`` (what the runner calls, from several threads) is
``score_many`` of one. ``prepare`` builds the ground-truth cache ahead of a run.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from specverdict.errors import ConfigError
from specverdict.records import Score
from specverdict.sandbox import LocalSandbox, Sandbox, SandboxUnavailableError
from specverdict.suites.base import Sample, Suite
from specverdict.suites.codeextract import FUNCTION_STOPS, chat_program, completion_program
from specverdict.suites.function.amplify import AmplifyConfig
from specverdict.suites.function.grade import ScoringPolicy, candidate_execution, judge, no_code
from specverdict.suites.function.groundtruth import TruthStore, truth_directory, truth_path
from specverdict.suites.function.harness import parse_report
from specverdict.suites.function.task import FunctionTask, GroundTruth

Mode = Literal["completion", "chat"]

CHAT_INSTRUCTION = (
    "Complete the Python function below. Reply with the whole function, signature included, "
    "in one ```python code block.\n\n```python\n{prompt}```\n"
)


def default_sandbox() -> Sandbox:
    """The project's local sandbox; a one-line error where no isolation mode works."""
    try:
        return LocalSandbox()
    except SandboxUnavailableError as exc:
        raise ConfigError(f"cannot run code here: {exc}") from None


class FunctionSuite(Suite):
    stage = "function"
    mode: ClassVar[Mode] = "completion"
    #: ground truth is shared by suites with the same tasks and inputs (e.g. completion and chat)
    family: ClassVar[str] = ""
    amplify_config: ClassVar[AmplifyConfig | None] = AmplifyConfig()
    #: the answer's code against fixed tests, each under a time limit (a timeout is re-scored)
    pure_scoring: ClassVar[bool] = True

    def __init__(
        self,
        sandbox: Sandbox | None = None,
        cache_dir: Path | None = None,
        workers: int = 2,
        policy: ScoringPolicy | None = None,
    ) -> None:
        self._sandbox = sandbox
        self._cache_dir = cache_dir
        self.workers = workers
        self.policy = policy or ScoringPolicy()
        self._tasks: dict[str, FunctionTask] | None = None
        self._truths: TruthStore | None = None
        self._lock = threading.Lock()

    @abstractmethod
    def load_tasks(self) -> list[FunctionTask]:
        """Every task, in a fixed order (called once)."""

    # -- tasks and samples -----------------------------------------------------------------
    def tasks(self) -> list[FunctionTask]:
        with self._lock:
            if self._tasks is None:
                self._tasks = {t.task_id: t for t in self.load_tasks()}
            return list(self._tasks.values())

    def task(self, task_id: str) -> FunctionTask:
        by_id = {t.task_id: t for t in self.tasks()}
        if task_id not in by_id:
            raise ValueError(f"suite {self.name}@{self.version} has no task {task_id!r}")
        return by_id[task_id]

    def chat_messages(self, task: FunctionTask) -> tuple[dict[str, Any], ...]:
        return ({"role": "user", "content": CHAT_INSTRUCTION.format(prompt=task.prompt)},)

    def sample(self, task: FunctionTask) -> Sample:
        if self.mode == "chat":
            return Sample(
                id=task.task_id,
                endpoint="chat",
                messages=self.chat_messages(task),
                task_id=task.task_id,
            )
        return Sample(
            id=task.task_id,
            endpoint="completions",
            prompt=task.prompt,
            stop=FUNCTION_STOPS,
            task_id=task.task_id,
        )

    def samples(self) -> list[Sample]:
        return [self.sample(t) for t in self.tasks()]

    def program(self, task: FunctionTask, text: str, mode: Mode | None = None) -> str | None:
        """The program an output stands for (None: a chat answer without code)."""
        if (mode or self.mode) == "chat":
            return chat_program(task.prompt, task.entry_point, text)
        return completion_program(task.prompt, text, FUNCTION_STOPS)

    # -- ground truth ----------------------------------------------------------------------
    def truth_family(self) -> str:
        """The name under which this suite's ground truth is cached."""
        return self.family or f"{self.name}-v{self.version}"

    @property
    def sandbox(self) -> Sandbox:
        with self._lock:
            if self._sandbox is None:
                self._sandbox = default_sandbox()
            return self._sandbox

    @property
    def scoring(self) -> str | None:
        """The ground truth's key: the suite family, the amplification settings and generator,
        the format (``truth_directory``'s folder name)."""
        return self.cache_directory().name

    def cache_directory(self) -> Path:
        """Where this suite's ground truth is cached (no sandbox needed to ask)."""
        return truth_directory(self.truth_family(), self.amplify_config, self._cache_dir)

    def cached_tasks(self) -> int:
        """How many tasks have their ground truth cached on disk."""
        directory = self.cache_directory()
        return sum(truth_path(directory, t).exists() for t in self.tasks())

    @property
    def truths(self) -> TruthStore:
        sandbox = self.sandbox
        with self._lock:
            if self._truths is None:
                self._truths = TruthStore(
                    sandbox,
                    self.truth_family(),
                    self.amplify_config,
                    self._cache_dir,
                    workers=self.workers,
                )
            return self._truths

    def prepare(self, task_ids: Sequence[str] | None = None) -> dict[str, GroundTruth]:
        """Build the ground-truth cache of the given tasks (default: all) that lack one."""
        tasks = [self.task(i) for i in task_ids] if task_ids is not None else self.tasks()
        missing = self.truths.missing(tasks)
        if missing:
            self.truths.build(missing)
        return {t.task_id: self.truths.get(t) for t in tasks}

    # -- scoring ---------------------------------------------------------------------------
    def score(
        self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]
    ) -> Score | None:
        return self.score_many([(sample, text)])[0]

    def score_batch(
        self, items: Sequence[tuple[Sample, str, Sequence[dict[str, Any]]]]
    ) -> list[Score | None]:
        return list(self.score_many([(sample, text) for sample, text, _ in items]))

    def score_many(
        self, items: Sequence[tuple[Sample, str]], mode: Mode | None = None
    ) -> list[Score]:
        """Score several outputs, running them concurrently; ``mode`` overrides how outputs
        are read (completion or chat)."""
        tasks = [self.task(s.task_id or s.id) for s, _ in items]
        truths = self.prepare(sorted({t.task_id for t in tasks}))
        scores: list[Score | None] = [None] * len(items)
        runs = []
        for n, (task, (_, text)) in enumerate(zip(tasks, items, strict=True)):
            program = self.program(task, text, mode)
            if program is None:
                scores[n] = no_code(truths[task.task_id], "the answer holds no code")
            else:
                runs.append(
                    (n, candidate_execution(task, truths[task.task_id], program, self.policy))
                )
        results = self.sandbox.run_many([e for _, e in runs], self.workers)
        for (n, execution), result in zip(runs, results, strict=True):
            task = tasks[n]
            scores[n] = judge(task, truths[task.task_id], parse_report(result, execution))
        return [s for s in scores if s is not None]
