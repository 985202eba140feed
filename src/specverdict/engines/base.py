"""The ``EngineAdapter`` interface: how to launch an engine for a run and where its acceptance
figures come from. One class per engine kind, registered by kind."""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict

from specverdict.campaign.model import Launch
from specverdict.campaign.spec import RunSpec
from specverdict.records import MetricsSnapshot, RequestAcceptance, SampleRecord

AcceptanceSourceName = Literal[
    "per-request", "metrics-delta", "iteration-stats", "server-cumulative", "none"
]


class AcceptanceSummary(BaseModel):
    """A run's acceptance, with where it came from and whether it can be trusted."""

    model_config = ConfigDict(frozen=True)

    source: AcceptanceSourceName
    valid: bool
    why: str | None = None
    polluted: bool = False  # other traffic moved the server's counters during the run
    drafts: float | None = None
    draft_tokens: float | None = None
    accepted: float | None = None
    accepted_per_pos: tuple[float, ...] = ()

    @property
    def drafted(self) -> bool | None:
        """Whether the engine drafted any token during the run, by its own account: the
        evidence of its actual speculation, beside the declared one. None when it gave no
        counts, or when it drafted but other traffic may have been the one drafting (no
        draft at all is certain whoever else was served)."""
        if self.draft_tokens is None:
            return None
        if self.draft_tokens == 0:
            return False
        return None if self.polluted else True

    def as_baseline(self, polluted: str | None = None) -> AcceptanceSummary:
        """These counts, as a baseline's evidence of what it drafted (see baseline_summary)."""
        return baseline_summary(
            self.source, self.drafts, self.draft_tokens, self.accepted, polluted
        )

    @property
    def acceptance_rate(self) -> float | None:
        """accepted / drafted tokens (the bonus token is not a draft)."""
        if not self.valid or not self.draft_tokens or self.accepted is None:
            return None
        return self.accepted / self.draft_tokens

    @property
    def mean_accepted_length(self) -> float | None:
        """1 + accepted / drafts: tokens per verify step, the bonus token included."""
        if not self.valid or not self.drafts or self.accepted is None:
            return None
        return 1.0 + self.accepted / self.drafts


#: the engine fields of the per-step arrays (vLLM's ``detailed`` level), lifted into
#: ``RequestAcceptance``'s fields of the same names
PER_STEP_KEYS = ("per_step_accepted", "per_step_drafted")


def _count(v: Any) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or v < 0 or v != int(v):
        return None
    return int(v)


def _counts(v: Any) -> list[int] | None:
    if not isinstance(v, list) or any(_count(x) is None for x in v):
        return None
    return [int(x) for x in v]


def canonical_acceptance(
    raw: Mapping[str, Any],
    draft_tokens: Any,
    accepted: Any,
    steps: Any = None,
    histogram: Any = None,
    per_step_accepted: Any = None,
    per_step_drafted: Any = None,
) -> dict[str, Any] | None:
    """The canonical per-request dict, or None when the counts are missing or not numbers.

    The per-step arrays are kept when both are lists of counts of one length, no step
    accepting more than it drafted; they then leave ``raw`` (stored once, in their fields).
    Otherwise the dict has no per-step keys and they stay in ``raw`` as the engine sent them."""
    n_draft, n_acc = _count(draft_tokens), _count(accepted)
    if n_draft is None or n_acc is None:
        return None
    hist = _counts(histogram)
    step_acc, step_draft = _counts(per_step_accepted), _counts(per_step_drafted)
    if (
        step_acc is None
        or step_draft is None
        or len(step_acc) != len(step_draft)
        or any(a > d for a, d in zip(step_acc, step_draft, strict=True))
    ):
        step_acc = step_draft = None
    out: dict[str, Any] = {
        "num_draft_tokens": n_draft,
        "num_accepted_draft_tokens": n_acc,
        "num_spec_steps": _count(steps),
        "acceptance_histogram": hist,
        "raw": dict(raw),
    }
    if step_acc is not None:
        out["raw"] = {k: v for k, v in raw.items() if k not in PER_STEP_KEYS}
        out["per_step_accepted"], out["per_step_drafted"] = step_acc, step_draft
    return out


def restarted(requests: float, segment_requests: int) -> str:
    """Why a run whose counters went back is not believed: the server restarted during it."""
    return (
        f"restarted: the server's counters went back during the run (finished requests "
        f"{requests:+g} against {segment_requests} sent): the server restarted, so the run's "
        "figures span two servers; measure it again (run --remeasure)"
    )


def baseline_summary(
    source: AcceptanceSourceName,
    drafts: float | None = None,
    draft_tokens: float | None = None,
    accepted: float | None = None,
    polluted: str | None = None,
) -> AcceptanceSummary:
    """A baseline's summary: no acceptance figure is asked of it, but the engine's counts of
    what it drafted during the run are kept, since a baseline that drafts is not one."""
    return AcceptanceSummary(
        source=source if draft_tokens is not None else "none",
        valid=True,
        polluted=polluted is not None,
        why=polluted or "no speculation declared",
        drafts=drafts,
        draft_tokens=draft_tokens,
        accepted=accepted,
    )


def per_request_summary(samples: Sequence[SampleRecord]) -> AcceptanceSummary | None:
    """Sum canonical per-request counts; None unless every answered sample carries them, and
    an invalid summary naming the first malformed one.

    Mean accepted length needs the number of verify steps: when any sample lacks it, ``drafts``
    is None and the summary has an acceptance rate but no mean accepted length.
    """
    answered = [s for s in samples if s.status == "ok"]
    carrying = [s for s in answered if s.acceptance]
    if not answered or len(carrying) != len(answered):
        return None
    try:
        found = [RequestAcceptance.parse(s) for s in carrying]
    except ValueError as exc:
        return AcceptanceSummary(
            source="per-request", valid=False, why=f"malformed per-request acceptance: {exc}"
        )
    steps = [m.num_spec_steps for m in found]
    known_steps = [x for x in steps if x is not None]
    hists = [m.acceptance_histogram for m in found]
    per_pos: list[float] = []
    if all(h is not None for h in hists):
        k = max(len(h) for h in hists if h is not None) - 1
        per_pos = [0.0] * max(k, 0)
        for h in hists:
            assert h is not None
            for pos in range(len(per_pos)):
                per_pos[pos] += sum(h[pos + 1 :])
    return AcceptanceSummary(
        source="per-request",
        valid=True,
        drafts=float(sum(known_steps)) if len(known_steps) == len(steps) else None,
        draft_tokens=float(sum(m.num_draft_tokens for m in found)),
        accepted=float(sum(m.num_accepted_draft_tokens for m in found)),
        accepted_per_pos=tuple(per_pos),
    )


async def fetch(client: httpx.AsyncClient, url: str) -> httpx.Response | str:
    """GET for a probe: the 200 response, or a short reason why there is none."""
    try:
        resp = await client.get(url, timeout=10)
    except httpx.HTTPError as exc:
        return f"unavailable: {type(exc).__name__}"
    return resp if resp.status_code == 200 else f"HTTP {resp.status_code}"


class EngineAdapter(ABC):
    """One engine kind: its launch flags, the extra request fields it needs, and where its
    acceptance comes from (per-request fields, scraped counters, polled iteration stats)."""

    kind: str
    #: where acceptance comes from, as the checklist states it before a run: ``none`` (the
    #: server exposes none), ``fixed`` (always the same sources), ``probed`` (found at the start
    #: of each run and recorded)
    acceptance_recordable: Literal["none", "fixed", "probed"] = "probed"
    #: the adapter can start its engine with no ``engine.launch`` (the embedded reference)
    self_launching: bool = False
    #: read before and after the measured requests (cumulative counters or server state)
    snapshot_paths: tuple[str, ...] = ("/metrics",)
    #: drain-on-read endpoints, read every ``poll_interval_s`` while requests are in flight
    poll_paths: tuple[str, ...] = ()
    poll_interval_s: float = 0.5

    #: the engine's acceptance and its evidence of drafting are read from ``/metrics``: an
    #: attached candidate server without it is refused before measuring (``preflight``)
    needs_metrics: bool = False
    #: the body format of the engine's ``POST /tokenize`` (``engines.tokens``), by which the
    #: harness counts each answer's tokens; None: the engine has no such endpoint
    tokenize_style: Literal["vllm", "llamacpp"] | None = "vllm"

    #: the speculation methods this engine implements; None when the adapter cannot tell
    #: (the server decides at launch)
    methods: frozenset[str] | None = None

    def problems(self, spec: RunSpec) -> list[str]:
        """Why this engine cannot run ``spec`` as configured, found without starting it: a
        method it does not implement, or options its flags and files cannot express (what
        ``speculative_args`` and ``launch_files`` refuse). Empty when it can."""
        method = spec.speculation.method
        if self.methods is not None and method != "none" and method not in self.methods:
            return [
                f"engine {self.kind!r} does not implement speculation method {method!r}; it "
                f"implements: {', '.join(sorted(self.methods))}"
            ]
        try:
            self.launch_files(spec)
            self.speculative_args(spec, ".")
        except ValueError as exc:
            return [str(exc)]
        return []

    def request_extras(self, spec: RunSpec) -> dict[str, Any]:
        """Extra request-body fields this engine needs to report per-request acceptance."""
        return {}

    def per_request_acceptance(self, extras: Mapping[str, Any]) -> dict[str, Any] | None:
        """The canonical per-request acceptance dict from a response's engine-specific fields.

        ``extras`` holds the top-level keys of the response (streamed: merged over chunks, later
        chunks win) other than the OpenAI ones, and under ``"choice"`` the non-standard keys of
        its first choice. None when the response carries no acceptance.
        """
        return None

    async def probe(self, client: httpx.AsyncClient, base_url: str) -> dict[str, Any]:
        """What the server exposes for acceptance, recorded in the run manifest."""
        return {}

    def launch_command(
        self,
        spec: RunSpec,
        launch: Launch | None,
        port: int,
        model_path: str | None,
        run_dir: Path | None = None,
    ) -> list[str]:
        """The command that starts this run's server: the campaign's ``launch.command`` template
        when given, else this engine's ready-made one (``builtin_command``)."""
        model = model_path or spec.model.served_name
        work = str(run_dir) if run_dir is not None else "."
        if launch is None or launch.command is None:
            builtin = self.builtin_command(spec, model, "127.0.0.1", port, work)
            if builtin is None:
                raise ValueError(
                    f"engine kind {self.kind!r} has no built-in launch command: give launch.command"
                )
            return builtin + list(launch.args if launch else ())
        fields = {
            "port": str(port),
            "host": "127.0.0.1",
            "model": model,
            "served_name": spec.model.served_name,
            "quantization": spec.quantization,
            "run_dir": work,
            "speculative_args": shlex.join(self.speculative_args(spec, work)),
        }
        try:
            return shlex.split(launch.command.format(**fields))
        except KeyError as exc:
            raise ValueError(
                f"launch.command has an unknown placeholder {exc}; known: {', '.join(sorted(fields))}"
            ) from None

    def builtin_command(
        self, spec: RunSpec, model: str, host: str, port: int, run_dir: str
    ) -> list[str] | None:
        """This engine's ready-made launch command for a run, or None when it has none."""
        return None

    def launch_files(self, spec: RunSpec) -> dict[str, str]:
        """Files (name -> text) the launch needs in the run folder before it starts, e.g. an
        options file the speculative flags point to."""
        return {}

    @abstractmethod
    def speculative_args(self, spec: RunSpec, run_dir: str = ".") -> list[str]:
        """This engine's own flags for the run's speculation axis; ``run_dir`` is where
        ``launch_files`` were written. Empty for the baseline, except where the engine needs an
        options file for its statistics too (TensorRT-LLM's ``--extra_llm_api_options``)."""

    @abstractmethod
    def summarize_acceptance(
        self,
        spec: RunSpec,
        samples: Sequence[SampleRecord],
        snapshots: dict[str, MetricsSnapshot],
        segment_requests: int,
    ) -> AcceptanceSummary:
        """A run's acceptance from what the engine exposed, with its source and validity."""
