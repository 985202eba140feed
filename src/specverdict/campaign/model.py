"""The campaign file, as strict pydantic models: unknown keys are errors, every field documented.

A campaign names one engine, one model and one quantization, a no-speculation baseline, the
candidates (each list-valued ``k`` or ``draft_quantization`` expands into several runs), the
stages with their suites, and the sampling, load and gate settings shared by every run.
"""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, TypeAlias
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    AllowInfNan,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from specverdict.plugins import ENGINES
from specverdict.reference.options import k_schedule_problem


def _engine_kind(kind: str) -> str:
    """A kind some engine adapter is registered under (built-in or a plugin's)."""
    if kind not in ENGINES.names():
        raise ValueError(
            str(ENGINES.miss(kind)).replace(f"unknown engine kind {kind!r}", "unknown engine kind")
        )
    return kind


#: the kinds come from the engine registry (``specverdict.plugins.ENGINES``): no second list
EngineKind = Annotated[str, AfterValidator(_engine_kind)]
Method = Literal[
    "none", "mtp", "eagle", "eagle3", "medusa", "dflash", "dspark", "ngram", "draft_model", "suffix"
]
#: methods whose engines draft exactly k tokens at every verify step (short of an output's end)
#: unless a parameter (a k schedule, adaptive verification) says otherwise; n-gram, suffix and
#: DSpark draft up to k, and llama.cpp's draft model stops at its p_min
FIXED_K_METHODS = frozenset({"mtp", "eagle", "eagle3", "medusa", "draft_model", "dflash"})
#: methods that draft without a model or head: nothing to score drafts with
MODEL_FREE_METHODS = frozenset({"ngram", "suffix"})
#: engines on which a dspark candidate verifies adaptively unless it says
#: ``adaptive_verification: false`` (the adapters with ``takes_adaptive_verification``)
ADAPTIVE_BY_DEFAULT = frozenset({"vllm", "reference"})
#: a fixed-k engine drafting fewer than this share of k per step on average runs another k
FIXED_K_FLOOR = 0.75
STAGE_PATTERN = re.compile(r"^(function|repository|agent|prose|side:[a-z0-9][a-z0-9_-]*)$")
SUITE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]*@[0-9]+$")

#: A number in a campaign is what the file says: an integer field takes no boolean (YAML reads
#: ``yes`` as true), no float (``1.0e+26``) and no string; a float field takes an integer but no
#: boolean, no string and no NaN or infinity. The bounds below are far beyond any real setting:
#: a value past them is a typo, refused before it becomes a run that never ends.
Int = StrictInt
Real = Annotated[StrictFloat, AllowInfNan(False)]
ParamValue = StrictInt | Real | StrictStr | StrictBool
#: draft tokens per step (engines take at most a few dozen)
MAX_K = 256
#: output tokens of one request
MAX_TOKENS = 1 << 20
#: requests in flight, or requests per second
MAX_LOAD = 100_000
#: samples of one stage, a prompt's length in tokens
MAX_SAMPLES = 100_000_000
#: executions of one run
MAX_REPEATS = 1_000
#: a timeout, in seconds (one day)
MAX_TIMEOUT_S = 86_400.0
#: a seed the engines take (a signed 64-bit integer)
SEED_MIN, SEED_MAX = -(1 << 63), (1 << 63) - 1


def _not_blank(v: str) -> str:
    if not v.strip():
        raise ValueError("must not be blank")
    return v


#: a name, a path or a command: not empty, not only spaces
Text = Annotated[StrictStr, Field(min_length=1), AfterValidator(_not_blank)]

#: what the speed gate compares per sample (design note 023): ``tpot`` time per output token
#: after the first; ``e2e`` a request's end-to-end latency (an agent episode's: its turns on
#: engine time); ``ttft`` time to first token; ``output_throughput`` a request's output
#: tokens/s (compared through its inverse, e2e / output tokens)
SpeedMetric = Literal["tpot", "e2e", "ttft", "output_throughput"]
#: stages judged on end-to-end latency unless they say otherwise: what their users wait for is
#: the whole answer (an edit, an episode), not the pace of its tokens
E2E_STAGES = frozenset({"agent", "repository"})


def default_speed_metric(stage: str) -> SpeedMetric:
    """The speed metric of a stage that names none: e2e for agent and repository, else tpot."""
    return "e2e" if stage in E2E_STAGES else "tpot"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Launch(Strict):
    command: Text | None = Field(
        default=None,
        description="command template; placeholders {model} {served_name} {port} {host} "
        "{quantization} {run_dir} {speculative_args} are filled per run; omitted: the engine's "
        "built-in template",
    )
    args: list[str] = Field(
        default_factory=list,
        description="extra arguments appended to the engine's built-in launch command, e.g. "
        "['--max-model-len', '1024']; part of the run identity",
    )
    env: dict[Annotated[StrictStr, Field(pattern=r"^[^=\x00]+$")], StrictStr] = Field(
        default_factory=dict, description="extra environment variables"
    )
    health_path: StrictStr = Field(
        default="/health", pattern=r"^/\S*$", description="polled until it answers 200"
    )
    startup_timeout_s: Real = Field(
        default=600.0, gt=0, le=MAX_TIMEOUT_S, description="give up after this long"
    )
    resources: dict[Text, Annotated[Real, Field(gt=0)]] = Field(
        default_factory=dict,
        description="what a node needs to run one engine, for the ray executor: Ray resources "
        "such as {GPU: 8} or a custom one ({accel: 1}); CPU and GPU are Ray's own; not part of "
        "the run identity",
    )
    sessions: Literal["round", "execution"] = Field(
        default="round",
        description="round: one server start per configuration, load level and round serves "
        "every stage and sequential look of that configuration in the round (rounds alternate "
        "the configurations' order; a load level has its own start, so that no server answers "
        "a prompt from its prefix cache); execution: a server start per execution",
    )
    servers: int = Field(
        default=1,
        ge=1,
        le=64,
        description="launched servers the host holds at once (one per GPU set, say): up to "
        "this many stay up between their uses, so that sequential looks and later rounds reuse "
        "them; never measured at the same time; not part of the run identity",
    )
    prestart: bool = Field(
        default=False,
        description="start the next sessions' servers while the current one measures, as "
        "many at once as servers allows (needs servers >= 2 and hardware that holds them: on "
        "one shared host a start's load would land on the measurement); sequential looks too",
    )

    @model_validator(mode="after")
    def _room_to_prestart(self) -> Launch:
        if self.prestart and self.servers < 2:
            raise FieldError(
                ("engine", "launch", "prestart"),
                f"prestart starts a second server beside the measured one: servers is "
                f"{self.servers}, expected 2 or more",
            )
        return self


class FieldError(ValueError):
    """A cross-field check's error that names the field it is about (``loc``, a path in the
    campaign), so that the loader points at its line."""

    def __init__(self, loc: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.loc = loc


URL_PATTERN = r"^https?://[^\s/]+"


#: OpenAI-client paths users write after a server's address (the OpenAI SDK's ``base_url``
#: habit): the runner adds the path itself, so they are taken off
OPENAI_SUFFIXES = ("/v1/chat/completions", "/v1/completions", "/v1")


def _url(v: str | None) -> str | None:
    """A server's root URL: ``http://host:port`` (a path prefix of a proxy kept), with an
    OpenAI path suffix (``/v1``, ``/v1/completions``, ``/v1/chat/completions``) taken off."""
    if v is None:
        return None
    if not re.match(URL_PATTERN, v) or re.search(r"\s", v) or not _port_ok(v):
        raise ValueError(f"base_url {v!r} must look like http://host:port")
    v = v.rstrip("/")
    for suffix in OPENAI_SUFFIXES:
        if v.endswith(suffix):
            return v[: -len(suffix)]
    return v


def _port_ok(url: str) -> bool:
    try:
        urlsplit(url).port  # noqa: B018 (raises ValueError on a port out of range)
    except ValueError:
        return False
    return True


AttachUrl = Annotated[StrictStr | None, AfterValidator(_url)]


class EngineSection(Strict):
    kind: EngineKind = Field(description="which adapter drives the engine")
    base_url: AttachUrl = Field(
        default=None,
        description="attach to a running server (the baseline's and, unless a candidate names "
        "its own, every candidate's)",
    )
    launch: Launch | None = Field(default=None, description="start one server per run")
    reconfigure: Literal["never", "between-runs"] = Field(
        default="never",
        description="attach mode: 'between-runs' lets a baseline and candidates share one "
        "base_url, the runner pausing before each run until you have reconfigured the server "
        "(the engine's own draft counts then check that you did)",
    )

    @model_validator(mode="after")
    def _one_way_in(self) -> EngineSection:
        if self.launch is not None and self.launch.command is not None and self.launch.args:
            raise ValueError(
                "launch.args extend the built-in command; with launch.command put them in the "
                "template"
            )
        if self.base_url is not None and self.launch is not None:
            raise ValueError("give either base_url (attach) or launch (start per run), not both")
        return self


class ModelSection(Strict):
    family: Text = Field(
        description="model family, e.g. qwen3-moe; results never transfer across families",
    )
    served_name: Text = Field(description="the name sent as `model` in requests")
    path: Text | None = Field(
        default=None, description="checkpoint path for launch templates ({model})"
    )


class GoldenAcceptance(Strict):
    """An expected acceptance read from a golden acceptance-length file instead of given as a
    number: a YAML file of ``MODEL: {thinking_on: {K: AL}, thinking_off: {K: AL}}`` in the
    form SemiAnalysis InferenceX publishes (``golden_al_distribution/*.yaml``), the AL (accepted
    tokens per verify step, the verify pass's own token included) measured on SPEED-Bench. The
    entry at the candidate's k that the keys below choose is read with the campaign, and its
    acceptance rate (AL - 1) / k, accepted draft tokens per drafted token, is what the runs'
    measured acceptance rate is compared with; a triage names the file and the entry. The
    candidate needs a single k; a file whose header states a method must state the
    candidate's. A file or an entry that does not fit is an error when the campaign is read.
    Example: ``expected_acceptance: {golden: golden/qwen3.827b_bf16_mtp.yaml, thinking: "on"}``
    on a candidate ``{method: mtp, k: 3}`` expects (2.52 - 1) / 3 = 0.507. ``specverdict expect
    --golden FILE`` reads the same entries."""

    golden: Text = Field(description="the golden file, relative to the campaign file")
    entry: Text | None = Field(
        default=None, description="the entry by its path in the file: MODEL/thinking_on/K"
    )
    model: Text | None = Field(default=None, description="the entry's model (its key)")
    thinking: Literal["on", "off"] | None = Field(
        default=None, description="the entry's thinking mode"
    )
    precision: Text | None = Field(
        default=None, description="the precision the file's header states, e.g. bf16"
    )
    category: Text | None = Field(
        default=None, description="the category the file's header states, e.g. coding"
    )


if TYPE_CHECKING:
    #: once read, an expected acceptance is a number (a golden file's a float that also says
    #: where it came from, ``audit.golden.GoldenRate``)
    ExpectedAcceptance: TypeAlias = float
else:
    # a mapping is the golden form, anything else a number: each reports its own errors
    ExpectedAcceptance = Annotated[
        Annotated[Real, Field(gt=0.0, le=1.0), Tag("float")]
        | Annotated[GoldenAcceptance, Tag("GoldenAcceptance")],
        Discriminator(
            lambda v: "GoldenAcceptance" if isinstance(v, dict | GoldenAcceptance) else "float"
        ),
    ]


class Candidate(Strict):
    method: Method
    k: Int | list[Int] | None = Field(
        default=None, description=f"draft tokens per step (1 to {MAX_K}); a list expands"
    )
    k_schedule: list[list[Int]] | None = Field(
        default=None,
        description="k by batch size, vLLM's num_speculative_tokens_per_batch_size: inclusive "
        "ranges [start, end, k], the first from 1, contiguous, k >= 0 (0: speculation off "
        "there), e.g. [[1, 8, 4], [9, 32, 2], [33, 1024, 1]]; past the last range its k. "
        "Instead of k, or with k equal to its largest k",
    )
    adaptive_verification: bool | None = Field(
        default=None,
        description="confidence-scheduled verification (vLLM's speculative_config."
        "enable_adaptive_verification): each step verifies, per request, only the drafts the "
        "drafter is confident enough in for the engine's current load, at most k; default on "
        "for dspark on engines that have it (vllm, reference), false fixes the verify length at k",
    )
    draft: Text | None = Field(default=None, description="draft model or head (path or hub id)")
    draft_quantization: Text | list[Text] | None = Field(
        default=None, description="draft weight quantization; a list expands"
    )
    params: dict[Text, ParamValue] = Field(
        default_factory=dict, description="method parameters passed to the engine as they are"
    )
    base_url: AttachUrl = Field(
        default=None,
        description="attach mode: this candidate's own server, started with its speculation "
        "(default engine.base_url)",
    )
    expected_acceptance: ExpectedAcceptance | None = Field(
        default=None,
        description="the acceptance rate (accepted / drafted tokens, in (0, 1]) this candidate "
        "is known to reach here (from an earlier run or a golden file, not a vendor claim); a "
        "run far below it gets a triage",
    )

    @field_validator("k")
    @classmethod
    def _k(cls, v: int | list[int] | None) -> int | list[int] | None:
        ks = v if isinstance(v, list) else [v] if v is not None else []
        if isinstance(v, list) and not v:
            raise ValueError("k list must not be empty")
        if any(x < 1 for x in ks):
            raise ValueError("k must be at least 1")
        if any(x > MAX_K for x in ks):
            raise ValueError(f"k must be at most {MAX_K}")
        if len(set(ks)) != len(ks):
            raise ValueError("k list has duplicates")
        return v

    @field_validator("k_schedule")
    @classmethod
    def _k_schedule(cls, v: list[list[int]] | None) -> list[list[int]] | None:
        if v is None:
            return v
        problem = k_schedule_problem(v)
        if problem is not None:
            raise ValueError(problem)
        top = max(k for _, _, k in v)
        if top > MAX_K:
            raise ValueError(f"a k of {top}: expected at most {MAX_K}")
        return v

    @field_validator("expected_acceptance")
    @classmethod
    def _golden(cls, v: object, info: ValidationInfo) -> float | None:
        """A golden file's entry at this candidate's k, read now: its rate (AL - 1) / k."""
        if not isinstance(v, GoldenAcceptance):
            return v if isinstance(v, float | int) else None
        if "k" not in info.data or "method" not in info.data:
            return None  # k or method is wrong: that error is the one to read
        k, method = info.data["k"], info.data["method"]
        if method == "none":
            raise FieldError((), "method 'none' drafts nothing: it has no expected acceptance")
        if info.data.get("k_schedule") is not None:
            raise FieldError(
                (),
                "a golden file gives one acceptance length per k, and a k_schedule drafts "
                "several k: give expected_acceptance a number",
            )
        if k is None:
            return None  # "needs k" is said below
        if isinstance(k, list):
            raise FieldError(
                (),
                "a golden file gives one acceptance length per k: give this candidate a single "
                "k (one candidate per k), or expected_acceptance a number",
            )
        from specverdict.campaign.golden import (  # read only when used
            GoldenSelectionError,
            find_entry,
            golden_rate,
        )
        from specverdict.errors import ConfigError

        try:
            entry = find_entry(
                Path(v.golden),
                entry=v.entry,
                k=k,
                model=v.model,
                thinking=v.thinking,
                precision=v.precision,
                category=v.category,
                stated_method=method,
            )
        except GoldenSelectionError as exc:
            raise FieldError((), str(exc)) from None
        except ConfigError as exc:  # the file: unreadable, not YAML, not a golden file
            raise FieldError(("golden",), str(exc)) from None
        return golden_rate(entry)

    @model_validator(mode="after")
    def _shape(self) -> Candidate:
        if self.method == "none":
            if (
                self.k is not None
                or self.k_schedule is not None
                or self.draft is not None
                or self.draft_quantization is not None
            ):
                raise ValueError(
                    "method 'none' takes no k, k_schedule, draft or draft_quantization"
                )
        elif self.k_schedule is not None:
            top = max(k for _, _, k in self.k_schedule)
            if isinstance(self.k, list):
                raise FieldError(
                    ("k",), "a k list cannot go with a k_schedule: one candidate per schedule"
                )
            if self.k is not None and self.k != top:
                raise FieldError(
                    ("k",),
                    f"k {self.k} with a k_schedule: expected the schedule's largest k ({top}), "
                    "or no k",
                )
        elif self.k is None:
            raise ValueError(f"method {self.method!r} needs k (num_speculative_tokens)")
        if self.adaptive_verification is not None:
            if self.method == "none":
                raise FieldError(
                    ("adaptive_verification",),
                    "method 'none' verifies nothing: expected no adaptive_verification",
                )
            if self.method in MODEL_FREE_METHODS and self.adaptive_verification:
                raise FieldError(
                    ("adaptive_verification",),
                    f"true with method {self.method!r}: expected a method with a draft model "
                    "or head (adaptive verification scores drafts by the drafter's "
                    "distribution or confidence)",
                )
            if self.adaptive_verification and self.k_schedule is not None:
                raise FieldError(
                    ("adaptive_verification",),
                    "true with a k_schedule: expected one of them (both set the verify length "
                    "per step)",
                )
        return self

    def adaptive(self, engine_kind: str | None) -> bool | None:
        """Whether this candidate verifies adaptively on ``engine_kind``: as declared, else on
        for dspark where the engine has it (``ADAPTIVE_BY_DEFAULT``), else unset."""
        if self.adaptive_verification is not None:
            return self.adaptive_verification
        if self.method == "dspark" and engine_kind in ADAPTIVE_BY_DEFAULT:
            return True
        return None

    def ks(self) -> list[int | None]:
        """The k of each run this entry expands to (with a schedule: its largest k, vLLM's
        ``num_speculative_tokens``)."""
        if self.k_schedule is not None:
            return [max(k for _, _, k in self.k_schedule)]
        return list(self.k) if isinstance(self.k, list) else [self.k]

    def draft_quantizations(self) -> list[str | None]:
        q = self.draft_quantization
        return list(q) if isinstance(q, list) else [q]


class Baseline(Strict):
    method: Literal["none"] = "none"
    base_url: AttachUrl = Field(
        default=None, description="attach mode: the baseline's own server (default engine.base_url)"
    )


class First(Strict):
    first: Int = Field(gt=0, le=MAX_SAMPLES)


class Ids(Strict):
    ids: list[Text] = Field(min_length=1)


class Seeded(Strict):
    seeded: Int = Field(gt=0, le=MAX_SAMPLES, description="a seeded random subset of this size")
    seed: Int = Field(default=0, ge=SEED_MIN, le=SEED_MAX)
    stratify: Literal["category"] | None = Field(
        default=None,
        description="category: keep the categories' proportions (largest remainder, at least "
        "one each when the size allows)",
    )


Samples = Literal["all"] | First | Ids | Seeded


class ReferenceScorer(Strict):
    """The row's ``reference`` against the answer: ``exact``; ``normalized`` (case, whitespace
    and surrounding punctuation ignored); ``regex`` (the reference is a pattern the answer must
    contain); ``numeric`` (the answer's last number within ``tolerance``, absolute or relative);
    ``json`` (the answer's first JSON value equals the reference)."""

    reference: Literal["exact", "normalized", "regex", "numeric", "json"]
    tolerance: Real = Field(default=1e-6, ge=0)


class TestsScorer(Strict):
    """The row's ``tests`` (Python: ``test_*`` functions, or plain asserts) run in the sandbox
    against the program: the prompt and the completion (completions), or the answer's code
    block (chat), importable as module ``solution``."""

    __test__ = False  # not a pytest test class

    tests: Literal["python"]
    timeout_s: Real = Field(default=10.0, gt=0, le=MAX_TIMEOUT_S)


class PythonScorer(Strict):
    """Your function ``module:function`` called as ``function(row, answer)`` in the runner's
    process (trusted code: your own); it returns a bool, or ``{passed, outcome?, detail?}``."""

    python: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class CommandScorer(Strict):
    """Your program run in the sandbox: it reads ``{"row": ..., "answer": ...}`` as JSON on its
    standard input and prints ``{"passed": bool, "outcome"?: str, "detail"?: str}``; ``files``
    (paths relative to the campaign file) are copied beside it; ``{python}`` in the command is
    the interpreter the sandbox runs."""

    command: list[StrictStr] = Field(min_length=1)
    files: list[Text] = Field(default_factory=list)
    timeout_s: Real = Field(default=30.0, gt=0, le=MAX_TIMEOUT_S)

    @field_validator("command")
    @classmethod
    def _program(cls, v: list[str]) -> list[str]:
        if not v[0].strip():
            raise ValueError("the command's first item, the program, must not be blank")
        return v


Scorer = Literal["none"] | ReferenceScorer | TestsScorer | PythonScorer | CommandScorer


#: the formats each ``replay`` applies to: those with several user turns (and for ``recorded``,
#: recorded replies)
REPLAYS = {
    "first": ("chat", "sharegpt", "spec-bench", "speed-bench"),
    "own": ("chat", "sharegpt", "spec-bench", "speed-bench"),
    "recorded": ("chat", "sharegpt"),
}


class DatasetSection(Strict):
    """A JSONL file of your own prompts (one row a line): ``prompt`` (completions) or
    ``messages`` with optional ``tools`` (chat); optional ``id``, ``category``, ``max_tokens``,
    ``reference``, ``tests`` and ``metadata``."""

    path: Text = Field(description="relative to the campaign file")
    format: Literal[
        "completions",
        "chat",
        # other tools' files, imported (suites/custom/importers.py, docs/workloads.md)
        "vllm-custom",
        "sharegpt",
        "sharegpt-recorded",
        "spec-bench",
        "speed-bench",
        "bfcl",
        "swe-bench",
    ]
    scorer: Scorer = Field(
        default="none",
        description="none: speed, acceptance, identity and output-distribution checks only",
    )
    snapshots: Text | None = Field(
        default=None,
        description="swe-bench: the folder holding each instance's repository as "
        "<instance_id>/ (relative to the campaign file; nothing is cloned)",
    )
    replay: Literal["first", "own", "recorded"] | None = Field(
        default=None,
        description="a conversation of several user turns: first (its first turn only, the "
        "importers' default), own (each user turn in order after the model's own answers: one "
        "conversation, one sample), recorded (each user turn a sample, after the recorded "
        "replies: chat and sharegpt); unset: the format's default (chat: the messages as "
        "written)",
    )

    @model_validator(mode="after")
    def _task_files(self) -> DatasetSection:
        if self.format == "swe-bench":
            if self.snapshots is None:
                raise ValueError("a swe-bench dataset needs snapshots: the repositories' folder")
            if self.scorer != "none":
                raise ValueError(
                    "a swe-bench dataset is scored by its own tests (FAIL_TO_PASS, PASS_TO_PASS) "
                    "in the sandbox: leave scorer out"
                )
        elif self.snapshots is not None:
            raise ValueError("snapshots are for a swe-bench dataset only")
        if self.replay is not None and self.format not in REPLAYS[self.replay]:
            raise ValueError(
                f"replay {self.replay} is for the formats {', '.join(REPLAYS[self.replay])}, "
                f"not {self.format}"
                + (
                    " (it holds no recorded replies)"
                    if self.replay == "recorded" and self.format in REPLAYS["own"]
                    else ""
                )
            )
        return self


class SyntheticSection(Strict):
    """Prompts of fixed length in the target's own tokens, answers of fixed length: the
    workload of ``vllm bench serve --dataset-name random`` and of GuideLLM's synthetic data.
    The prompts are cut by the engine's tokenizer when the run starts (design note 039); the
    whole section is run identity."""

    prompts: Int = Field(gt=0, le=MAX_SAMPLES, description="how many prompts (samples)")
    input_tokens: Int = Field(gt=0, le=MAX_TOKENS, description="each prompt's length, tokens")
    output_tokens: Int = Field(
        gt=0, le=MAX_TOKENS, description="each answer's length (its max_tokens), tokens"
    )
    range_ratio: Real = Field(
        default=0.0,
        ge=0.0,
        lt=1.0,
        description="each length drawn uniformly from [L(1-r), L(1+r)], as vLLM's "
        "--random-range-ratio; 0: every length exactly L",
    )
    source: Literal["corpus", "random"] = Field(
        default="corpus",
        description="corpus: passages of the shipped code corpus; random: token ids drawn "
        "uniformly (acceptance and speed-up on them are not those of real prompts)",
    )
    seed: Int = Field(default=0, ge=0, description="draws the passages, lengths and tokens")
    ignore_eos: StrictBool = Field(
        default=True,
        description="send ignore_eos so that every answer runs to its length (engines whose "
        "request schema takes it); false: answers may stop early, and the report counts them",
    )


class PromptLengthSlice(Strict):
    """Slices by the prompt's length in tokens (as the engine counted it for the baseline):
    ``<b0``, ``b0-b1``, ..., ``>=bn``."""

    prompt_tokens: list[Annotated[Int, Field(le=MAX_SAMPLES)]] = Field(
        default=[1024, 4096, 16384], min_length=1
    )

    @field_validator("prompt_tokens")
    @classmethod
    def _increasing(cls, v: list[int]) -> list[int]:
        if any(b <= 0 for b in v) or any(b >= c for b, c in pairwise(v)):
            raise ValueError("prompt_tokens bins must be positive and increasing")
        return v


class MetadataSlice(Strict):
    """Slices by one field of a dataset row's ``metadata``."""

    metadata: Text


#: ``category`` (a dataset row's category, a generated suite's family), prompt length bins, or
#: a metadata field: each slice value gets verdicts of its own, under the campaign's family
Slice = Literal["category"] | PromptLengthSlice | MetadataSlice


class Slo(Strict):
    """Service-level targets, as vLLM's ``--goodput``: a request is good when each named
    metric is within its target (milliseconds, inclusive); goodput is good requests per
    second. Not part of run identity: a judging choice, applied to stored runs."""

    ttft: Real | None = Field(default=None, gt=0, description="time to first token, ms")
    tpot: Real | None = Field(
        default=None,
        gt=0,
        description="time per output token after the first, ms (a request whose TPOT is not "
        "measured, one event or one token, meets it, as vLLM counts it 0)",
    )
    e2el: Real | None = Field(
        default=None, gt=0, description="end-to-end latency, ms (an agent episode's whole)"
    )

    @model_validator(mode="after")
    def _some(self) -> Slo:
        if self.ttft is None and self.tpot is None and self.e2el is None:
            raise ValueError("an slo names at least one of ttft, tpot, e2el (milliseconds)")
        return self

    def targets_s(self) -> dict[str, float]:
        """The named targets in seconds, keyed ttft, tpot, e2el."""
        named = {"ttft": self.ttft, "tpot": self.tpot, "e2el": self.e2el}
        return {k: v / 1000.0 for k, v in named.items() if v is not None}


class StageSection(Strict):
    suite: StrictStr | None = Field(
        default=None, description="suite name and version, e.g. humaneval-chat@1"
    )
    dataset: DatasetSection | None = Field(default=None, description="your own prompts instead")
    synthetic: SyntheticSection | None = Field(
        default=None, description="prompts and answers of fixed token lengths instead"
    )
    samples: Samples = "all"
    slices: list[Slice] = Field(
        default_factory=list, description="also judge each slice apart (not run identity)"
    )
    speed_metric: SpeedMetric | None = Field(
        default=None,
        description="what the speed gate compares: tpot, e2e, ttft or output_throughput "
        "(default: e2e for agent and repository, an episode's whole for agents; tpot "
        "otherwise); not run identity",
    )
    slo: Slo | None = Field(
        default=None, description="this stage's goodput targets, instead of the campaign's slo"
    )

    @field_validator("suite")
    @classmethod
    def _suite(cls, v: str | None) -> str | None:
        if v is not None and not SUITE_PATTERN.match(v):
            raise ValueError(f"suite {v!r} must be written name@version, e.g. humaneval-chat@1")
        return v

    @model_validator(mode="after")
    def _one_source(self) -> StageSection:
        given = [self.suite, self.dataset, self.synthetic]
        if sum(x is not None for x in given) != 1:
            raise ValueError(
                "give a stage one of suite (name@version), dataset (a file) or synthetic "
                "(fixed token lengths)"
            )
        return self


class Sampling(Strict):
    temperature: Real = Field(default=0.0, ge=0.0, le=100.0)
    top_p: Real = Field(default=1.0, gt=0.0, le=1.0)
    max_tokens: Int = Field(default=256, gt=0, le=MAX_TOKENS)
    seed: Int | None = Field(default=0, ge=SEED_MIN, le=SEED_MAX)


class Load(Strict):
    concurrency: Int | list[Int] | None = None
    request_rate: Real | list[Real] | None = Field(
        default=None, description="requests/s, Poisson arrivals"
    )
    warmup: Int | None = Field(
        default=None,
        ge=0,
        le=MAX_LOAD,
        description="requests sent before every measured execution and excluded from figures "
        "(default 2: a cold server must not be the baseline's handicap)",
    )
    repeats: Int = Field(default=1, ge=1, le=MAX_REPEATS, description="executions of every run")
    baseline_repeats: Int | None = Field(
        default=None,
        ge=1,
        le=MAX_REPEATS,
        description="executions of the baseline (default: repeats, and at least 2): its "
        "run-to-run drift is the noise floor a speed-up must clear; 1 means no speed "
        "decision (unless another configuration is executed twice)",
    )

    blocks: Int | Literal["auto", "off"] = Field(
        default="auto",
        description="attach mode: the configurations of a stage and load level take turns in "
        "blocks of this many requests (ABBA...), so that the speed gate's units are blocks "
        "and a drift slower than a block cancels; 'auto' (default): blocks of max(8, "
        "2 x concurrency) requests (16 at a request rate) when every configuration has its "
        "own attached server, whole executions otherwise; 'off': whole executions",
    )

    def baseline_executions(self, blocked: bool = False) -> int:
        """Executions of the baseline: its own count, else ``repeats``, and at least 2 unless
        the design is ``blocked`` (the blocks then hold the drift)."""
        if self.baseline_repeats is not None:
            return self.baseline_repeats
        return self.repeats if blocked else max(2, self.repeats)

    def block_size(self, level: float) -> int | None:
        """Requests per block at one load level (concurrency or request rate) when blocks
        are asked for, before the campaign says whether its servers allow them."""
        if self.blocks == "off":
            return None
        if isinstance(self.blocks, int):
            return self.blocks
        if self.request_rate is not None:
            return 16
        return max(8, 2 * int(level))

    @model_validator(mode="after")
    def _one_load(self) -> Load:
        if self.concurrency is not None and self.request_rate is not None:
            raise ValueError("give concurrency or request_rate, not both")
        if isinstance(self.blocks, int) and self.blocks < 2:
            raise ValueError(f"blocks {self.blocks}: a block is at least 2 requests")
        if isinstance(self.blocks, int) and self.blocks > MAX_SAMPLES:
            raise ValueError(f"blocks {self.blocks}: a block is at most {MAX_SAMPLES} requests")
        levels = self.levels()
        if not levels:
            raise ValueError("a list of load levels must not be empty")
        for v in levels:
            if v <= 0:
                raise ValueError("load levels must be positive")
            if v > MAX_LOAD:
                raise ValueError(f"load level {v:g} is above {MAX_LOAD}")
        if len(set(levels)) != len(levels):
            raise ValueError("a list of load levels has duplicates")
        return self

    def levels(self) -> list[float]:
        v = self.concurrency if self.concurrency is not None else self.request_rate
        if v is None:
            return [1]
        return list(v) if isinstance(v, list) else [v]


class Gates(Strict):
    alpha: Real = Field(default=0.05, gt=0.0, lt=0.5)
    margin: Real = Field(
        default=0.02, gt=0.0, lt=1.0, description="non-inferiority margin on the pass-rate drop"
    )
    min_speedup: Real = Field(
        default=1.05,
        ge=1.0,
        le=1000.0,
        description="the smallest speed-up worth adopting: the speed-up interval's lower bound must clear it (its upper bound under it rejects)",
    )
    max_failure_rate: Real = Field(
        default=0.05,
        ge=0.0,
        lt=1.0,
        description="above this share of failed requests in either arm, a comparison is invalid",
    )
    family: Literal["holm", "bh", "none"] = Field(
        default="holm",
        description="error control over the campaign's pairs for ADOPT: holm (family-wise), "
        "bh (false-discovery rate) or none (each pair alone)",
    )
    resample_share: Real | None = Field(
        default=None,
        ge=0.0,
        lt=1.0,
        description="share of the quality gate's alpha kept for `specverdict resample` (its "
        "looks spend it; the verdict's betting test gets the rest). Default: 0.2 with sampling "
        "(temperature > 0), 0 with greedy decoding, where re-runs repeat the same answers",
    )
    resample_looks: Int = Field(
        default=3,
        ge=1,
        le=100,
        description="resample analyses a pair may take (each call with new seeds is one), the "
        "reserved share spent over them (Lan-DeMets Pocock-type)",
    )
    calibration_max_age_h: Real = Field(
        default=24.0,
        gt=0.0,
        le=24.0 * 365,
        description="a stored calibration (`specverdict calibrate`) is pooled into the drift "
        "only when measured within this many hours of the campaign's baseline executions: a "
        "host quieter then than now is what the F check at a campaign's few degrees of "
        "freedom cannot see (benchmarks/RESULTS.md, calibration)",
    )

    def resample_reserve(self, temperature: float) -> float:
        """The share of the quality alpha kept for resampling, for decoding at ``temperature``."""
        if self.resample_share is not None:
            return self.resample_share
        return 0.2 if temperature > 0.0 else 0.0


class Sequential(Strict):
    """A sequential campaign (the file's form of ``run --until-decided``): every pair gets the
    next ``batch`` samples of its stage's selection until its verdict is settled, at most
    ``max_samples``; the verdict's fixed-n gates spend alpha over the declared looks."""

    batch: Int = Field(
        default=40, ge=1, le=MAX_SAMPLES, description="samples added to each open pair per look"
    )
    max_samples: Int | None = Field(
        default=None,
        ge=1,
        le=MAX_SAMPLES,
        description="the most samples a pair takes (default: the selection)",
    )


class LoaderAuditSection(Strict):
    checkpoint: Text | None = Field(
        default=None, description="target checkpoint directory to inventory (safetensors)"
    )
    draft_checkpoint: Text | None = Field(
        default=None, description="draft or MTP checkpoint directory to inventory"
    )
    loaded_names: Text | None = Field(
        default=None,
        description="a file listing the parameter names the engine loaded (vLLM, SGLang); the "
        "reference engine is asked for its /debug/load_report instead",
    )


class OverridesAuditSection(Strict):
    manifest: Text = Field(description="YAML: path -> sha256, or path -> {contains: marker}")
    via: Text | None = Field(
        default=None, description="command prefix to read the files, e.g. 'docker exec vllm-0'"
    )
    root: Text | None = Field(default=None, description="directory the manifest's paths are in")


class Audits(Strict):
    loader: LoaderAuditSection | None = None
    overrides: OverridesAuditSection | None = None


class ExecutorSection(Strict):
    """Where the runs execute: ``local`` (this process, one run at a time) or ``ray`` (one
    actor per node of a Ray cluster that has ``engine.launch.resources``, one run per node at a
    time). ``specverdict run --executor/--address`` override it."""

    kind: Literal["local", "ray"] = Field(default="local", description="local or ray")
    address: Text | None = Field(
        default=None,
        description="the Ray cluster to join (its GCS address host:6379, or auto); omitted: "
        "RAY_ADDRESS, else a cluster started on this machine for the campaign",
    )


class Claim(Strict):
    """An external claim, checked by ``specverdict expect``; never a target or an expectation."""

    source: Text
    method: Method
    k: Int = Field(ge=1, le=MAX_K)
    speedup: Real = Field(gt=0.0, le=1000.0)


def _stage_name(v: str) -> str:
    if not STAGE_PATTERN.match(v):
        raise ValueError("a stage is function, repository, agent, prose or side:<name>")
    return v


StageName = Annotated[str, AfterValidator(_stage_name)]


class Campaign(Strict):
    name: StrictStr = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    engine: EngineSection
    model: ModelSection
    quantization: Text = Field(description="target weight quantization, e.g. bf16, fp8, nvfp4")
    baseline: Baseline | None = Field(
        default=Baseline(),
        description="the no-speculation baseline; null leaves candidates unpaired (no verdicts)",
    )
    candidates: list[Candidate] = Field(min_length=1)
    stages: dict[StageName, StageSection] = Field(min_length=1)
    sampling: Sampling = Sampling()
    load: Load = Load()
    gates: Gates = Gates()
    sequential: Sequential | None = Field(
        default=None,
        description="run pairs in batches until each is decided (as run --until-decided); "
        "not part of run identity",
    )
    audits: Audits = Audits()
    slo: Slo | None = Field(
        default=None,
        description="goodput targets for every stage (vLLM's --goodput), e.g. {ttft: 500, "
        "tpot: 50}; not run identity",
    )
    claims: list[Claim] = Field(default_factory=list)
    executor: ExecutorSection = ExecutorSection()

    @field_validator("candidates")
    @classmethod
    def _no_none(cls, v: list[Candidate]) -> list[Candidate]:
        for i, c in enumerate(v):
            if c.method == "none":
                raise ValueError(f"candidate {i} has method 'none': that is the baseline")
        return v

    def speed_metric(self, stage: str) -> SpeedMetric:
        """The metric the speed gate of ``stage`` compares."""
        section = self.stages.get(stage)
        own = section.speed_metric if section is not None else None
        return own or default_speed_metric(stage)

    def slo_for(self, stage: str) -> Slo | None:
        """The goodput targets of ``stage``: its own, else the campaign's."""
        section = self.stages.get(stage)
        return (section.slo if section is not None else None) or self.slo

    def baseline_url(self) -> str | None:
        """The server the baseline is measured on in attach mode (None: launched per run)."""
        own = self.baseline.base_url if self.baseline is not None else None
        return own or self.engine.base_url

    def candidate_url(self, candidate: Candidate) -> str | None:
        return candidate.base_url or self.engine.base_url

    def blocked(self) -> bool:
        """Whether the configurations take turns in blocks (``load.blocks``): only in attach
        mode with a server per configuration, where switching costs nothing; launched
        servers (a start per block) and one shared server reconfigured by hand run whole
        executions."""
        if self.load.blocks == "off" or self.engine.reconfigure == "between-runs":
            return False
        return self.baseline_url() is not None

    def block_size(self, level: float) -> int | None:
        """Requests per block at load ``level``, None when the design is whole executions."""
        return self.load.block_size(level) if self.blocked() else None

    @model_validator(mode="after")
    def _servers(self) -> Campaign:
        """Attach mode must be able to be right: each configuration on a server started with
        it, or a declared pause to reconfigure one shared server between runs."""
        urls = [self.baseline_url(), *(self.candidate_url(c) for c in self.candidates)]
        attached = any(u is not None for u in urls)
        if attached and self.engine.launch is not None:
            raise ValueError(
                "give either base_url (attach) or engine.launch (start per run), not both"
            )
        if not attached:
            if isinstance(self.load.blocks, int):
                raise FieldError(
                    ("load", "blocks"),
                    f"blocks of {self.load.blocks} take turns between running servers: a "
                    "launched campaign would start a server per block (attach with base_url, "
                    "or remove load.blocks)",
                )
            # the adapter knows, read through the registry (the schema imports no engine)
            adapter = ENGINES.get(self.engine.kind)
            if self.engine.launch is None and not getattr(adapter, "self_launching", False):
                raise ValueError(f"engine kind {self.engine.kind!r} needs base_url or launch")
            return self
        if self.baseline is not None and self.baseline_url() is None:
            raise FieldError(("baseline",), "no base_url (give it one, or engine.base_url)")
        for i, c in enumerate(self.candidates):
            if self.candidate_url(c) is None:
                raise FieldError(("candidates", i), "no base_url (give it one, or engine.base_url)")
        if isinstance(self.load.blocks, int) and self.engine.reconfigure == "between-runs":
            raise FieldError(
                ("load", "blocks"),
                f"blocks of {self.load.blocks} need a server per configuration; with "
                "engine.reconfigure: between-runs the configurations run whole executions "
                "(remove load.blocks, or give each configuration its own base_url)",
            )
        if self.engine.reconfigure == "between-runs" or self.baseline is None:
            return self
        for i, c in enumerate(self.candidates):
            if self.candidate_url(c) == self.baseline_url():
                raise FieldError(
                    ("candidates", i),
                    f"{c.method} would be measured on the baseline's server "
                    f"{self.baseline_url()}: one unchanged server cannot be both; give this "
                    "candidate its own base_url (a server started with its speculation), or set "
                    "engine.reconfigure: between-runs to be asked to reconfigure it between runs",
                )
        return self
