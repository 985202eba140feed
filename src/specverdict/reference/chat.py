"""The reference models' chat template (ChatML with Hermes-style tool calls) and its renderer.

The template is shipped in ``tokenizer_config.json`` so that real engines (vLLM, transformers)
render prompts exactly as the reference server does. Rendering uses the same Jinja settings as
transformers' ``apply_chat_template`` (sandboxed, ``trim_blocks``, ``lstrip_blocks``, a ``tojson``
filter without HTML escaping).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from jinja2 import Template
from jinja2.sandbox import ImmutableSandboxedEnvironment

EOS_TOKEN = "<|endoftext|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
SPECIAL_TOKENS = (EOS_TOKEN, IM_START, IM_END)
TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"

CHAT_TEMPLATE = (
    "{%- if tools %}"
    "{{- '<|im_start|>system\\n' }}"
    "{%- if messages and messages[0]['role'] == 'system' %}"
    "{{- (messages[0]['content'] or '') + '\\n\\n' }}"
    "{%- endif %}"
    "{{- 'You may call these tools. To call one, answer with "
    '<tool_call>{"name": <name>, "arguments": <object>}</tool_call>.\\n<tools>\\n\' }}'
    "{%- for tool in tools %}{{- tool | tojson }}{{- '\\n' }}{%- endfor %}"
    "{{- '</tools><|im_end|>\\n' }}"
    "{%- elif messages and messages[0]['role'] == 'system' %}"
    "{{- '<|im_start|>system\\n' + (messages[0]['content'] or '') + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if message['role'] == 'system' %}"
    "{%- elif message['role'] == 'assistant' and message['tool_calls'] %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- if message['content'] %}{{- message['content'] + '\\n' }}{%- endif %}"
    "{%- for call in message['tool_calls'] %}"
    "{%- set fn = call['function'] if call['function'] is defined else call %}"
    "{{- '<tool_call>{\"name\": \"' + fn['name'] + '\", \"arguments\": ' }}"
    "{%- if fn['arguments'] is string %}{{- fn['arguments'] }}"
    "{%- else %}{{- fn['arguments'] | tojson }}{%- endif %}"
    "{{- '}</tool_call>\\n' }}"
    "{%- endfor %}"
    "{{- '<|im_end|>\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + (message['content'] or '') + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)


def _tojson(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@lru_cache(maxsize=4)
def _compiled(template: str) -> Template:
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = _tojson
    return env.from_string(template)


def render_chat(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None = None,
    add_generation_prompt: bool = True,
    template: str = CHAT_TEMPLATE,
) -> str:
    """Render OpenAI-style messages (content already flattened to strings) into a prompt."""
    normalised = [
        {"role": m["role"], "content": m.get("content"), "tool_calls": m.get("tool_calls")}
        for m in messages
    ]
    return _compiled(template).render(
        messages=normalised,
        tools=list(tools) if tools else None,
        add_generation_prompt=add_generation_prompt,
    )
