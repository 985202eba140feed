"""Request bodies of the OpenAI-compatible endpoints (strict: unknown fields are rejected).

Fields are those of the OpenAI API and vLLM's extensions that the reference engine implements.
Fields that clients commonly send with neutral values (penalties of 0, ``logprobs`` off, ``user``)
are accepted; asking for behaviour the engine does not have (``n`` > 1, logprobs, penalties,
``echo``) is a 400 naming the field.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class InvalidRequestError(ValueError):
    """A request the engine refuses; ``param`` names the offending field."""

    def __init__(self, message: str, param: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status = status


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TokenizeRequest(_Strict):
    """vLLM's ``/tokenize`` body for text (``TokenizeCompletionRequest``): the harness counts an
    answer's tokens with it. The reference tokenizer adds no special tokens either way."""

    model: str | None = None
    prompt: str
    add_special_tokens: bool = True


class DetokenizeRequest(_Strict):
    """vLLM's ``/detokenize`` body (``DetokenizeRequest``): token ids, answered ``{"prompt"}``;
    a synthetic stage cuts its prompts to length with it."""

    model: str | None = None
    tokens: list[Annotated[int, Field(ge=0)]]


class StreamOptions(_Strict):
    include_usage: bool | None = True
    continuous_usage_stats: bool | None = False


class _Sampling(_Strict):
    model: str | None = None
    max_tokens: int | None = None
    temperature: float | None = Field(default=None, ge=0.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = None
    stop: str | list[str] | None = None
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    n: int | None = 1
    ignore_eos: bool = False
    presence_penalty: float | None = 0.0
    frequency_penalty: float | None = 0.0
    user: str | None = None
    logit_bias: dict[str, float] | None = None

    def check_supported(self) -> None:
        if self.n not in (None, 1):
            raise InvalidRequestError("n: only n=1 is supported by the reference engine", "n")
        for name in ("presence_penalty", "frequency_penalty"):
            if getattr(self, name) not in (None, 0.0):
                raise InvalidRequestError(
                    f"{name}: penalties are not supported by the reference engine", name
                )
        if self.logit_bias:
            raise InvalidRequestError(
                "logit_bias: not supported by the reference engine", "logit_bias"
            )
        if self.stream_options is not None and not self.stream:
            raise InvalidRequestError(
                "stream_options: only allowed when stream is true", "stream_options"
            )

    def stop_strings(self) -> tuple[str, ...]:
        if self.stop is None:
            return ()
        stops = (self.stop,) if isinstance(self.stop, str) else tuple(self.stop)
        if any(not s for s in stops):
            raise InvalidRequestError("stop: stop strings must not be empty", "stop")
        return stops


class CompletionRequest(_Sampling):
    prompt: str | list[int] | list[str]
    max_tokens: int | None = 16
    echo: bool | None = False
    logprobs: int | None = None
    best_of: int | None = None
    suffix: str | None = None

    def check_supported(self) -> None:
        super().check_supported()
        if self.echo:
            raise InvalidRequestError("echo: not supported by the reference engine", "echo")
        if self.logprobs is not None:
            raise InvalidRequestError("logprobs: not supported by the reference engine", "logprobs")
        if self.best_of not in (None, 1):
            raise InvalidRequestError("best_of: only 1 is supported", "best_of")
        if self.suffix:
            raise InvalidRequestError("suffix: not supported by the reference engine", "suffix")
        is_texts = (
            isinstance(self.prompt, list) and bool(self.prompt) and isinstance(self.prompt[0], str)
        )
        if is_texts and len(self.prompt) != 1:
            raise InvalidRequestError(
                "prompt: batched prompts are not supported; send one", "prompt"
            )


class ContentPart(_Strict):
    type: Literal["text"]
    text: str


class ToolCallFunction(BaseModel):
    name: str
    arguments: str | dict[str, Any]


class ToolCallIn(BaseModel):
    id: str | None = None
    type: Literal["function"] = "function"
    function: ToolCallFunction


class ChatMessage(_Strict):
    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[ContentPart] | None = None
    name: str | None = None
    tool_calls: list[ToolCallIn] | None = None
    tool_call_id: str | None = None

    def text(self) -> str | None:
        if isinstance(self.content, list):
            return "\n".join(part.text for part in self.content)
        return self.content


class FunctionDef(BaseModel):
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None


class Tool(BaseModel):
    type: Literal["function"] = "function"
    function: FunctionDef


class ChatCompletionRequest(_Sampling):
    messages: list[ChatMessage] = Field(min_length=1)
    max_completion_tokens: int | None = None
    tools: list[Tool] | None = None
    tool_choice: Literal["none", "auto"] | None = None
    parallel_tool_calls: bool | None = None
    logprobs: bool | None = False
    top_logprobs: int | None = None
    add_generation_prompt: bool = True

    @field_validator("tool_choice", mode="before")
    @classmethod
    def _tool_choice(cls, v: object) -> object:
        if v is not None and v not in ("none", "auto"):
            raise ValueError("only 'none' and 'auto' are supported by the reference engine")
        return v

    def check_supported(self) -> None:
        super().check_supported()
        if self.logprobs or self.top_logprobs:
            raise InvalidRequestError("logprobs: not supported by the reference engine", "logprobs")

    def requested_max_tokens(self) -> int | None:
        return (
            self.max_completion_tokens
            if self.max_completion_tokens is not None
            else self.max_tokens
        )

    def tools_active(self) -> bool:
        return bool(self.tools) and self.tool_choice != "none"
