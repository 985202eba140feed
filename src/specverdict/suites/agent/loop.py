"""The agent loop: one episode of a model working on a task with tools, up to a turn limit.

A *turn* is one chat request. After each answer the harness decodes the tool calls, checks each
against its tool's JSON Schema, runs the valid ones on the workspace and sends the results back
as ``tool`` messages; an answer without tool calls ends the episode. At the end the task's tests
run once more on the final workspace: the episode *completed* when they all pass.

What is counted (``EpisodeMetrics``):

- ``parse_failures``: calls that did not decode (``calls.DecodedCall.error``) plus answers whose
  text holds a tool-call marker the server did not parse (the model is told and the loop goes on);
- ``invalid_arguments``: decoded calls whose arguments break the tool's schema;
- ``unknown_tools``: calls of a tool that does not exist;
- ``tool_errors``: valid calls the tool refused (missing file, path outside the workspace, ...);
- ``recovered``: errors of the four kinds above followed later by a successful call;
- ``off_reference``: calls that leave the reference trajectory: a tool the reference never uses,
  or a write to a file the reference does not write; ``trajectory_recall``: the share of the
  reference's steps (tool and path) found in order among the successful calls;
- ``loop``: ``"repeat"`` when the same call (tool and arguments) is made a third time with the
  workspace unchanged (the episode stops there), ``"turn_limit"`` when the limit was reached;
- ``finish_reasons``: how many turns ended with each finish reason.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from specverdict.engines.client import StreamedResponse
from specverdict.records.failures import context_overflow
from specverdict.suites.agent.calls import DecodedCall, decode_calls, unparsed_call_text
from specverdict.suites.agent.schema import validate
from specverdict.suites.agent.testrun import TestReport, TestRunner
from specverdict.suites.agent.workspace import SCHEMAS, TOOLS, ToolResult, Workspace

#: ``chat(messages, tools)``: one timed chat request, provided by the runner
Chat = Callable[[list[dict[str, Any]], Sequence[dict[str, Any]]], Awaitable[StreamedResponse]]
End = Literal["answered", "length", "turn_limit", "loop", "request_error", "context"]
CallStatus = Literal["ok", "parse_failure", "invalid_arguments", "unknown_tool", "tool_error"]

#: what the model is told when its answer held a tool call the server could not parse
PARSE_ERROR_MESSAGE = (
    "Your last message contained a tool call that could not be parsed. Call the tools through "
    "the tool-calling interface, with arguments as a JSON object."
)
#: tool output longer than this is cut (the model is told)
MAX_RESULT_CHARS = 8_000
REPEAT_LIMIT = 3


@dataclass(frozen=True, slots=True)
class Step:
    """A step of a reference trajectory: the tool and, for file tools, the path."""

    tool: str
    path: str | None = None


@dataclass(frozen=True, slots=True)
class CallRecord:
    turn: int
    name: str
    arguments: str
    status: CallStatus
    detail: str = ""
    off_reference: bool = False


@dataclass(slots=True)
class EpisodeMetrics:
    parse_failures: int = 0
    invalid_arguments: int = 0
    unknown_tools: int = 0
    tool_errors: int = 0
    recovered: int = 0
    off_reference: int = 0
    trajectory_recall: float = 0.0
    first_call_matches: bool = False
    loop: Literal["repeat", "turn_limit"] | None = None
    finish_reasons: dict[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> int:
        return self.parse_failures + self.invalid_arguments + self.unknown_tools + self.tool_errors


@dataclass(slots=True)
class Episode:
    """What happened: every response (in turn order), every call, how it ended, the final test
    report and the files the model changed."""

    responses: list[StreamedResponse] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    end: End = "answered"
    metrics: EpisodeMetrics = field(default_factory=EpisodeMetrics)
    report: TestReport | None = None
    changed: dict[str, str] = field(default_factory=dict)

    @property
    def completed(self) -> bool:
        return self.report is not None and self.report.passed


def _key(call: DecodedCall, revision: int) -> str:
    args = json.dumps(call.args, sort_keys=True) if call.args is not None else call.arguments
    return f"{call.name}\0{args}\0{revision}"


def _execute(workspace: Workspace, name: str, args: Mapping[str, Any]) -> ToolResult:
    if name == "read_file":
        return workspace.read_file(args["path"])
    if name == "write_file":
        return workspace.write_file(args["path"], args["content"])
    if name == "replace_in_file":
        return workspace.replace_in_file(args["path"], args["old"], args["new"])
    if name == "list_dir":
        return workspace.list_dir(args.get("path", ""))
    return workspace.search(args["text"], args.get("path", ""))


def _recall(reference: Sequence[Step], done: Sequence[Step]) -> float:
    """The share of ``reference`` found, in order, as a subsequence of ``done``."""
    if not reference:
        return 1.0
    found, it = 0, iter(done)
    for step in reference:
        for d in it:
            if d == step:
                found += 1
                break
    return found / len(reference)


async def run_loop(
    chat: Chat,
    messages: Sequence[dict[str, Any]],
    files: Mapping[str, str],
    tests: Mapping[str, str],
    run_tests: TestRunner,
    reference: Sequence[Step] = (),
    max_turns: int = 12,
    tools: Sequence[dict[str, Any]] = TOOLS,
) -> Episode:
    """Run one episode. ``files`` is the starting workspace (tests apart: ``tests`` are shown to
    the model and read-only); ``run_tests`` runs in a worker thread (it waits on the sandbox)."""
    workspace = Workspace({**files, **tests}, read_only=frozenset(tests))
    # only the tools offered to the model exist for it
    offered = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    episode = Episode(messages=list(messages))
    m = episode.metrics
    seen: Counter[str] = Counter()
    pending = 0  # errors not yet followed by a successful call
    done: list[Step] = []
    ref_tools = {s.tool for s in reference}
    ref_writes = {s.path for s in reference if s.tool == "write_file"}
    finish: Counter[str] = Counter()
    for turn in range(max_turns):
        resp = await chat(list(episode.messages), tools)
        episode.responses.append(resp)
        finish[resp.finish_reason or "none"] += 1
        if resp.status != "ok":
            # the conversation no longer fits the model's context: the episode ends there
            episode.end = "context" if context_overflow(resp.error) else "request_error"
            break
        calls = decode_calls(resp.tool_calls, id_prefix=f"call-{turn}")
        if not calls:
            episode.messages.append({"role": "assistant", "content": resp.text})
            if unparsed_call_text(resp.text):
                m.parse_failures += 1
                pending += 1
                episode.calls.append(
                    CallRecord(turn, "", resp.text[-200:], "parse_failure", "unparsed_text")
                )
                episode.messages.append({"role": "user", "content": PARSE_ERROR_MESSAGE})
                continue
            episode.end = "length" if resp.finish_reason == "length" else "answered"
            break
        episode.messages.append(
            {
                "role": "assistant",
                "content": resp.text or None,
                "tool_calls": [c.to_message() for c in calls],
            }
        )
        repeated = False
        for call in calls:
            record, result = await _one_call(call, turn, workspace, tests, run_tests, offered)
            off = record.status != "parse_failure" and (
                call.name not in ref_tools
                or (call.name == "write_file" and (call.args or {}).get("path") not in ref_writes)
            )
            if not episode.calls:  # the episode's first call
                m.first_call_matches = bool(reference) and call.name == reference[0].tool
            record = CallRecord(
                record.turn, record.name, record.arguments, record.status, record.detail, off
            )
            episode.calls.append(record)
            m.off_reference += off
            if record.status == "ok":
                m.recovered += pending
                pending = 0
                path = (call.args or {}).get("path")
                done.append(Step(call.name, path if isinstance(path, str) else None))
            else:
                pending += 1
                m.parse_failures += record.status == "parse_failure"
                m.invalid_arguments += record.status == "invalid_arguments"
                m.unknown_tools += record.status == "unknown_tool"
                m.tool_errors += record.status == "tool_error"
            episode.messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
            key = _key(call, workspace.revision)
            seen[key] += 1
            repeated = repeated or seen[key] >= REPEAT_LIMIT
        if repeated:
            episode.end, m.loop = "loop", "repeat"
            break
    else:
        episode.end, m.loop = "turn_limit", "turn_limit"
    m.finish_reasons = dict(sorted(finish.items()))
    m.trajectory_recall = _recall(reference, done)
    final = {p: t for p, t in workspace.files.items() if p not in tests}
    episode.report = await asyncio.to_thread(run_tests, final, tests)
    episode.changed = workspace.changed({**files, **tests})
    return episode


async def _one_call(
    call: DecodedCall,
    turn: int,
    workspace: Workspace,
    tests: Mapping[str, str],
    run_tests: TestRunner,
    schemas: Mapping[str, dict[str, Any]] = SCHEMAS,
) -> tuple[CallRecord, str]:
    """Check and run one call: its record and the text sent back to the model."""
    if call.error is not None:
        why = {
            "no_name": "the call has no function name",
            "bad_json": "the arguments are not valid JSON",
            "not_object": "the arguments are not a JSON object",
        }[call.error]
        return CallRecord(
            turn, call.name, call.arguments, "parse_failure", call.error
        ), f"error: {why}"
    if call.name not in schemas:
        known = ", ".join(schemas)
        text = f"error: there is no tool {call.name!r}; the tools are {known}"
        return CallRecord(turn, call.name, call.arguments, "unknown_tool"), text
    assert call.args is not None
    problems = validate(call.args, schemas[call.name])
    if problems:
        detail = "; ".join(problems)
        return (
            CallRecord(turn, call.name, call.arguments, "invalid_arguments", detail),
            f"error: invalid arguments: {detail}",
        )
    if call.name == "run_tests":
        final = {p: t for p, t in workspace.files.items() if p not in tests}
        report = await asyncio.to_thread(run_tests, final, tests)
        return CallRecord(turn, call.name, call.arguments, "ok"), report.summary
    result = _execute(workspace, call.name, call.args)
    text = result.text
    if len(text) > MAX_RESULT_CHARS:
        text = (
            text[:MAX_RESULT_CHARS]
            + f"\n... ({len(result.text) - MAX_RESULT_CHARS} more characters)"
        )
    status: CallStatus = "ok" if result.ok else "tool_error"
    return CallRecord(
        turn, call.name, call.arguments, status, "" if result.ok else result.text
    ), text
