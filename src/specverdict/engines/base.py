"""The ``EngineAdapter`` interface: how to launch an engine for a run and where its acceptance
figures come from. One class per engine kind, registered by kind."""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

import httpx

from specverdict.campaign.model import Launch
from specverdict.campaign.spec import RunSpec
from specverdict.records import MetricsSnapshot, SampleRecord
from specverdict.records.acceptance import (
    AcceptanceSummary,
)


def restarted(requests: float, segment_requests: int) -> str:
    """Why a run whose counters went back is not believed: the server restarted during it."""
    return (
        f"restarted: the server's counters went back during the run (finished requests "
        f"{requests:+g} against {segment_requests} sent): the server restarted, so the run's "
        "figures span two servers; measure it again (run --remeasure)"
    )


def unsupported_method(
    kind: str, method: str, implemented: Iterable[str], reason: str | None = None
) -> ValueError:
    """The one-line refusal of a speculation method an engine lacks: the engine, the method, why
    (where the adapter knows it from the engine's source) and the methods it implements."""
    why = f" ({reason})" if reason else ""
    return ValueError(
        f"engine {kind!r} does not implement speculation method {method!r}{why}; it "
        f"implements: {', '.join(sorted(implemented))}"
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

    #: the engine's completion request takes ``ignore_eos`` (an answer runs to max_tokens):
    #: vLLM (``CompletionRequest``), SGLang (its OpenAI protocol), llama.cpp
    #: (``params_from_json_cmpl``) and the reference engine
    takes_ignore_eos: bool = False

    #: the speculation methods this engine implements; None when the adapter cannot tell
    #: (the server decides at launch)
    methods: frozenset[str] | None = None
    #: each implemented method -> the engine's own name(s) for it (vLLM's ``method``, SGLang's
    #: ``--speculative-algorithm``, TensorRT-LLM's ``decoding_type``, llama.cpp's ``--spec-type``),
    #: as checked against the engine's source (``tests/fixtures/*/spec_methods.json``); None when
    #: the adapter passes no names
    method_names: ClassVar[Mapping[str, tuple[str, ...]] | None] = None
    #: methods of the campaign the engine lacks -> why, in one clause from its source
    unsupported: ClassVar[Mapping[str, str]] = {}
    #: the engine takes a candidate's k schedule (k by batch size) in its flags
    takes_k_schedule: ClassVar[bool] = False
    #: why it does not, in one clause (what its source has instead)
    no_k_schedule: ClassVar[str] = "its adapter passes one k, no k by batch size"
    #: the engine takes a candidate's adaptive verification (vLLM's
    #: ``enable_adaptive_verification``); the kinds in ``campaign.model.ADAPTIVE_BY_DEFAULT``
    takes_adaptive_verification: ClassVar[bool] = False
    #: why it does not, in one clause
    no_adaptive_verification: ClassVar[str] = (
        "no key of its speculative configuration sizes the verify length from the drafter's "
        "confidence"
    )

    def problems(self, spec: RunSpec) -> list[str]:
        """Why this engine cannot run ``spec`` as configured, found without starting it: a
        method it does not implement, or options its flags and files cannot express (what
        ``speculative_args`` and ``launch_files`` refuse). Empty when it can."""
        found = self._synthetic_problems(spec)
        method = spec.speculation.method
        if self.methods is not None and method != "none" and method not in self.methods:
            reason = self.unsupported.get(method)
            return [*found, str(unsupported_method(self.kind, method, self.methods, reason))]
        if spec.speculation.k_schedule is not None and not self.takes_k_schedule:
            return [
                *found,
                f"k_schedule: engine {self.kind!r} cannot run a k schedule: {self.no_k_schedule}; "
                "give this candidate one k",
            ]
        if spec.speculation.adaptive_verification and not self.takes_adaptive_verification:
            return [
                *found,
                f"adaptive_verification: engine {self.kind!r} cannot verify adaptively: "
                f"{self.no_adaptive_verification}; set adaptive_verification: false",
            ]
        try:
            self.launch_files(spec)
            self.speculative_args(spec, ".")
        except ValueError as exc:
            return [*found, str(exc)]
        return found

    def cautions(self, spec: RunSpec) -> list[str]:
        """What may make the engine run ``spec`` otherwise than declared, which the adapter
        cannot rule out before it starts (``validate`` warns; the declared-against-actual
        check judges the run). Empty by default."""
        return []

    def _synthetic_problems(self, spec: RunSpec) -> list[str]:
        """A synthetic stage needs the engine's tokenizer (its prompts are cut by it) and,
        unless the campaign turns it off, ``ignore_eos``."""
        if spec.synthetic is None:
            return []
        found = []
        if self.tokenize_style is None:
            found.append(
                f"stage {spec.stage} is synthetic, and engine {self.kind!r} has no tokenize "
                "endpoint to cut its prompts to length: use a suite or a dataset"
            )
        if spec.synthetic.ignore_eos and not self.takes_ignore_eos:
            found.append(
                f"stage {spec.stage}: engine {self.kind!r}'s requests take no ignore_eos; set "
                "synthetic.ignore_eos: false (answers may then stop early; the report counts "
                "them)"
            )
        return found

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

    #: where this engine's version is read when it serves no ``/version`` (a field of its probe)
    version_field: str | None = None

    def version_of(self, probe: Mapping[str, Any]) -> Any:
        """The engine's version or build as its probe found it, for an engine that serves no
        ``/version`` (llama.cpp's ``/props`` ``build_info``, SGLang's ``/get_server_info``
        ``version``); None when the probe holds none."""
        return None

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
