"""llama.cpp ``llama-server``: ``--spec-type`` flags; acceptance from each answer's ``timings``,
else from ``/metrics`` counter deltas.

Checked against ggml-org/llama.cpp master at commit 3f545beccee6 (2026-08-23):

- Flags (``common/arg.cpp``): ``--spec-type`` takes a comma-separated list and *appends* to it,
  so it is given once. Draft-model types draft ``--spec-draft-n-max`` tokens; the n-gram types
  have their own length flags. ``--draft``/``--draft-n``/``--draft-max``, ``--draft-min``/
  ``--draft-n-min`` and ``--spec-ngram-size-n``/``-size-m``/``--spec-ngram-min-hits`` were
  removed (the server refuses them); ``-md``/``--model-draft`` and ``--draft-p-min`` are still
  accepted aliases of ``--spec-draft-model`` and ``--spec-draft-p-min``.
- Type names (``common/speculative.cpp``): draft-simple, draft-eagle3, draft-mtp, draft-dflash,
  draft-dspark, ngram-simple, ngram-map-k, ngram-map-k4v, ngram-mod, ngram-cache. These, the
  flags each method takes and the removed flags were checked again against the llama.cpp
  vendored in xllamacpp 2026.10.11549 (``tests/fixtures/llamacpp/spec_methods.json``).
- Per request (``tools/server/server-common.cpp``, ``server_slot_stats::to_json``): ``timings``
  carries ``draft_n`` and ``draft_n_accepted`` only when the request drafted at least one token.
  The streamed chat answer puts ``timings`` on its last chunk (the usage chunk), the streamed
  text completion on its final chunk (``tools/server/server-task.cpp``). No verify-step count
  and no per-position figures are sent per request.
- Counters (``server_task_result_metrics::to_metrics``, needs ``--metrics``):
  ``llamacpp:spec_decode_num_draft_tokens_total``, ``..._num_accepted_tokens_total``,
  ``..._num_drafts_total`` (verify steps) and ``..._num_accepted_tokens_per_pos_total{position}``,
  added when a request's slot is released. There is no cumulative request counter
  (``requests_processing`` is a gauge), so pollution is checked on
  ``llamacpp:tokens_predicted_total``: it grows by each released request's generated tokens,
  which is the ``usage.completion_tokens`` of its answer. Counters are doubles printed with six
  significant digits, so values from 10^6 up are rounded and deltas become approximate.
- Verified against the real server (llama.cpp's ``tools/server`` as compiled into PyPI's
  xllamacpp 2026.10.11549, run by ``engines/xllamacpp_server.py``; ``docs/engines/llamacpp.md``,
  ``tests/integration/llamacpp``): the flags, the per-request fields on every endpoint, their equality with
  the counter deltas, and ``tokens_predicted_total`` growing by each answer's tokens.
- ``GET /props`` fills ``default_generation_settings.params`` from default task settings, so its
  ``speculative.types`` reads ``none`` whatever the server runs; ``GET /slots`` reports per slot
  whether a speculative context exists (``"speculative"``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import EngineAdapter, fetch, unsupported_method
from specverdict.engines.prometheus import read_spec_family
from specverdict.records import MetricsSnapshot, SampleRecord
from specverdict.records.acceptance import AcceptanceSummary, baseline_summary, canonical_acceptance

#: our method -> the ``--spec-type`` values that implement it; the first is the default, another
#: may be chosen with the method parameter ``spec_type``
SPEC_TYPES: dict[str, tuple[str, ...]] = {
    "draft_model": ("draft-simple",),
    "eagle3": ("draft-eagle3",),
    "mtp": ("draft-mtp",),
    "dflash": ("draft-dflash",),
    "dspark": ("draft-dspark",),
    "ngram": ("ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache"),
}

#: methods llama.cpp lacks -> why (``common_speculative_type_from_name_map``)
UNSUPPORTED: dict[str, str] = {
    "eagle": "llama.cpp has draft-eagle3 only, no EAGLE-1/2 drafter",
    "medusa": "no Medusa drafter among the --spec-type values",
    "suffix": "no suffix-decoding drafter among the --spec-type values",
}

#: the flag that sets the number of drafted tokens (k) for each type; ngram-cache has none.
#: For the n-gram types k caps the draft (the m-gram size, or ngram-mod's maximum); ngram-mod
#: drops a draft shorter than ``--spec-ngram-mod-n-min`` (default 48), so with a smaller k it
#: proposes only full-length drafts unless that parameter is lowered too.
K_FLAGS: dict[str, str | None] = {
    "draft-simple": "--spec-draft-n-max",
    "draft-eagle3": "--spec-draft-n-max",
    "draft-mtp": "--spec-draft-n-max",
    "draft-dflash": "--spec-draft-n-max",
    "draft-dspark": "--spec-draft-n-max",
    "ngram-simple": "--spec-ngram-simple-size-m",
    "ngram-map-k": "--spec-ngram-map-k-size-m",
    "ngram-map-k4v": "--spec-ngram-map-k4v-size-m",
    "ngram-mod": "--spec-ngram-mod-n-max",
    "ngram-cache": None,
}

#: ngram-cache drafts a fixed number of tokens (``create_state_ngram_cache``)
NGRAM_CACHE_K = 8

DRAFT_FLAGS = ("--spec-draft-model", "--model-draft")

#: flags the server refuses ("the argument has been removed"), with what replaced them
REMOVED_FLAGS: dict[str, str] = {
    "--draft": "k (--spec-draft-n-max or the n-gram type's length flag)",
    "--draft-n": "k (--spec-draft-n-max or the n-gram type's length flag)",
    "--draft-max": "k (--spec-draft-n-max or the n-gram type's length flag)",
    "--draft-min": "spec_draft_n_min or spec_ngram_mod_n_min",
    "--draft-n-min": "spec_draft_n_min or spec_ngram_mod_n_min",
    "--spec-ngram-size-n": "the type's own spec_ngram_*_size_n or spec_ngram_mod_n_match",
    "--spec-ngram-size-m": "k (the type's own spec_ngram_*_size_m)",
    "--spec-ngram-min-hits": "the type's own spec_ngram_*_min_hits",
}

SPEC_PREFIX = "llamacpp:spec_decode_"
PREDICTED = "llamacpp:tokens_predicted_total"

PROPS_WARNING = (
    "/props reports speculative.types from default task settings, not the server's: it reads "
    "'none' even when speculation runs; the ground truth is timings.draft_n in each answer"
)


def _unsupported(method: str) -> ValueError:
    return unsupported_method("llamacpp", method, SPEC_TYPES, UNSUPPORTED.get(method))


def _param_args(name: str, value: Any) -> list[str]:
    """A method parameter as a flag: ``--name-with-dashes value``; a boolean is the bare flag
    when true and its ``--no-`` form when false (llama.cpp's negative flags)."""
    flag = "--" + name.replace("_", "-")
    if isinstance(value, bool):
        return [flag] if value else ["--no-" + flag[2:]]
    return [flag, str(value)]


def llamacpp_speculative_args(spec: RunSpec) -> list[str]:
    """``llama-server`` flags for the run's speculation axis (empty for the baseline).

    Raises ValueError for a method llama.cpp lacks, for a draft quantization (llama.cpp has no
    such flag: the draft GGUF's own tensor types decide), for a ``spec_type`` that does not
    implement the method, and for parameters that repeat what ``k``/``draft`` set or that name a
    removed flag.
    """
    sp = spec.speculation
    if sp.method == "none":
        return []
    if sp.method not in SPEC_TYPES:
        raise _unsupported(sp.method)
    if sp.draft_quantization is not None:
        raise ValueError(
            f"llama.cpp has no draft quantization flag (draft_quantization "
            f"{sp.draft_quantization!r}): the draft GGUF's own tensor types decide; point draft "
            "at a GGUF of that type instead"
        )
    params = dict(sp.params)
    spec_type = params.pop("spec_type", SPEC_TYPES[sp.method][0])
    if spec_type not in SPEC_TYPES[sp.method]:
        raise ValueError(
            f"spec_type {spec_type!r} does not implement method {sp.method!r} in llama.cpp; "
            f"choose one of: {', '.join(SPEC_TYPES[sp.method])}"
        )
    args = ["--spec-type", str(spec_type)]
    taken: set[str] = set()
    if sp.draft is not None:
        if sp.method == "ngram":
            raise ValueError("llama.cpp n-gram speculation takes no draft model")
        args += [DRAFT_FLAGS[0], sp.draft]
        taken.update(DRAFT_FLAGS)
    k_flag = K_FLAGS[str(spec_type)]
    if k_flag is None:
        if sp.k != NGRAM_CACHE_K:
            raise ValueError(
                f"llama.cpp ngram-cache always drafts {NGRAM_CACHE_K} tokens: k must be "
                f"{NGRAM_CACHE_K}, not {sp.k}"
            )
    else:
        args += [k_flag, str(sp.k)]
        taken.add(k_flag)
    for name, value in params.items():
        extra = _param_args(name, value)
        if extra[0] in REMOVED_FLAGS:
            raise ValueError(
                f"parameter {name!r}: llama.cpp removed {extra[0]}; use {REMOVED_FLAGS[extra[0]]}"
            )
        if extra[0] in taken:
            raise ValueError(f"parameter {name!r} repeats {extra[0]}, which k or draft already set")
        args += extra
    return args


@dataclass(frozen=True)
class LlamaCppCounters:
    """The speculative counters and generated-token total of one ``/metrics`` scrape; a series
    the server did not expose is None. ``slack`` is the largest rounding error of each value."""

    draft_tokens: float | None = None
    accepted: float | None = None
    drafts: float | None = None
    accepted_per_pos: tuple[float, ...] = ()
    predicted: float | None = None

    def slack(self, value: float | None) -> float:
        """Half a unit in the sixth significant digit from 10^6 up (printed as ``1.23457e+06``),
        else 0: integers below 10^6 are printed exactly."""
        if value is None or value < 1e6:
            return 0.0
        return 0.5 * 10.0 ** (math.floor(math.log10(value)) - 5)


def parse_llamacpp_counters(text: str) -> LlamaCppCounters:
    f = read_spec_family(text, SPEC_PREFIX, (PREDICTED,))
    return LlamaCppCounters(
        draft_tokens=f.draft_tokens,
        accepted=f.accepted,
        drafts=f.drafts,
        accepted_per_pos=f.accepted_per_pos,
        predicted=f.totals[PREDICTED],
    )


@dataclass(frozen=True)
class CounterDelta:
    """after - before of the counters present in both scrapes; ``slack`` bounds the rounding
    error of the token deltas (0 when every value was printed exactly)."""

    draft_tokens: float
    accepted: float
    drafts: float | None
    accepted_per_pos: tuple[float, ...]
    predicted: float | None
    slack: float
    predicted_slack: float


def counter_delta(before: str, after: str) -> CounterDelta | None:
    """The speculative counters' growth between two scrapes; None when either scrape lacks
    them (a server without speculative counters)."""
    b, a = parse_llamacpp_counters(before), parse_llamacpp_counters(after)
    if None in (b.draft_tokens, b.accepted, a.draft_tokens, a.accepted):
        return None
    assert b.draft_tokens is not None and b.accepted is not None
    assert a.draft_tokens is not None and a.accepted is not None
    n = max(len(a.accepted_per_pos), len(b.accepted_per_pos))
    pa = a.accepted_per_pos + (0.0,) * (n - len(a.accepted_per_pos))
    pb = b.accepted_per_pos + (0.0,) * (n - len(b.accepted_per_pos))
    drafts = None if a.drafts is None or b.drafts is None else a.drafts - b.drafts
    predicted = None if a.predicted is None or b.predicted is None else a.predicted - b.predicted
    slack = max(
        b.slack(b.draft_tokens) + a.slack(a.draft_tokens),
        b.slack(b.accepted) + a.slack(a.accepted),
        b.slack(b.drafts) + a.slack(a.drafts),
    )
    return CounterDelta(
        draft_tokens=a.draft_tokens - b.draft_tokens,
        accepted=a.accepted - b.accepted,
        drafts=drafts,
        accepted_per_pos=tuple(x - y for x, y in zip(pa, pb, strict=True)),
        predicted=predicted,
        slack=slack,
        predicted_slack=b.slack(b.predicted) + a.slack(a.predicted),
    )


ROUNDED = "approximate: the server prints counters of 10^6 and more with six significant digits"


class LlamaCppAdapter(EngineAdapter):
    kind = "llamacpp"
    tokenize_style = "llamacpp"
    takes_ignore_eos = True
    methods = frozenset(SPEC_TYPES)
    method_names = SPEC_TYPES
    unsupported = UNSUPPORTED
    no_adaptive_verification = (
        "--spec-draft-p-min stops a DSpark draft where its confidence falls under a fixed p "
        "whatever the load: another rule, not mapped to adaptive verification"
    )
    no_k_schedule = "llama.cpp has no k by batch size (--draft-max is one number per server)"

    def speculative_args(self, spec: RunSpec, run_dir: str = ".") -> list[str]:
        return llamacpp_speculative_args(spec)

    def builtin_command(
        self, spec: RunSpec, model: str, host: str, port: int, run_dir: str
    ) -> list[str] | None:
        """``llama-server -m MODEL`` serving under the campaign's served name, with
        ``/metrics`` on. The target quantization is the GGUF's own: no flag carries it."""
        command = ["llama-server", "-m", model, "--host", host, "--port", str(port)]
        command += ["--alias", spec.model.served_name, "--metrics"]
        return command + self.speculative_args(spec, run_dir)

    def per_request_acceptance(self, extras: Mapping[str, Any]) -> dict[str, Any] | None:
        """``timings.draft_n`` / ``timings.draft_n_accepted`` of the answer's last chunk; None
        when absent (the request drafted nothing, or the server does not send them). Verify
        steps are not reported per request."""
        timings = extras.get("timings")
        if not isinstance(timings, dict) or "draft_n" not in timings:
            return None
        return canonical_acceptance(
            timings, timings.get("draft_n"), timings.get("draft_n_accepted")
        )

    version_field = "/props build_info"

    def version_of(self, probe: Mapping[str, Any]) -> Any:
        props = probe.get("props")
        return props.get("build_info") if isinstance(props, Mapping) else None

    async def probe(self, client: httpx.AsyncClient, base_url: str) -> dict[str, Any]:
        found: dict[str, Any] = {
            "per_request": "timings.draft_n and timings.draft_n_accepted on the last chunk of "
            "each answer (left out when the request drafted nothing)",
            "props_warning": PROPS_WARNING,
        }
        props = await fetch(client, base_url + "/props")
        if isinstance(props, httpx.Response):
            body = _json(props)
            settings = body.get("default_generation_settings", {})
            params = settings.get("params", {}) if isinstance(settings, dict) else {}
            found["/props"] = "ok"
            found["props"] = {
                k: body[k]
                for k in ("build_info", "model_alias", "model_path", "total_slots")
                if k in body
            }
            if isinstance(params, dict):
                found["props_speculative"] = {
                    k: v for k, v in params.items() if k.startswith("speculative")
                }
        else:
            found["/props"] = props
        slots = await fetch(client, base_url + "/slots")
        if isinstance(slots, httpx.Response):
            data = _json_list(slots)
            found["/slots"] = "ok"
            found["slots_speculative"] = [s.get("speculative") for s in data]
        else:
            found["/slots"] = slots
        metrics = await fetch(client, base_url + "/metrics")
        if isinstance(metrics, httpx.Response):
            try:
                names = {
                    s.name
                    for fam in text_string_to_metric_families(metrics.text)
                    for s in fam.samples
                }
            except ValueError as exc:
                found["/metrics"] = f"unparsable: {exc}"
                return found
            found["/metrics"] = "ok"
            found["spec_counters"] = sorted(n for n in names if n.startswith(SPEC_PREFIX))
            found["pollution_check"] = PREDICTED if PREDICTED in names else None
        else:
            found["/metrics"] = f"{metrics} (needs llama-server --metrics)"
        return found

    def summarize_acceptance(
        self,
        spec: RunSpec,
        samples: Sequence[SampleRecord],
        snapshots: dict[str, MetricsSnapshot],
        segment_requests: int,
    ) -> AcceptanceSummary:
        """Per-request ``timings`` when any answer carries them (verify steps and per-position
        figures are added from the counter delta when it matches the answers exactly), else the
        ``/metrics`` counter delta, checked against the answers' generated tokens."""
        delta = None
        if "before" in snapshots and "after" in snapshots:
            delta = counter_delta(snapshots["before"].text, snapshots["after"].text)
        answered = [s for s in samples if s.status == "ok"]
        found = [s.acceptance for s in answered if s.acceptance]
        if spec.speculation.method == "none":
            return _baseline(samples, segment_requests, delta, found)
        if found:
            return _per_request(samples, segment_requests, found, delta)
        if delta is None:
            missing = (
                "no /metrics snapshots (llama-server needs --metrics)"
                if "before" not in snapshots or "after" not in snapshots
                else f"/metrics has no {SPEC_PREFIX}* counters (a server too old for them)"
            )
            return AcceptanceSummary(
                source="none",
                valid=False,
                why=f"no answer carried timings.draft_n and {missing}; was the server started "
                "with speculation?",
            )
        common: dict[str, Any] = {
            "drafts": delta.drafts,
            "draft_tokens": delta.draft_tokens,
            "accepted": delta.accepted,
            "accepted_per_pos": delta.accepted_per_pos,
        }
        if delta.draft_tokens <= delta.slack:
            return AcceptanceSummary(
                source="metrics-delta",
                valid=False,
                why="the server drafted no token during the run: it runs without speculation, "
                "or the method found nothing to draft",
                **common,
            )
        polluted, check = _pollution(samples, segment_requests, delta)
        notes = [check] if check else []
        if delta.slack:
            notes.append(ROUNDED)
        return AcceptanceSummary(
            source="metrics-delta",
            valid=not polluted,
            polluted=polluted,
            why="; ".join(notes) or None,
            **common,
        )


def _baseline(
    samples: Sequence[SampleRecord],
    segment_requests: int,
    delta: CounterDelta | None,
    found: list[dict[str, Any]],
) -> AcceptanceSummary:
    """What a baseline's server drafted: the answers' ``timings`` when any carries draft
    fields, else the counter delta (within its rounding slack, nothing drafted is zero)."""
    polluted = delta is not None and _pollution(samples, segment_requests, delta)[0]
    note = "polluted: other traffic reached the server during the run" if polluted else None
    if found:
        return baseline_summary(
            "per-request",
            draft_tokens=float(sum(m["num_draft_tokens"] for m in found)),
            accepted=float(sum(m["num_accepted_draft_tokens"] for m in found)),
            polluted=note,
        )
    if delta is None:
        return baseline_summary("none")
    drafted = delta.draft_tokens > delta.slack
    return baseline_summary(
        "metrics-delta",
        delta.drafts if drafted else 0.0,
        delta.draft_tokens if drafted else 0.0,
        delta.accepted if drafted else 0.0,
        note,
    )


def _per_request(
    samples: Sequence[SampleRecord],
    segment_requests: int,
    found: list[dict[str, Any]],
    delta: CounterDelta | None,
) -> AcceptanceSummary:
    """The answers' own draft counts, checked against the counter delta.

    Other traffic during the run (generated tokens beyond the answers') marks it polluted: the
    counts are still the answers', the timings are not the run's alone. With no other traffic
    the counters must have grown by exactly the answers' drafts; then their verify steps and
    per-position counts are added, and a disagreement makes the acceptance invalid."""
    draft_tokens = float(sum(m["num_draft_tokens"] for m in found))
    accepted = float(sum(m["num_accepted_draft_tokens"] for m in found))
    n_answered = sum(s.status == "ok" for s in samples)
    notes = []
    if len(found) < n_answered:
        notes.append(
            f"{n_answered - len(found)} of {n_answered} answers carried no draft fields: "
            "counted as drafting nothing (llama-server leaves them out when a request drafted "
            "no token)"
        )
    counts: dict[str, Any] = {"draft_tokens": draft_tokens, "accepted": accepted}
    if delta is None:
        notes.append("not cross-checked: no /metrics snapshots")
        return AcceptanceSummary(source="per-request", valid=True, why="; ".join(notes), **counts)
    polluted, check = _pollution(samples, segment_requests, delta)
    if polluted:
        assert check is not None
        return AcceptanceSummary(
            source="per-request", valid=True, polluted=True, why=check, **counts
        )
    if check is not None:  # the delta could not be delimited to this run's requests
        notes.append(check)
        return AcceptanceSummary(source="per-request", valid=True, why="; ".join(notes), **counts)
    if (
        abs(delta.draft_tokens - draft_tokens) > delta.slack
        or abs(delta.accepted - accepted) > delta.slack
    ):
        return AcceptanceSummary(
            source="per-request",
            valid=False,
            why="per-request timings and /metrics disagree (draft tokens/accepted): answers "
            f"{draft_tokens:g}/{accepted:g}, counters {delta.draft_tokens:g}/{delta.accepted:g}",
            **counts,
        )
    # the counters grew by exactly the answers' drafts: their verify steps and per-position
    # counts belong to this run too
    if delta.slack:
        notes.append(f"verify steps {ROUNDED}")
    return AcceptanceSummary(
        source="per-request",
        valid=True,
        why="; ".join(notes) or None,
        drafts=delta.drafts,
        accepted_per_pos=delta.accepted_per_pos,
        **counts,
    )


def _pollution(
    samples: Sequence[SampleRecord], segment_requests: int, delta: CounterDelta
) -> tuple[bool, str | None]:
    """Whether other traffic reached the server during the run, judged by generated tokens
    (llama.cpp has no cumulative request counter): (polluted, note). The note says why the
    check could not be made, or what it found."""
    unchecked = "unchecked for other traffic: "
    if delta.predicted is None:
        return False, unchecked + f"/metrics has no {PREDICTED}"
    failed = sum(s.status != "ok" for s in samples)
    if failed:
        return False, unchecked + (
            f"{failed} failed request(s) generated an unknown number of tokens"
        )
    if len(samples) != segment_requests:
        return False, unchecked + (
            f"the run holds {len(samples)} samples, its last segment answered {segment_requests}"
        )
    tokens = [s.completion_tokens for s in samples]
    if None in tokens:
        return False, unchecked + "answers without a token count generated an unknown number"
    ours = sum(t for t in tokens if t is not None)
    if abs(delta.predicted - ours) > delta.predicted_slack:
        return True, (
            f"polluted: the server generated {delta.predicted:g} tokens during the run, "
            f"the run's answers {ours}"
        )
    return False, None


def _json(resp: httpx.Response) -> dict[str, Any]:
    try:
        body = resp.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _json_list(resp: httpx.Response) -> list[dict[str, Any]]:
    try:
        body = resp.json()
    except ValueError:
        return []
    return [s for s in body if isinstance(s, dict)] if isinstance(body, list) else []
