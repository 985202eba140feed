"""The ``Suite`` interface: a named, versioned set of samples for one stage.

A suite's version is part of the run identity: changing its samples or how they are asked bumps
it. A suite whose samples are data shipped with the package names its data folder
(``data_dir``); ``data_hash`` is the folder's content hash, recorded per version in
``data-lock.json`` (a data change without a version bump fails the tests). Samples are selected by the campaign (all, first N, ids, seeded subset, stratified by category
or not) before they run.
"""

from __future__ import annotations

import hashlib
import json
import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from specverdict.campaign.model import First, Ids, Samples, Seeded
from specverdict.records import SampleRecord, Score
from specverdict.suites.dataset import DataDir

if TYPE_CHECKING:
    import httpx

    from specverdict.engines.tokens import TokenCounter
    from specverdict.suites.agent.loop import Chat, Episode


class Sample(BaseModel):
    """One request to send. ``stop`` sequences go into the request body (``request_fields``);
    ``task_id`` names the dataset task the sample asks (the same for a task's completion and
    chat samples)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    endpoint: Literal["completions", "chat"]
    prompt: str | None = None
    messages: tuple[dict[str, Any], ...] | None = None
    stop: tuple[str, ...] = ()
    task_id: str | None = None
    #: what slices read: ``category`` and a dataset row's metadata fields, as text
    labels: dict[str, str] = {}

    def request_fields(self) -> dict[str, Any]:
        """Request body fields this sample adds to the run's sampling settings."""
        return {"stop": list(self.stop)} if self.stop else {}

    def prompt_sha256(self) -> str | None:
        """The digest of a prompt made when the run starts (a synthetic stage's, cut by the
        engine's tokenizer), recorded on its sample so that the arms of a pair can be checked
        to have asked the same; None for a prompt that is data."""
        return None


class Episodic(Protocol):
    """The interface of a suite whose sample is a multi-turn episode: the runner hands each
    sample to ``run_episode`` with ``chat(messages, tools)`` (one timed request it provides),
    then ``score_episode`` judges the finished episode (``specverdict.run.episodes``)."""

    name: str
    version: int

    async def run_episode(self, sample: Sample, chat: Chat) -> Episode: ...

    def score_episode(self, sample: Sample, episode: Episode) -> Score | None: ...


class Suite(ABC):
    name: str
    version: int
    stage: str
    #: where the samples come from, and under which licence (shown by ``suites show``)
    source: str = "written for specverdict"
    licence: str = "Apache-2.0, as specverdict"
    #: the suite's data folder, when its samples are data shipped with the package
    data_dir: ClassVar[DataDir | None] = None
    #: a score is a function of the sample and the answer (its text, tool calls, finish reason
    #: and token count) alone: no outside service, no randomness, no test that passes or fails
    #: by chance. The runner then scores an answer once and gives a run that wrote the same
    #: answer to the same sample the same score (``answer_key``). Off unless a suite says so.
    pure_scoring: ClassVar[bool] = False

    @property
    def data_hash(self) -> str | None:
        """SHA-256 of the suite's data files (``DataDir.content_hash``); None for a suite
        whose samples are not shipped data (downloaded, generated or written in code)."""
        return None if self.data_dir is None else self.data_dir.content_hash()

    @property
    def scoring(self) -> str | None:
        """What judges an answer beyond the suite's data, when it can change under one version
        (a test generator, its seed and count); recorded per run, so that arms scored
        differently are never paired. None: nothing beyond the data."""
        return None

    @abstractmethod
    def samples(self) -> list[Sample]:
        """Every sample, in a fixed order."""

    def listed_size(self) -> int | None:
        """How many samples the suite has, when that is known without fetching or generating
        anything (``suites list`` shows it); None for a suite that must be prepared first."""
        return len(self.samples())

    def answer_key(self, sample: Sample, record: SampleRecord) -> str | None:
        """What a score of ``record`` depends on, hashed: the suite, its scoring, the sample and
        the answer; None when the suite's scores are not pure (``pure_scoring``)."""
        if not self.pure_scoring:
            return None
        what = [
            self.name,
            self.version,
            self.data_hash,
            self.scoring,
            sample.id,
            record.text,
            record.finish_reason,
            record.completion_tokens,
            record.extra.tool_calls,
        ]
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()

    #: the samples' prompts are made when the run starts, with the engine's tokenizer
    #: (``make_prompts``): a server without a tokenize endpoint cannot run the suite
    needs_tokenizer: ClassVar[bool] = False

    async def make_prompts(
        self, samples: list[Sample], client: httpx.AsyncClient, counter: TokenCounter
    ) -> list[Sample]:
        """``samples`` as they are sent, once the engine answers; the default sends them as
        they are (see ``needs_tokenizer``)."""
        return samples

    def episodic(self) -> Episodic | None:
        """This suite's multi-turn interface, or None when a sample is one request."""
        return None

    def scores(self) -> bool:
        """Whether the suite judges its outputs (else its stage has no quality signal): it
        overrides a scoring method, or judges whole episodes."""
        kind = type(self)
        methods = ("score", "score_batch", "score_records")
        if any(getattr(kind, m) is not getattr(Suite, m) for m in methods):
            return True
        return self.episodic() is not None

    def score(
        self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]
    ) -> Score | None:
        """Judge one answered output; None when the suite has no scorer (then its stage has no
        quality signal, and no verdict can rest on quality)."""
        return None

    def score_batch(
        self, items: Sequence[tuple[Sample, str, Sequence[dict[str, Any]]]]
    ) -> list[Score | None]:
        """Judge several ``(sample, text, tool_calls)`` outputs, in order. Suites that run code
        run them concurrently; the default judges them one by one with ``score``."""
        return [self.score(sample, text, calls) for sample, text, calls in items]

    def score_records(self, items: Sequence[tuple[Sample, SampleRecord]]) -> list[Score | None]:
        """Judge stored samples: suites that need the finish reason or token counts override
        this; the default judges the text and tool calls with ``score_batch``."""
        return self.score_batch([(s, r.text, r.extra.tool_calls) for s, r in items])

    def select(self, selection: Samples) -> list[Sample]:
        """Apply a campaign's sample selection; unknown ids are an error naming them."""
        every = self.samples()
        if selection == "all":
            return every
        if isinstance(selection, First):
            if selection.first > len(every):
                raise ValueError(
                    f"samples.first {selection.first}: suite {self.name}@{self.version} has "
                    f"{len(every)} samples; ask for at most {len(every)}, or 'all'"
                )
            return every[: selection.first]
        if isinstance(selection, Ids):
            by_id = {s.id: s for s in every}
            missing = [i for i in selection.ids if i not in by_id]
            if missing:
                raise ValueError(f"suite {self.name}@{self.version} has no samples {missing[:5]}")
            return [by_id[i] for i in selection.ids]
        assert isinstance(selection, Seeded)
        if selection.seeded > len(every):
            raise ValueError(
                f"samples.seeded {selection.seeded}: suite {self.name}@{self.version} has "
                f"{len(every)} samples; ask for at most {len(every)}, or 'all'"
            )
        if selection.stratify == "category":
            if not any("category" in s.labels for s in every):
                raise ValueError(
                    f"samples.stratify category: suite {self.name}@{self.version}'s samples "
                    "have no category"
                )
            from specverdict.suites.stratify import stratified

            return stratified(every, selection.seeded, selection.seed)
        if selection.seeded == len(every):
            return every
        chosen = sorted(random.Random(selection.seed).sample(range(len(every)), selection.seeded))
        return [every[i] for i in chosen]
