"""Scores of answers already judged, for the runs of one runner.

A campaign writes the same answer to the same sample many times: a baseline executed twice, a
lossless candidate (MTP, n-gram and draft-model speculation keep greedy outputs), repeated
executions. When a suite's score is a function of the sample and the answer alone
(``Suite.pure_scoring``), judging it again in the sandbox gives the score it gave, at the
sandbox's cost: on the generated function suite that was most of a demo's scoring. The memo
keeps each answer's score under its ``Suite.answer_key`` and hands it to the next run that wrote
the same answer; outcomes that say more about the host than about the answer (a timeout, memory
exhausted, a killed process) are never reused, and are judged again.
"""

from __future__ import annotations

from collections import OrderedDict

from specverdict.records import Score

#: outcomes of the sandbox's limits, which a loaded host can cause: never reused
HOST_OUTCOMES = frozenset({"timeout", "oom", "killed"})


class ScoreMemo:
    """Answer key -> score, the least recently used dropped beyond ``size`` entries."""

    def __init__(self, size: int = 50_000) -> None:
        self.size = size
        self._scores: OrderedDict[str, Score] = OrderedDict()
        self.reused = 0

    def get(self, key: str | None) -> Score | None:
        if key is None or key not in self._scores:
            return None
        self._scores.move_to_end(key)
        self.reused += 1
        return self._scores[key]

    def put(self, key: str | None, score: Score | None) -> None:
        if key is None or score is None or score.outcome in HOST_OUTCOMES:
            return
        self._scores[key] = score
        self._scores.move_to_end(key)
        while len(self._scores) > self.size:
            self._scores.popitem(last=False)
