"""The agent stage: tool calling, ``agent-tasks@1`` (multi-turn episodes with tools, ``suite``)
and ``bfcl@1`` (single-turn calls, ``bfcl``)."""

from specverdict.suites.agent.bfcl import Bfcl
from specverdict.suites.agent.loop import Chat, Episode, EpisodeMetrics, Step, run_loop
from specverdict.suites.agent.suite import AgentSample, AgentSuite, AgentTasks

__all__ = [
    "AgentSample",
    "AgentSuite",
    "AgentTasks",
    "Bfcl",
    "Chat",
    "Episode",
    "EpisodeMetrics",
    "Step",
    "run_loop",
]
