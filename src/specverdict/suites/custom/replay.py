"""``replay: own``: a conversation asked turn by turn, each user turn after the model's own
answers to the turns before it, as one sample.

A dataset row's messages are the conversation; its system messages are kept where they stand,
its recorded assistant replies (ShareGPT's, or a chat row's) are dropped, and each user message
is one chat request whose context is the conversation so far with the model's answers in
place. The conversation is an episode (``specverdict.run.episodes``): its record's timings lay the
turns end to end on engine time, its tokens and acceptance counts are summed over the turns,
its text is the turns' answers, and its score is the dataset's scorer on the *last* answer
(the conversation's outcome; None when a turn failed, or with no scorer). A turn the server
refuses ends the conversation there (``request_error``, or ``context`` when the conversation
outgrew the context window).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from specverdict.records import Score
from specverdict.records.failures import context_overflow
from specverdict.suites.agent.calls import merge_deltas
from specverdict.suites.agent.loop import Chat, Episode
from specverdict.suites.base import Sample


class Replayed(Protocol):
    """What a replay reads of its dataset suite (``custom.suite.FileSuite`` is one)."""

    name: str
    version: int

    def scores(self) -> bool: ...

    def conversation(self, sample: Sample) -> list[dict[str, Any]]: ...

    def score(
        self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]
    ) -> Score | None: ...


class OwnReplay:
    """The episodic interface of a ``FileSuite`` whose dataset is replayed with own answers."""

    def __init__(self, suite: Replayed) -> None:
        self.suite = suite
        self.name = suite.name
        self.version = suite.version

    async def run_episode(self, sample: Sample, chat: Chat) -> Episode:
        episode = Episode()
        tools = sample.request_fields().get("tools", [])
        sent: list[dict[str, Any]] = []
        for message in self.suite.conversation(sample):
            if message["role"] == "assistant":
                continue  # a recorded reply: the model's own answer takes its place
            sent.append(dict(message))
            if message["role"] != "user":
                continue
            resp = await chat(list(sent), tools)
            episode.responses.append(resp)
            if resp.status != "ok":
                episode.end = "context" if context_overflow(resp.error) else "request_error"
                break
            # its text only: a tool call would need a result no row records
            sent.append({"role": "assistant", "content": resp.text})
        episode.messages = sent
        return episode

    def score_episode(self, sample: Sample, episode: Episode) -> Score | None:
        if not episode.responses or episode.end != "answered" or not self.suite.scores():
            return None
        last = episode.responses[-1]
        return self.suite.score(sample, last.text, merge_deltas(last.tool_calls))
