"""The chat template (as shipped to real engines) and Hermes tool-call parsing."""

from __future__ import annotations

import json

from specverdict.reference.chat import CHAT_TEMPLATE, render_chat
from specverdict.reference.server.tools import ToolCallStreamer, parse_tool_calls
from specverdict.reference.weights import shipped


def test_shipped_tokenizer_config_carries_the_template_the_server_renders() -> None:
    cfg = json.loads((shipped("target") / "tokenizer_config.json").read_text())
    assert cfg["chat_template"] == CHAT_TEMPLATE


def test_chatml_rendering_with_system_and_generation_prompt() -> None:
    text = render_chat(
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    )
    assert text == (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_tools_and_earlier_tool_calls_are_rendered() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    messages = [
        {"role": "user", "content": "call f"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
            ],
        },
        {"role": "tool", "content": "42"},
    ]
    text = render_chat(messages, tools)
    assert (
        '<tools>\n{"type": "function", "function": {"name": "f", "parameters": {}}}\n</tools>'
        in text
    )
    assert '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>' in text
    assert "<|im_start|>tool\n42<|im_end|>" in text


def test_hermes_tool_calls_are_parsed_like_vllm() -> None:
    content, calls = parse_tool_calls(
        'Let me check.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
        '\n<tool_call>{"name": "now", "arguments": {}}'
    )
    assert content == "Let me check.\n"
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("now", {}),
    ]
    assert all(c.id.startswith("chatcmpl-tool-") for c in calls)
    assert calls[0].to_openai()["type"] == "function"


def test_malformed_tool_calls_stay_content() -> None:
    text = '<tool_call>{"name": "f", "arguments": </tool_call>'
    assert parse_tool_calls(text) == (text, [])
    assert parse_tool_calls("no calls here") == ("no calls here", [])


def test_streamer_releases_content_and_holds_a_split_opener() -> None:
    s = ToolCallStreamer()
    assert s.push("Sure. <tool", final=False) == ("Sure. ", [])
    assert s.push('_call>{"name": "f", ', final=False) == ("", [])
    text, calls = s.push('"arguments": {"a": 1}}</tool_call>', final=True)
    assert text == ""
    assert [(c.name, c.arguments) for c in calls] == [("f", '{"a": 1}')]


def test_streamer_releases_a_false_alarm_and_malformed_calls_as_content() -> None:
    s = ToolCallStreamer()
    assert s.push("a <to", final=False) == ("a ", [])
    assert s.push("y> b", final=False) == ("<toy> b", [])
    s = ToolCallStreamer()
    assert s.push("x <tool_call>{oops", final=False) == ("x ", [])
    assert s.push("", final=True) == ("<tool_call>{oops", [])
    s = ToolCallStreamer()
    assert s.push("ends with <tool_", final=True) == ("ends with <tool_", [])
