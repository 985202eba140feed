"""The engine core: models loaded once, requests turned into token and text outputs.

Stop rules follow vLLM's order (``vllm/v1/core/sched/utils.py: check_stop``), checked after every
emitted token, so a multi-token speculative step is cut exactly where a one-token step would stop:
length (``max_tokens`` or the context) first, then the primary EOS (stop_reason null), then other
stop token ids (stop_reason = the id), then stop strings (text cut before the string, stop_reason =
the string). Tokens after the stop in the same step are discarded.

One difference from vLLM, on purpose: vLLM checks stop strings once per engine step and keeps
all token ids of that step, so after a multi-token speculative step its ``completion_tokens`` can
exceed the text's tokens; here every stop rule cuts at the exact token, so counts are the same
with and without speculation.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import numpy as np
from threadpoolctl import threadpool_limits

from specverdict.reference.adaptive import verify_lengths
from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.decoding import SequenceDecoder, SpecCounts
from specverdict.reference.device import (
    BYTES_PER_PARAM,
    COMPUTE_RATE,
    DEFAULT_COST_PROFILE,
    PROFILES,
    DeviceModel,
)
from specverdict.reference.loading import LoadOptions
from specverdict.reference.model import (
    F64,
    BlockDrafterModel,
    DSparkDrafterModel,
    Eagle3DrafterModel,
    GPTModel,
    KVCache,
    MedusaHeadsModel,
    MTPHeadModel,
)
from specverdict.reference.options import Scheme
from specverdict.reference.prefix_cache import PrefixCache
from specverdict.reference.proposers import (
    BlockDraftMethod,
    DegradedProposer,
    DraftModelMethod,
    DSparkMethod,
    Eagle3Method,
    MedusaMethod,
    Method,
    MTPMethod,
    NgramMethod,
    SuffixMethod,
)
from specverdict.reference.sampling import AcceptanceRule, SamplingParams
from specverdict.reference.tokenizer import Detokenizer, RefTokenizer
from specverdict.reference.weights import shipped


@dataclass(frozen=True)
class GenerationRequest:
    request_id: str
    prompt_ids: tuple[int, ...]
    max_tokens: int
    sampling: SamplingParams
    seed: int | None = None
    stop: tuple[str, ...] = ()
    ignore_eos: bool = False
    #: the request offered tools (an agent's turn): its client runs a tool before it asks
    #: again, so the virtual clock does not wait for that request (``server.async_engine``)
    offers_tools: bool = False


@dataclass(frozen=True)
class RequestOutput:
    """What one engine iteration produced for a request (deltas, plus totals on finish)."""

    request_id: str
    token_ids: tuple[int, ...]
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None = None
    stop_reason: str | int | None = None
    spec: SpecCounts | None = None
    #: with a virtual device clock: the modelled device time from the request's arrival to the
    #: end of the step that produced this output
    device_s: float | None = None
    #: ... and the device clock at the request's arrival (a run's span on the device clock)
    device_arrival_s: float | None = None


class MetricsSink(Protocol):
    def prompt_tokens(self, n: int) -> None: ...
    def generation_tokens(self, n: int) -> None: ...
    def spec_step(self, drafted: int, accepted: int) -> None: ...
    def request_finished(self, reason: str) -> None: ...
    def prefix_cache(self, queried: int, hit: int) -> None: ...


class NullSink:
    def prompt_tokens(self, n: int) -> None: ...
    def generation_tokens(self, n: int) -> None: ...
    def spec_step(self, drafted: int, accepted: int) -> None: ...
    def request_finished(self, reason: str) -> None: ...
    def prefix_cache(self, queried: int, hit: int) -> None: ...


def build_method(
    spec: SpeculativeConfig, target: GPTModel, options: LoadOptions | None = None
) -> Method:
    """The proposer of a speculative config; draft weights go through the same loader as the
    target's (overrides, the loader fault, quantization of the draft)."""
    options = options or LoadOptions()
    quant = spec.quantization or "none"
    if spec.method == "ngram":
        lo, hi = spec.lookup_range
        return NgramMethod(lo, hi)
    if spec.method == "suffix":
        return SuffixMethod(spec.suffix)
    if spec.method == "draft_model":
        path = Path(spec.model) if spec.model else shipped("draft")
        draft = GPTModel.from_dir(path, "draft", options, quant)
        if draft.config.vocab_size != target.config.vocab_size:
            raise ValueError(
                f"draft model {path} has vocab_size {draft.config.vocab_size}, "
                f"the target {target.config.vocab_size}: they must share a tokenizer"
            )
        return DraftModelMethod(draft)
    if spec.method == "medusa":
        path = Path(spec.model) if spec.model else shipped("medusa")
        heads = MedusaHeadsModel.from_dir(path, target, options, quant)
        if spec.num_speculative_tokens > heads.num_heads:
            raise ValueError(
                f"num_speculative_tokens {spec.num_speculative_tokens}: the Medusa checkpoint "
                f"{path} has {heads.num_heads} heads, one per draft token"
            )
        return MedusaMethod(heads)
    if spec.method == "eagle3":
        path = Path(spec.model) if spec.model else shipped("eagle3")
        eagle = Eagle3DrafterModel.from_dir(path, target, options, quant)
        target.capture_layers = eagle.layers
        return Eagle3Method(eagle)
    if spec.method == "dspark":
        path = Path(spec.model) if spec.model else shipped("dspark")
        dspark = DSparkDrafterModel.from_dir(path, target, options, quant)
        if spec.num_speculative_tokens > dspark.block_size:
            raise ValueError(
                f"num_speculative_tokens {spec.num_speculative_tokens}: the DSpark drafter "
                f"{path} drafts blocks of at most {dspark.block_size}"
            )
        return DSparkMethod(dspark)
    if spec.method == "dflash":
        path = Path(spec.model) if spec.model else shipped("dflash")
        drafter = BlockDrafterModel.from_dir(path, target, options, quant)
        if spec.num_speculative_tokens > drafter.block_size:
            raise ValueError(
                f"num_speculative_tokens {spec.num_speculative_tokens}: the block drafter "
                f"{path} drafts blocks of at most {drafter.block_size}"
            )
        return BlockDraftMethod(drafter)
    path = Path(spec.model) if spec.model else shipped("mtp")
    return MTPMethod(MTPHeadModel.from_dir(path, target, options, quant))


#: the activation format a low-precision verify GEMM reads, by weight format: 4-bit formats
#: quantize activations too (W4A4, as NVFP4 GEMMs do); an fp8 GEMM reads them as bf16
VERIFY_ACTIVATIONS: dict[str, Scheme] = {"fp8": "bf16", "nvfp4": "nvfp4", "int4": "int4"}


class EngineCore:
    def __init__(self, config: EngineConfig, sink: MetricsSink | None = None) -> None:
        self.config = config
        # The matrices are tiny: BLAS threads add only synchronisation, and their spin-waiting
        # stalls a step by hundreds of milliseconds when the machine is shared (the harness runs
        # beside the engine). One thread per process, as real engines pin their CPU threads.
        self._blas_limit = threadpool_limits(limits=1, user_api="blas")
        self.sink: MetricsSink = sink or NullSink()
        self.tokenizer = RefTokenizer(config.model_dir)
        self.load_options = LoadOptions(config.override_dir, config.fault_draft_skip)
        self.target = GPTModel.from_dir(
            config.model_dir, "target", self.load_options, config.quantization, config.moe
        )
        self.max_model_len = config.max_model_len or self.target.config.n_positions
        if self.max_model_len > self.target.config.n_positions:
            raise ValueError(
                f"max_model_len {self.max_model_len} exceeds the model's context "
                f"({self.target.config.n_positions})"
            )
        spec = config.speculative
        self.method: Method | None = (
            build_method(spec, self.target, self.load_options) if spec else None
        )
        self.k = spec.num_speculative_tokens if spec else 0
        self.acceptance = AcceptanceRule.of(spec) if spec else AcceptanceRule()
        if config.verify_numerics == "kernel":
            self.target.verify_activations = VERIFY_ACTIVATIONS.get(config.quantization, "none")
        self._seeds = np.random.default_rng(config.seed)
        self.prefix_cache: PrefixCache | None = (
            PrefixCache(config.prefix_cache_tokens) if config.enable_prefix_caching else None
        )
        self.started = 0  # requests started (the drift fault counts them)
        #: how many requests each batched step carried (a histogram, bounded by max_num_seqs)
        self.batch_sizes: Counter[int] = Counter()
        self.device: DeviceModel | None = (
            PROFILES[config.device_model] if config.device_model else None
        )
        self.modeled_s = 0.0  # total modelled device time of all steps
        #: hold each step for its modelled time (a server must); benchmarks that read
        #: ``modeled_s`` instead of the wall clock may turn it off and run at host speed
        self.pace = True

    def next_seed(self) -> int:
        """A seed for a request that brought none: reproducible from the engine's ``--seed``."""
        return int(self._seeds.integers(0, 2**63))

    def load_report(self) -> dict[str, object]:
        """Per model: tensors loaded (name, shape, dtype, source file) and left at init."""
        models = [self.target.load_report]
        method = self.method
        if isinstance(method, DraftModelMethod):
            models.append(method.draft.load_report)
        elif isinstance(method, MTPMethod):
            models.append(method.head.load_report)
        elif isinstance(method, MedusaMethod):
            models.append(method.heads.load_report)
        elif isinstance(method, BlockDraftMethod | Eagle3Method | DSparkMethod):
            models.append(method.drafter.load_report)
        return {"models": [m.as_json() for m in models if m is not None]}

    def start(self, request: GenerationRequest) -> RequestState:
        return RequestState(self, request)

    def step_batch(self, states: list[RequestState]) -> list[RequestOutput | Exception]:
        """One engine step for several requests: drafts per request, then one batched target
        forward over all of them (continuous batching), then verification per request. A
        request whose step fails gets its exception in place of an output; the others go on."""
        t0 = time.perf_counter()
        outs: list[RequestOutput | Exception | None] = [None] * len(states)
        planned: list[tuple[int, tuple[list[int], KVCache, bool]]] = []
        # the step's draft length: a k schedule's k at this batch size (the requests it runs)
        spec = self.config.speculative
        k = spec.k_for(len(states)) if spec is not None else 0
        for i, state in enumerate(states):
            try:
                planned.append((i, state.begin(k)))
            except Exception as exc:  # delivered to the request, as data
                outs[i] = exc
        if planned and spec is not None and spec.enable_adaptive_verification:
            planned = self._verify_adaptively(planned, states)
        if planned:
            self.batch_sizes[len(planned)] += 1
            try:
                results = self.target.forward_batch([p for _, p in planned])
            except Exception as exc:  # a failed pass fails its requests, not the engine
                for i, _ in planned:
                    outs[i] = exc
                results = []
            features: list[F64 | None] = [None] * len(results)
            if self.target.capture_layers and results:
                features = list(self.target.last_features)
            for (i, _), (logits, hidden), feats in zip(planned, results, features, strict=False):
                try:
                    outs[i] = states[i].finish(logits, hidden, feats)
                except Exception as exc:  # delivered to the request
                    outs[i] = exc
        if self.device is not None and planned:
            self._pace(t0, [states[i] for i, _ in planned], sum(len(p[0]) for _, p in planned))
        if self.config.device_clock == "virtual":
            outs = [
                replace(
                    o,
                    device_s=self.modeled_s - s.arrival_device_s,
                    device_arrival_s=s.arrival_device_s,
                )
                if isinstance(o, RequestOutput)
                else o
                for o, s in zip(outs, states, strict=True)
            ]
        done = [o for o in outs if o is not None]
        assert len(done) == len(states)
        return done

    def _verify_adaptively(
        self,
        planned: list[tuple[int, tuple[list[int], KVCache, bool]]],
        states: list[RequestState],
    ) -> list[tuple[int, tuple[list[int], KVCache, bool]]]:
        """Cut each request's drafts to the verify length of the confidence-scheduled rule
        (``adaptive.verify_lengths``) on this step's cost: the device model's, or without one
        the default profile's, so that the rule is the same with and without pacing."""
        decoders = [states[i].decoder for i, _ in planned]
        confidences = [
            d.last_confidence if d.last_confidence is not None else np.empty(0) for d in decoders
        ]
        # rows beyond one per request and its verified drafts: the prefills' prompts
        fixed = sum(
            len(p[0]) - 1 - d.last_drafts for (_, p), d in zip(planned, decoders, strict=True)
        )
        stepping = [states[i] for i, _ in planned]
        plan = verify_lengths(confidences, lambda rows: self._step_seconds(stepping, rows + fixed))
        out = []
        for (i, (fed, cache, last_only)), d, n in zip(planned, decoders, plan.lengths, strict=True):
            kept = d.verify_only(n) if d.last_confidence is not None else fed
            out.append((i, (kept, cache, last_only)))
        return out

    def _step_seconds(self, states: list[RequestState], rows: int) -> float:
        """The device model's time of a step over ``states`` that computes ``rows`` target rows
        (without a device model: the default profile's)."""
        device = self.device or PROFILES[DEFAULT_COST_PROFILE]
        read, computed = self.target.step_work(rows)
        t = device.overhead_s + device.target_time(
            read * BYTES_PER_PARAM[self.config.quantization],
            computed,
            COMPUTE_RATE[self.config.quantization],
        )
        drafts = max((s.decoder.last_proposed for s in states), default=0)
        work = self.method.draft_work(drafts) if self.method is not None and drafts else None
        if work is not None:
            # every request of the batch drafts in the same passes (padded to the longest)
            draft_q = self.config.speculative.quantization if self.config.speculative else None
            t += device.draft_time(
                work.passes,
                work.params_read * BYTES_PER_PARAM[draft_q or "none"],
                work.params_per_row,
                len(states) * work.rows,
            )
        return t

    def _pace(self, t0: float, states: list[RequestState], rows: int) -> None:
        """Hold the step until the device model's time for the work it did has passed."""
        t = self._step_seconds(states, rows)
        self.modeled_s += t
        if not self.pace or self.config.device_clock == "virtual":
            return
        wait = t - (time.perf_counter() - t0)
        if wait > 0:
            time.sleep(wait)


class RequestState:
    def __init__(self, core: EngineCore, request: GenerationRequest) -> None:
        self.core = core
        self.request = request
        # vLLM accepts any integer seed; numpy wants a non-negative one.
        seed = request.seed % 2**64 if request.seed is not None else core.next_seed()
        proposer = core.method.new_sequence() if core.method else None
        after = core.config.fault_degrade_draft_after
        if proposer is not None and after is not None and core.started >= after:
            proposer = DegradedProposer(proposer, core.target.config.vocab_size)
        core.started += 1
        #: the device clock when the request arrived (the virtual clock stamps from it)
        self.arrival_device_s = core.modeled_s
        self.decoder = SequenceDecoder(
            core.target,
            list(request.prompt_ids),
            request.sampling,
            np.random.default_rng(seed),
            proposer,
            core.k,
            core.acceptance,
            core.max_model_len,
        )
        if core.prefix_cache is not None:
            hit = core.prefix_cache.lookup(request.prompt_ids, self.decoder.cache)
            core.sink.prefix_cache(len(request.prompt_ids), hit)
        self.spec = SpecCounts(core.k) if core.method else None
        self.detok = Detokenizer(core.tokenizer)
        self.output_ids: list[int] = []
        self.sent_chars = 0
        self.finished = False
        self.hold = max((len(s) for s in request.stop), default=1) - 1

    def _check_stop(self, token: int) -> tuple[str, str | int | None] | None:
        req, core = self.request, self.core
        n_total = len(req.prompt_ids) + len(self.output_ids)
        if len(self.output_ids) >= req.max_tokens or n_total >= core.max_model_len:
            return "length", None
        if not req.ignore_eos and token == core.tokenizer.eos_token_id:
            return "stop", None
        if not req.ignore_eos and token in core.tokenizer.stop_token_ids:
            return "stop", token
        return None

    def _check_stop_strings(self) -> str | None:
        text = self.detok.text
        window = max(0, self.sent_chars - self.hold - 1)
        for s in self.request.stop:
            at = text.find(s, window)
            if at >= 0:
                self.detok.text = text[:at]
                return s
        return None

    def begin(self, k: int | None = None) -> tuple[list[int], KVCache, bool]:
        """Plan this request's next step (at most ``k`` drafts proposed, default the engine's
        k): what the target must run."""
        tokens, last_only = self.decoder.begin(k)
        return tokens, self.decoder.cache, last_only

    def advance(self) -> RequestOutput:
        """Run one engine step for this request alone (the prefill on the first call)."""
        (out,) = self.core.step_batch([self])
        if isinstance(out, Exception):
            raise out
        return out

    def finish(self, logits: F64, hidden: F64, features: F64 | None = None) -> RequestOutput:
        """Complete the planned step with the target's outputs; apply the stop rules."""
        first = not self.output_ids
        result = self.decoder.complete(logits, hidden, features)
        sink = self.core.sink
        if first:
            sink.prompt_tokens(len(self.request.prompt_ids))
            if self.core.prefix_cache is not None:  # the prompt's blocks, for requests beside it
                self.core.prefix_cache.insert(self.request.prompt_ids, self.decoder.cache)
        if result.drafted and self.spec is not None:
            self.spec.record(result.drafted, result.accepted)
            sink.spec_step(result.drafted, result.accepted)
        new_ids: list[int] = []
        finish: tuple[str, str | int | None] | None = None
        for token in result.tokens:
            new_ids.append(token)
            self.output_ids.append(token)
            self.detok.push([token])
            finish = self._check_stop(token)
            # Stop strings are checked even on a length finish and then win, as vLLM's
            # detokenizer does after the scheduler has capped the request.
            if self.request.stop and (finish is None or finish[0] == "length"):
                hit = self._check_stop_strings()
                if hit is not None:
                    finish = ("stop", hit)
            if finish is not None:
                break
        sink.generation_tokens(len(new_ids))
        return self._emit(new_ids, finish)

    def abort(self) -> RequestOutput:
        return self._emit([], ("abort", None))

    def _emit(
        self, new_ids: list[int], finish: tuple[str, str | int | None] | None
    ) -> RequestOutput:
        text = self.detok.text
        end = len(text) if finish else max(self.sent_chars, len(text) - self.hold)
        delta = text[self.sent_chars : end]
        self.sent_chars = end
        if finish:
            self.finished = True
            self.core.sink.request_finished(finish[0])
            if isinstance(self.core.method, SuffixMethod):  # later requests match against it
                self.core.method.finished(self.output_ids)
            if self.core.prefix_cache is not None:  # the conversation's next turn starts so
                self.core.prefix_cache.insert(self.decoder.tokens, self.decoder.cache)
        return RequestOutput(
            request_id=self.request.request_id,
            token_ids=tuple(new_ids),
            text=delta,
            prompt_tokens=len(self.request.prompt_ids),
            completion_tokens=len(self.output_ids),
            finish_reason=finish[0] if finish else None,
            stop_reason=finish[1] if finish else None,
            spec=self.spec if finish else None,
        )


def generate(core: EngineCore, request: GenerationRequest) -> list[RequestOutput]:
    """Run one request to completion in the calling thread (benchmarks and tests)."""
    state = core.start(request)
    outputs = [state.advance()]
    while not state.finished:
        outputs.append(state.advance())
    return outputs
