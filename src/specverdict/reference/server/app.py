"""The OpenAI-compatible HTTP server, speaking vLLM's response, streaming and error formats.

Shapes follow vLLM's ``CompletionResponse``/``ChatCompletionResponse`` and stream chunks
(``vllm/entrypoints/openai/{completion,chat_completion}/serving.py``): one SSE ``data:`` chunk per
engine step (a speculative step carries several tokens), a final usage chunk with ``choices: []``
when ``stream_options.include_usage`` is set, then ``data: [DONE]``. Per-request speculation counts
(``--per-request-spec-decode-metrics``) go in the top-level ``metrics.speculative_decoding``, and
in streaming in the usage chunk. Errors are ``{"error": {"message", "type", "param", "code"}}``.
With ``--device-clock virtual``, every chunk that carries output also carries ``device_time_s``
(the modelled device time since the request arrived), and the usage chunk ``device_arrival_s``
(the device clock at its arrival): fields of this server only, which real engines never send.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing, asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse

from specverdict import __version__
from specverdict.reference.chat import render_chat
from specverdict.reference.decoding import SpecCounts
from specverdict.reference.engine import EngineCore, GenerationRequest, RequestOutput
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.server.async_engine import AsyncEngine, EngineStepError
from specverdict.reference.server.metrics import PrometheusSink
from specverdict.reference.server.protocol import (
    ChatCompletionRequest,
    CompletionRequest,
    DetokenizeRequest,
    InvalidRequestError,
    TokenizeRequest,
    _Sampling,
)
from specverdict.reference.server.tools import ToolCall, ToolCallStreamer, parse_tool_calls

Disconnected = Callable[[], Awaitable[bool]]
DISCONNECT_POLL_S = 0.25


def error_body(message: str, err_type: str, param: str | None, code: int) -> dict[str, Any]:
    return {"error": {"message": message, "type": err_type, "param": param, "code": code}}


def error_response(exc: InvalidRequestError) -> JSONResponse:
    kind = {400: "BadRequestError", 404: "NotFoundError"}.get(exc.status, "BadRequestError")
    return JSONResponse(
        error_body(exc.message, kind, exc.param, exc.status), status_code=exc.status
    )


def _validation_message(exc: RequestValidationError) -> tuple[str, str | None]:
    errors = exc.errors()
    if not errors:
        return "invalid request", None
    err = errors[0]
    loc = [str(p) for p in err.get("loc", ()) if p != "body"]
    param = ".".join(loc) or None
    if err.get("type") == "json_invalid":
        return f"request body is not valid JSON: {err.get('msg')}", None
    if err.get("type") == "extra_forbidden":
        return f"{param}: unknown field", param
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{param or 'body'}: {err.get('msg')}{more}", param


def spec_metrics_dict(counts: SpecCounts, detailed: bool) -> dict[str, Any]:
    steps, accepted = counts.num_spec_steps, counts.num_accepted_draft_tokens
    drafted = counts.num_draft_tokens
    return {
        "mean_acceptance_length": 1.0 + accepted / steps if steps else 1.0,
        "draft_acceptance_rate": accepted / drafted if drafted else 0.0,
        "acceptance_histogram": list(counts.histogram),
        "num_spec_steps": steps,
        "num_accepted_draft_tokens": accepted,
        "num_draft_tokens": drafted,
        "num_spec_tokens": counts.num_spec_tokens,
        "per_step_accepted": list(counts.per_step_accepted) if detailed else None,
        "per_step_drafted": list(counts.per_step_drafted) if detailed else None,
    }


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (_drop_none(v) if isinstance(v, dict) else v) for k, v in d.items() if v is not None}


def _sse(obj: dict[str, Any]) -> str:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"


class Server:
    """Request handling, separated from FastAPI routing so each piece stays small."""

    def __init__(self, core: EngineCore, sink: PrometheusSink) -> None:
        self.core = core
        self.sink = sink
        self.engine = AsyncEngine(core)
        cfg = core.config
        digest = hashlib.sha256(cfg.model_dump_json().encode()).hexdigest()[:8]
        self.fingerprint = f"specverdict-reference-{__version__}-{digest}"
        self.created = int(time.time())

    # --- request preparation -------------------------------------------------------------

    def check_model(self, model: str | None) -> None:
        if model is not None and model != self.core.config.served_model_name:
            raise InvalidRequestError(f"The model `{model}` does not exist.", "model", status=404)

    def build(
        self, body: _Sampling, prompt_ids: list[int], max_tokens: int | None, rid: str
    ) -> GenerationRequest:
        body.check_supported()
        self.check_model(body.model)
        limit = self.core.max_model_len
        vocab = self.core.tokenizer.vocab_size
        if not prompt_ids:
            raise InvalidRequestError("prompt: must not be empty", "prompt")
        if any(t < 0 or t >= vocab for t in prompt_ids):
            raise InvalidRequestError(f"prompt: token ids must lie in [0, {vocab})", "prompt")
        if len(prompt_ids) >= limit:
            raise InvalidRequestError(
                f"This model's maximum context length is {limit} tokens. However, your prompt "
                f"contains {len(prompt_ids)} input tokens, which exceeds this limit even without "
                "any output tokens. Please reduce the length of the input prompt.",
                "input_tokens",
            )
        if max_tokens is not None and max_tokens < 1:
            raise InvalidRequestError(
                f"max_tokens must be at least 1, got {max_tokens}.", "max_tokens"
            )
        if max_tokens is not None and max_tokens > limit:
            raise InvalidRequestError(
                f"max_tokens={max_tokens} cannot be greater than max_model_len={limit}. "
                "Please request fewer output tokens.",
                "max_tokens",
            )
        room = limit - len(prompt_ids)
        params = SamplingParams(
            temperature=1.0 if body.temperature is None else body.temperature,
            top_p=1.0 if body.top_p is None else body.top_p,
        )
        return GenerationRequest(
            request_id=rid,
            prompt_ids=tuple(prompt_ids),
            max_tokens=room if max_tokens is None else min(max_tokens, room),
            sampling=params,
            seed=body.seed,
            stop=body.stop_strings(),
            ignore_eos=body.ignore_eos,
            offers_tools=isinstance(body, ChatCompletionRequest) and body.tools_active(),
        )

    def encode(self, text: str, param: str) -> list[int]:
        """Token ids of request text; text JSON can carry but Unicode cannot (an unpaired
        surrogate such as ``"\\udfff"``) is the client's error, not the server's."""
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidRequestError(
                f"{param}: not valid Unicode text (unpaired surrogate {text[exc.start]!r} at "
                f"character {exc.start})",
                param,
            ) from None
        return self.core.tokenizer.encode(text)

    def completion_prompt(self, body: CompletionRequest) -> list[int]:
        prompt = body.prompt
        if isinstance(prompt, str):
            return self.encode(prompt, "prompt")
        if prompt and isinstance(prompt[0], str):
            return self.encode(str(prompt[0]), "prompt")
        return [int(t) for t in prompt]

    def chat_prompt(self, body: ChatCompletionRequest) -> list[int]:
        messages = [
            {
                "role": "system" if m.role == "developer" else m.role,
                "content": m.text(),
                "tool_calls": [c.model_dump() for c in m.tool_calls] if m.tool_calls else None,
            }
            for m in body.messages
        ]
        tools = [t.model_dump(exclude_none=True) for t in body.tools] if body.tools else None
        text = render_chat(messages, tools, add_generation_prompt=body.add_generation_prompt)
        return self.encode(text, "messages")

    # --- responses -------------------------------------------------------------------------

    def metrics_obj(self, spec: SpecCounts | None, streaming: bool) -> dict[str, Any] | None:
        mode = self.core.config.per_request_spec_decode_metrics
        if mode == "none" or spec is None:
            return None
        obj: dict[str, Any] = {
            "time_to_first_token_ms": None,
            "generation_time_ms": None,
            "queue_time_ms": None,
            "mean_itl_ms": None,
            "tokens_per_second": None,
            "speculative_decoding": spec_metrics_dict(spec, mode == "detailed"),
        }
        return _drop_none(obj) if streaming else obj

    @staticmethod
    def usage(last: RequestOutput) -> dict[str, Any]:
        return {
            "prompt_tokens": last.prompt_tokens,
            "total_tokens": last.prompt_tokens + last.completion_tokens,
            "completion_tokens": last.completion_tokens,
            "prompt_tokens_details": None,
        }

    async def collect(
        self, request: GenerationRequest, disconnected: Callable[[], Awaitable[bool]]
    ) -> tuple[str, RequestOutput]:
        """Run a non-streaming request; abort it if the client goes away, as vLLM does."""
        text: list[str] = []
        last: list[RequestOutput] = []

        async def consume() -> None:
            async with aclosing(self.engine.generate(request)) as outputs:
                async for out in outputs:
                    text.append(out.text)
                    last.append(out)

        task = asyncio.ensure_future(consume())
        while not task.done():
            await asyncio.wait({task}, timeout=DISCONNECT_POLL_S)
            if not task.done() and await disconnected():
                task.cancel()
        await task  # re-raises a cancellation or an engine error
        return "".join(text), last[-1]

    def head(self, rid: str, obj: str, created: int | None = None) -> dict[str, Any]:
        return {
            "id": rid,
            "object": obj,
            "created": int(time.time()) if created is None else created,
            "model": self.core.config.served_model_name,
        }

    async def completion(
        self, body: CompletionRequest, rid: str, disconnected: Disconnected
    ) -> Response:
        req = self.build(body, self.completion_prompt(body), body.max_tokens, rid)
        if body.stream:
            return self.stream(req, body, chat=False)
        text, last = await self.collect(req, disconnected)
        return JSONResponse(
            {
                **self.head(rid, "text_completion"),
                "choices": [
                    {
                        "index": 0,
                        "text": text,
                        "logprobs": None,
                        "finish_reason": last.finish_reason,
                        "stop_reason": last.stop_reason,
                        "prompt_logprobs": None,
                    }
                ],
                "service_tier": None,
                "system_fingerprint": self.fingerprint,
                "usage": self.usage(last),
                "metrics": self.metrics_obj(last.spec, streaming=False),
            }
        )

    async def chat(
        self, body: ChatCompletionRequest, rid: str, disconnected: Disconnected
    ) -> Response:
        req = self.build(body, self.chat_prompt(body), body.requested_max_tokens(), rid)
        if body.stream:
            return self.stream(req, body, chat=True)
        text, last = await self.collect(req, disconnected)
        content: str | None = text
        calls: list[ToolCall] = []
        if body.tools_active():
            content, calls = parse_tool_calls(text)
        finish = last.finish_reason
        if calls and finish == "stop":
            finish = "tool_calls"
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
        if calls:
            message["tool_calls"] = [c.to_openai() for c in calls]
        message["reasoning"] = None
        return JSONResponse(
            {
                **self.head(rid, "chat.completion"),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "logprobs": None,
                        "finish_reason": finish,
                        "stop_reason": last.stop_reason,
                    }
                ],
                "service_tier": None,
                "system_fingerprint": self.fingerprint,
                "usage": self.usage(last),
                "metrics": self.metrics_obj(last.spec, streaming=False),
            }
        )

    def stream(self, req: GenerationRequest, body: _Sampling, chat: bool) -> StreamingResponse:
        opts = body.stream_options
        include_usage = bool(opts and opts.include_usage)
        continuous = bool(opts and opts.include_usage and opts.continuous_usage_stats)
        tools = isinstance(body, ChatCompletionRequest) and body.tools_active()
        obj = "chat.completion.chunk" if chat else "text_completion"
        created = int(time.time())  # one timestamp for every chunk of the stream, as vLLM does

        def choice(text: str, out: RequestOutput | None, finish: str | None) -> dict[str, Any]:
            c: dict[str, Any] = {"index": 0}
            if chat:
                c["delta"] = {"content": text} if text else {}
            else:
                c["text"] = text
            c.update({"logprobs": None, "finish_reason": finish})
            if finish is not None or not chat:
                c["stop_reason"] = out.stop_reason if out and finish else None
            return c

        def chunk(choices: list[dict[str, Any]], out: RequestOutput | None) -> str:
            data = {**self.head(req.request_id, obj, created), "choices": choices}
            if continuous and out is not None:
                data["usage"] = self.usage(out)
            if out is not None and out.device_s is not None:
                data["device_time_s"] = out.device_s
            return _sse(data)

        async def events() -> AsyncIterator[str]:
            if chat:
                first = {
                    "index": 0,
                    "delta": {"role": "assistant", "content": ""},
                    "logprobs": None,
                    "finish_reason": None,
                }
                yield chunk([first], None)
            streamer = ToolCallStreamer() if tools else None
            last: RequestOutput | None = None
            try:
                async for out in self.engine.generate(req):
                    last = out
                    finish = out.finish_reason
                    text = out.text
                    calls: list[ToolCall] = []
                    if streamer is not None:
                        text, calls = streamer.push(text, final=finish is not None)
                    if finish is None:
                        if text:
                            yield chunk([choice(text, out, None)], out)
                        continue
                    if calls:
                        if text:
                            yield chunk([choice(text, out, None)], out)
                        deltas = [c.to_openai(index=i) for i, c in enumerate(calls)]
                        tool_delta = {"tool_calls": deltas}
                        yield chunk(
                            [
                                {
                                    "index": 0,
                                    "delta": tool_delta,
                                    "logprobs": None,
                                    "finish_reason": None,
                                }
                            ],
                            out,
                        )
                        finish, text = ("tool_calls" if finish == "stop" else finish), ""
                    yield chunk([choice(text, out, finish)], out)
            except EngineStepError as exc:
                yield _sse(error_body(str(exc), "InternalServerError", None, 500))
                yield "data: [DONE]\n\n"
                return
            if include_usage and last is not None:
                final: dict[str, Any] = {
                    **self.head(req.request_id, obj, created),
                    "choices": [],
                    "usage": _drop_none(self.usage(last)),
                    "system_fingerprint": self.fingerprint,
                }
                metrics = self.metrics_obj(last.spec, streaming=True)
                if metrics is not None:
                    final["metrics"] = metrics
                if last.device_s is not None:
                    final["device_time_s"] = last.device_s
                    final["device_arrival_s"] = last.device_arrival_s
                yield _sse(final)
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")


def create_app(core: EngineCore, sink: PrometheusSink, startup_delay_s: float = 0.0) -> FastAPI:
    """``startup_delay_s``: ``/health`` answers 503 (not ready) for this long after the server
    starts listening, as a large model's engine does while it loads onto its GPUs."""
    server = Server(core, sink)
    ready_at = [0.0]

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        server.engine.start()
        ready_at[0] = time.monotonic() + startup_delay_s
        yield
        server.engine.stop()

    app = FastAPI(title="specverdict reference engine", version=__version__, lifespan=lifespan)
    app.state.server = server

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        message, param = _validation_message(exc)
        return JSONResponse(error_body(message, "BadRequestError", param, 400), status_code=400)

    @app.exception_handler(InvalidRequestError)
    async def _bad(_: Request, exc: InvalidRequestError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(EngineStepError)
    async def _engine(_: Request, exc: EngineStepError) -> JSONResponse:
        return JSONResponse(error_body(str(exc), "InternalServerError", None, 500), status_code=500)

    def request_id(request: Request, prefix: str) -> str:
        return prefix + (request.headers.get("x-request-id") or secrets.token_hex(8))

    @app.get("/health")
    async def health() -> Response:
        return Response(status_code=200 if time.monotonic() >= ready_at[0] else 503)

    @app.get("/version")
    async def version() -> dict[str, str]:
        return {"version": __version__}

    @app.get("/debug/load_report")
    async def load_report() -> dict[str, object]:
        """Per model: the tensors loaded (name, shape, dtype, source file) and those left at
        their initial values; the ground truth a loader audit compares a checkpoint with."""
        return core.load_report()

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        cfg = core.config
        return {
            "object": "list",
            "data": [
                {
                    "id": cfg.served_model_name,
                    "object": "model",
                    "created": server.created,
                    "owned_by": "specverdict",
                    "root": str(cfg.model_dir),
                    "parent": None,
                    "max_model_len": core.max_model_len,
                    "permission": [
                        {
                            "id": f"modelperm-{secrets.token_hex(8)}",
                            "object": "model_permission",
                            "created": server.created,
                            "allow_create_engine": False,
                            "allow_sampling": True,
                            "allow_logprobs": False,
                            "allow_search_indices": False,
                            "allow_view": True,
                            "allow_fine_tuning": False,
                            "organization": "*",
                            "group": None,
                            "is_blocking": False,
                        }
                    ],
                }
            ],
        }

    @app.get("/metrics")
    async def metrics() -> Response:
        sink.running.set(server.engine.running)
        sink.waiting.set(server.engine.waiting)
        return Response(sink.exposition(), media_type="text/plain; version=0.0.4; charset=utf-8")

    @app.post("/tokenize")
    async def tokenize(body: TokenizeRequest) -> dict[str, Any]:
        """vLLM's answer: the count, the model's context length and the ids."""
        server.check_model(body.model)
        ids = server.encode(body.prompt, "prompt")
        return {"count": len(ids), "max_model_len": core.max_model_len, "tokens": ids}

    @app.post("/detokenize")
    async def detokenize(body: DetokenizeRequest) -> dict[str, Any]:
        """vLLM's answer: the text of the ids; an id outside the vocabulary is refused."""
        server.check_model(body.model)
        vocab = core.tokenizer.vocab_size
        bad = [t for t in body.tokens if t >= vocab]
        if bad:
            raise InvalidRequestError(
                f"token ids {bad[:5]} are outside the vocabulary ({vocab})", "tokens"
            )
        return {"prompt": core.tokenizer.decode(body.tokens)}

    @app.post("/v1/completions")
    async def completions(body: CompletionRequest, request: Request) -> Response:
        return await server.completion(body, request_id(request, "cmpl-"), request.is_disconnected)

    @app.post("/v1/chat/completions")
    async def chat_completions(body: ChatCompletionRequest, request: Request) -> Response:
        return await server.chat(body, request_id(request, "chatcmpl-"), request.is_disconnected)

    return app
