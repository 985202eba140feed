"""What a report shows, as frozen data: built from the run registry and a plan (or run ids).

``ReportData`` is the single source of the HTML, Markdown and JSON renderings; the JSON file is
this model dumped. It holds, per stage (never across stages): one row per planned run (its first
completed execution's figures, exactly as ``run_results`` computes them), one entry per judged
pair (the ``PairVerdict`` with its reasons, the health of each gate, the speed-up decomposition,
the quality drop against the margin, and the per-sample supplement), and the manifest of every
completed execution.

Definitions used here and nowhere else:

- Pass rate of a run: passed samples / all samples of its first execution (a failed request has
  not passed, as in the verdict rules), with a Wilson score interval at 1 - ``gates.alpha``;
  None when no sample carries a score (the suite has no scorer).
- Quality retention: candidate pass rate / its baseline's pass rate (same stage and load).
- Acceptance by draft position: ``accepted_per_pos[i] / drafts``, the share of verify steps whose
  drafts were accepted up to and including position i + 1.
- Acceptance against the output position (``RunRow.steps``, per slice ``slice_steps``): the
  candidate's first execution's per-step arrays binned by output position
  (``measure.steps``), in one bin width for the whole stage (the smallest power of two that
  gives every run at most 12 bins), so that the runs' bins line up. A slice's samples are the
  ones its verdicts are judged on (``verdict.slices``).
- Failure rate: requests that did not end ``ok`` / requests.
- The k the engine ran: for a pair, the verdict's (``PairVerdict.engine_k``: the judge's
  reading of the engine's own counts, present when another than the declared k); for a run,
  the number of its per-position counters (``RunRow.engine_k``) and its drafted tokens per
  verify step (``RunRow.drafted_per_step``), from its first execution's acceptance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict

from specverdict import __version__
from specverdict.campaign.model import Gates, PromptLengthSlice, Slo, default_speed_metric
from specverdict.campaign.plan import Pair, Plan
from specverdict.campaign.spec import LABELLED_PARAMS, RunSpec
from specverdict.measure.results import run_results
from specverdict.measure.steps import StepCurve, bin_tokens_for, step_curve, step_curves
from specverdict.measure.summary import RunSummary, tpot
from specverdict.records import (
    OUTPUT_SCHEMA_VERSION,
    EngineTime,
    RunManifest,
    RunRecord,
    SampleRecord,
)
from specverdict.records.acceptance import AcceptanceSummary
from specverdict.stats import first_divergence
from specverdict.stats.proportion import wilson_interval
from specverdict.store.base import Store
from specverdict.suites import suite_for
from specverdict.verdict import PairVerdict, Reason, arm_for, campaign_verdicts, compare_runs
from specverdict.verdict.gates.validity import RANDOM_WARNING
from specverdict.verdict.model import (
    DecompositionFigures,
    IdentityFigures,
    NonInferiorityFigures,
    drafted_per_step,
    engine_ks,
    engine_note,
    run_engine_k,
)
from specverdict.verdict.paying import paying
from specverdict.verdict.slices import groups, slice_of

Health = Literal["decided on data", "vacuous", "no data", "reported only", "rule broken"]
Role = Literal["baseline", "candidate"]
#: how the verdict rules' messages begin when a gate had nothing to judge
NO_DATA = (
    "no completed run",
    "no quality signal",
    "no paired samples",
    "no speed-up figure",
    "no acceptance figure",
)


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Quality(Frozen):
    """A run's pass rate over all its samples, with a Wilson interval (None: not scored)."""

    passed: int
    samples: int
    pass_rate: float | None
    interval: tuple[float, float] | None


class SliceSteps(Frozen):
    """A run's acceptance against the output position on one slice's samples."""

    label: str
    curve: StepCurve


class RunRow(Frozen):
    """One planned run of a stage: its labels and, once completed, its measured figures."""

    label: str
    speculation: str
    role: Role
    method: str
    k: int | None
    load: str
    load_value: float
    fingerprint: str
    run_id: str | None
    run_ids: tuple[str, ...]
    summary: RunSummary | None = None
    acceptance: AcceptanceSummary | None = None
    #: the k the engine ran by its per-position counters (their number), None without them
    engine_k: int | None = None
    #: drafted tokens per verify step by the engine's counts, None without clean counts
    drafted_per_step: float | None = None
    acceptance_rate: float | None = None
    mean_accepted_length: float | None = None
    failure_rate: float | None = None
    quality: Quality | None = None
    retention: float | None = None
    position_rates: tuple[float, ...] = ()
    tpots_s: tuple[float, ...] = ()
    #: a candidate's acceptance against the output position (None: a baseline, or not run)
    steps: StepCurve | None = None
    slice_steps: tuple[SliceSteps, ...] = ()


class GateHealth(Frozen):
    gate: str
    status: str
    health: Health
    message: str


class Decomposition(Frozen):
    speedup: float
    mal: float
    step_cost: float


class QualityDrop(Frozen):
    """The paired pass-rate drop (baseline - candidate) with its Tango interval and the margin."""

    drop: float
    lower: float
    upper: float
    margin: float
    status: str


class SupplementSample(Frozen):
    """A sample shown with both outputs: ``discordant`` (scored differently) or ``divergent``
    (greedy outputs differ); ``position`` is the first differing character (None: identical)."""

    kind: Literal["discordant", "divergent"]
    sample_id: str
    position: int | None
    base_text: str
    cand_text: str
    base_outcome: str = ""
    cand_outcome: str = ""


class PairView(Frozen):
    baseline_label: str
    candidate_label: str
    speculation: str
    method: str
    k: int | None
    #: the k the candidate's engine ran when another than ``k`` (``PairVerdict.engine_k``)
    engine_k: float | None = None
    #: how headlines name the candidate: ``speculation`` with the engine's k beside the
    #: declared one when another (``draft_model k=8 (engine: 3)``), then the slice
    title: str = ""
    load_value: float
    verdict: PairVerdict
    health: tuple[GateHealth, ...]
    decomposition: Decomposition | None = None
    quality_drop: QualityDrop | None = None
    supplement: tuple[SupplementSample, ...] = ()


class ManifestView(Frozen):
    """One execution's manifest as the report shows it, with what identifies the run."""

    run_id: str
    label: str
    fingerprint: str
    repeat: int
    status: str
    spec: dict[str, Any]
    manifest: RunManifest


class StageReport(Frozen):
    stage: str
    suite: str
    engine: str
    model: str
    quantization: str
    loads: tuple[str, ...]
    rows: tuple[RunRow, ...]
    pairs: tuple[PairView, ...]
    manifests: tuple[ManifestView, ...]
    #: what the stage's speed gate compares (``campaign.model.SpeedMetric``)
    speed_metric: str = "tpot"
    #: the stage's goodput targets in milliseconds (ttft / tpot / e2el), None without an slo
    slo_ms: dict[str, float] | None = None
    #: what the stage's verdicts must be read with, shown under its heading (a synthetic
    #: stage of random tokens)
    warnings: tuple[str, ...] = ()
    #: over several load levels, where each candidate's speed-up is shown and where it is
    #: shown to lose (``verdict.paying``), one line a candidate
    paying: tuple[str, ...] = ()

    @property
    def several_loads(self) -> bool:
        return len(self.loads) > 1


class ReportData(Frozen):
    schema_version: int = OUTPUT_SCHEMA_VERSION
    title: str
    source: str
    campaign: str
    specverdict_version: str
    gates: Gates
    stages: tuple[StageReport, ...]
    #: which clock timed the speeds, in words (the host's wall clock, the engine's modelled
    #: device clock, or both)
    clock: str = "host wall clock"

    def engine_time_line(self) -> str | None:
        """Where the engine time of the executions shown went, as one line (``engine busy 71%
        of the campaign's engine time: starts 14%, ...``, with its total); None when none of
        them recorded it."""
        seen = {m.run_id: m.manifest.engine_time for st in self.stages for m in st.manifests}
        recorded = [t for t in seen.values() if t is not None]
        if not recorded:
            return None
        total = EngineTime.total(recorded)
        return (
            f"{total.busy_line()} ({total.engine_s:.0f} s over {len(recorded)} "
            f"execution{'s' if len(recorded) != 1 else ''})"
        )


#: how the report's header names the clock of its speeds, by ``PairVerdict.clock``
CLOCKS = {"host": "host wall clock", "device": "modelled device clock (the engine's)"}


def clock_words(clocks: set[str | None]) -> str:
    """The report's clock, from its verdicts' (``None``: nothing answered, no clock)."""
    known = {c for c in clocks if c is not None}
    if len(known) > 1 or "mixed" in known:
        return "mixed clocks (see each pair)"
    return CLOCKS.get(known.pop(), "host wall clock") if known else "no speed measured"


def speculation_label(spec: RunSpec) -> str:
    """``method k=K`` plus the method parameters, so two runs differing in a parameter differ
    in their label too."""
    sp = spec.speculation
    rest = [(k, v) for k, v in sp.params if not k.startswith(LABELLED_PARAMS)]  # not in label
    if not rest:
        return sp.label
    return f"{sp.label} ({', '.join(f'{k}={v}' for k, v in rest)})"


def run_label(spec: RunSpec, engine: str = "") -> str:
    """method + k (+ params) | engine | model family | quantization | stage suite@version | load;
    ``engine`` (``verdict.model.engine_note``) follows the speculation: the k its engine ran."""
    return (
        f"{speculation_label(spec)}{engine} | {spec.engine.kind} | {spec.model.family} | "
        f"{spec.quantization} | {spec.stage} {spec.suite} | {spec.load.label}"
    )


def load_value(spec: RunSpec) -> float:
    load = spec.load
    return float(load.request_rate if load.request_rate is not None else load.concurrency or 0)


def quality_of(samples: Sequence[SampleRecord], alpha: float) -> Quality:
    if not samples or all(s.score is None for s in samples):
        return Quality(passed=0, samples=len(samples), pass_rate=None, interval=None)
    passed = sum(s.passed for s in samples)
    n = len(samples)
    return Quality(
        passed=passed, samples=n, pass_rate=passed / n, interval=wilson_interval(passed, n, alpha)
    )


def _completed(runs: Sequence[RunRecord], fingerprint: str) -> list[RunRecord]:
    """Completed executions of a fingerprint in repeat order (the verdict rules use the same)."""
    return sorted(
        (r for r in runs if r.fingerprint == fingerprint and r.status == "completed"),
        key=lambda r: r.repeat,
    )


def _row(
    store: Store,
    spec: RunSpec,
    role: Role,
    execs: Sequence[RunRecord],
    alpha: float,
    slo_s: dict[str, float] | None = None,
) -> RunRow:
    head: dict[str, Any] = {
        "label": run_label(spec),
        "speculation": speculation_label(spec),
        "role": role,
        "method": spec.speculation.method,
        "k": spec.speculation.k,
        "load": spec.load.label,
        "load_value": load_value(spec),
        "fingerprint": spec.fingerprint,
        "run_id": execs[0].run_id if execs else None,
        "run_ids": tuple(r.run_id for r in execs),
    }
    if not execs:
        return RunRow(**head)
    res = run_results(store, execs[0].run_id, slo_s)
    samples = store.samples(execs[0].run_id)
    acc, s = res.acceptance, res.summary
    rates: tuple[float, ...] = ()
    if acc.valid and acc.drafts and acc.accepted_per_pos:
        rates = tuple(a / acc.drafts for a in acc.accepted_per_pos)
    return RunRow(
        **head,
        summary=s,
        acceptance=acc,
        engine_k=run_engine_k(acc),
        drafted_per_step=drafted_per_step(acc),
        acceptance_rate=acc.acceptance_rate,
        mean_accepted_length=acc.mean_accepted_length,
        failure_rate=s.errored / s.samples if s.samples else None,
        quality=quality_of(samples, alpha),
        position_rates=rates,
        tpots_s=tuple(t for x in samples if x.status == "ok" and (t := tpot(x)) is not None),
    )


def _with_steps(
    store: Store, rows: Sequence[RunRow], slices: Mapping[str, set[str]]
) -> list[RunRow]:
    """Each completed candidate with its acceptance against the output position, in one bin
    width for all of them, and per slice."""
    samples = {
        r.run_id: store.samples(r.run_id)
        for r in rows
        if r.role == "candidate" and r.run_id is not None
    }
    width = bin_tokens_for(s for run in samples.values() for s in run)
    out = []
    for r in rows:
        if r.run_id not in samples:
            out.append(r)
            continue
        mine = samples[r.run_id]
        per_slice = step_curves(mine, slices, width)
        out.append(
            r.model_copy(
                update={
                    "steps": step_curve(mine, width),
                    "slice_steps": tuple(
                        SliceSteps(label=k, curve=c) for k, c in per_slice.items()
                    ),
                }
            )
        )
    return out


def stage_slices(
    store: Store, plan: Plan, stage: str, runs: Sequence[RunRecord]
) -> dict[str, set[str]]:
    """The sample ids of each slice the stage asks for, as its slice verdicts take them (from
    the baseline's first completed execution); empty without slices or a completed baseline."""
    wanted = plan.campaign.stages[stage].slices
    base = next((p.baseline for p in plan.pairs if p.candidate.stage == stage), None)
    if not wanted or base is None:
        return {}
    arm = arm_for(store, base, runs)
    if arm is None:
        return {}
    labelled = any(not isinstance(w, PromptLengthSlice) for w in wanted)
    suite_samples = suite_for(base).samples() if labelled else []
    out: dict[str, set[str]] = {}
    for spec in wanted:
        out.update(groups(spec, slice_of(spec, suite_samples, arm)))
    return out


def _with_retention(rows: Sequence[RunRow]) -> list[RunRow]:
    out = []
    for row in rows:
        base = next((b for b in rows if b.role == "baseline" and b.load == row.load), None)
        retention = None
        if (
            row.role == "candidate"
            and base is not None
            and base.quality is not None
            and row.quality is not None
            and base.quality.pass_rate
            and row.quality.pass_rate is not None
        ):
            retention = row.quality.pass_rate / base.quality.pass_rate
        out.append(row.model_copy(update={"retention": retention}))
    return out


def health_of(reason: Reason) -> Health:
    """Did this gate look at real data? ``vacuous``: it could not have failed; ``no data``: it
    had nothing to judge (no scorer, no figure, no run); ``reported only``: information that never
    decides; ``rule broken``: a validity rule failed."""
    if reason.status == "vacuous":
        return "vacuous"
    if reason.status == "info":
        return "reported only"
    if reason.status == "invalid":
        return "rule broken"
    if reason.gate in ("runs", "quality.signal") or reason.message.startswith(NO_DATA):
        return "no data"
    return "decided on data"


def _supplement(store: Store, v: PairVerdict) -> tuple[SupplementSample, ...]:
    out = [
        SupplementSample(
            kind="discordant",
            sample_id=d.sample_id,
            position=first_divergence([ord(c) for c in d.base_text], [ord(c) for c in d.cand_text]),
            base_text=d.base_text,
            cand_text=d.cand_text,
            base_outcome=d.base_outcome,
            cand_outcome=d.cand_outcome,
        )
        for d in v.supplement
    ]
    ident = v.reason("identity")
    figures = IdentityFigures.of(ident)
    divergences = figures.divergences if figures is not None else {}
    if divergences and v.baseline_run_ids and v.candidate_run_ids:
        base = {s.sample_id: s for s in store.samples(v.baseline_run_ids[0])}
        cand = {s.sample_id: s for s in store.samples(v.candidate_run_ids[0])}
        for sid, pos in sorted(divergences.items()):
            b, c = base.get(sid), cand.get(sid)
            out.append(
                SupplementSample(
                    kind="divergent",
                    sample_id=sid,
                    position=int(pos),
                    base_text=b.text if b else "",
                    cand_text=c.text if c else "",
                    base_outcome=b.status if b else "missing",
                    cand_outcome=c.status if c else "missing",
                )
            )
    return tuple(out)


def _pair(store: Store, v: PairVerdict, base: RunSpec, cand: RunSpec) -> PairView:
    dec = DecompositionFigures.of(v.reason("speed.decomposition"))
    ni = v.reason("quality.noninferiority")
    drop = None
    # a pair without a quality signal (both arms pass nothing) has an interval as wide as its
    # ignorance: it is not drawn as if it measured a drop
    if ni is not None and ni.message.startswith("no quality signal"):
        ni = None
    figures = NonInferiorityFigures.of(ni)
    if ni is not None and figures is not None:
        drop = QualityDrop(
            drop=figures.drop,
            lower=figures.lower,
            upper=figures.upper,
            margin=figures.margin,
            status=ni.status,
        )
    sliced = f" [{v.slice}]" if v.slice else ""
    note = engine_note(engine_ks(v.reasons))
    return PairView(
        baseline_label=run_label(base),
        candidate_label=run_label(cand, note) + sliced,
        speculation=speculation_label(cand) + sliced,
        method=cand.speculation.method,
        k=cand.speculation.k,
        engine_k=v.engine_k,
        title=speculation_label(cand) + note + sliced,
        load_value=load_value(cand),
        verdict=v,
        health=tuple(
            GateHealth(gate=r.gate, status=r.status, health=health_of(r), message=r.message)
            for r in v.reasons
        ),
        decomposition=Decomposition(speedup=dec.speedup, mal=dec.mal, step_cost=dec.step_cost)
        if dec is not None
        else None,
        quality_drop=drop,
        supplement=_supplement(store, v),
    )


def _sort_key(row: RunRow) -> tuple[int, str, int, str]:
    return (row.role != "baseline", row.method, row.k or 0, row.speculation)


def _stage(
    store: Store,
    stage: str,
    specs: Sequence[tuple[RunSpec, Role]],
    pairs: Sequence[tuple[PairVerdict, RunSpec, RunSpec]],
    runs: Sequence[RunRecord],
    alpha: float,
    pinned: dict[str, RunRecord] | None = None,
    slo: Slo | None = None,
    speed_metric: str | None = None,
    slices: Mapping[str, set[str]] | None = None,
) -> StageReport:
    """``pinned`` maps a fingerprint to the one execution to show (``compare`` semantics);
    ``slo`` adds each run's goodput; ``slices`` (label -> sample ids) the candidates'
    acceptance against the output position per slice."""
    slo_s = slo.targets_s() if slo is not None else None
    loads = list(dict.fromkeys(s.load.label for s, _ in specs))
    rows = []
    manifests: dict[str, ManifestView] = {}
    for spec, role in specs:
        execs = _completed(runs, spec.fingerprint)
        first = (pinned or {}).get(spec.fingerprint)
        if first is not None and first.status == "completed":
            execs = [first, *(r for r in execs if r.run_id != first.run_id)]
        rows.append(_row(store, spec, role, execs, alpha, slo_s))
        for r in execs:
            manifests.setdefault(
                r.run_id,
                ManifestView(
                    run_id=r.run_id,
                    label=run_label(r.spec),
                    fingerprint=r.fingerprint,
                    repeat=r.repeat,
                    status=r.status,
                    spec=r.spec.model_dump(mode="json"),
                    manifest=r.manifest,
                ),
            )
    rows.sort(key=lambda r: (loads.index(r.load), *_sort_key(r)))
    rows = _with_steps(store, rows, slices or {})
    first_spec = specs[0][0]
    return StageReport(
        stage=stage,
        suite=str(first_spec.suite),
        engine=first_spec.engine.kind,
        model=first_spec.model.family,
        quantization=first_spec.quantization,
        loads=tuple(loads),
        rows=tuple(_with_retention(rows)),
        pairs=tuple(_pair(store, v, b, c) for v, b, c in pairs),
        manifests=tuple(manifests.values()),
        speed_metric=speed_metric or default_speed_metric(stage),
        slo_ms=None if slo_s is None else {k: 1000.0 * v for k, v in slo_s.items()},
        warnings=stage_warnings(first_spec),
        paying=tuple(p.line for p in paying(v for v, _, _ in pairs)),
    )


def stage_warnings(spec: RunSpec) -> tuple[str, ...]:
    """The warnings a stage's verdicts are read with: speed judged on random tokens."""
    syn = spec.synthetic
    return (RANDOM_WARNING,) if syn is not None and syn.source == "random" else ()


class _ReadOnce:
    """A store whose runs' samples are read from the registry once for a whole report (its
    verdicts, run rows, step curves and supplements all read the same runs); every other call
    goes to the store itself. A report writes nothing, and its store does not change under it."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._samples: dict[str, list[SampleRecord]] = {}

    def samples(self, run_id: str) -> list[SampleRecord]:
        if run_id not in self._samples:
            self._samples[run_id] = self._store.samples(run_id)
        return list(self._samples[run_id])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def read_once(store: Store) -> Store:
    """``store`` with each run's samples read once (``_ReadOnce``)."""
    return store if isinstance(store, _ReadOnce) else cast(Store, _ReadOnce(store))


def campaign_report(store: Store, plan: Plan, source: str = "") -> ReportData:
    """The report of a campaign: every planned run and pair, stage by stage, in plan order."""
    store = read_once(store)
    gates = plan.campaign.gates
    verdicts = campaign_verdicts(store, plan)
    runs = store.list_runs()
    baselines = {p.baseline.fingerprint for p in plan.pairs}
    stages = []
    for stage in dict.fromkeys(s.stage for s in plan.runs):
        specs: list[tuple[RunSpec, Role]] = [
            (
                s,
                "baseline"
                if s.fingerprint in baselines or s.speculation.method == "none"
                else "candidate",
            )
            for s in plan.runs
            if s.stage == stage
        ]
        pairs = [
            (v, p.baseline, p.candidate)
            for v, p in _with_pairs(verdicts, plan)
            if p.candidate.stage == stage
        ]
        stages.append(
            _stage(
                store,
                stage,
                specs,
                pairs,
                runs,
                gates.alpha,
                slo=plan.campaign.slo_for(stage),
                speed_metric=plan.campaign.speed_metric(stage),
                slices=stage_slices(store, plan, stage, runs),
            )
        )
    return ReportData(
        title=f"specverdict report: campaign {plan.campaign.name}",
        source=source or plan.campaign.name,
        campaign=plan.campaign.name,
        specverdict_version=__version__,
        gates=gates,
        stages=tuple(stages),
        clock=clock_words({v.clock for v in verdicts}),
    )


def _with_pairs(verdicts: Sequence[PairVerdict], plan: Plan) -> list[tuple[PairVerdict, Pair]]:
    """Each verdict with its planned pair: a stage's verdict follows its pair's order, and its
    slices (``campaign_verdicts`` puts them right after it) belong to the same pair."""
    out: list[tuple[PairVerdict, Pair]] = []
    pairs = iter(plan.pairs)
    current: Pair | None = None
    for v in verdicts:
        if v.slice is None:
            current = next(pairs)
        assert current is not None, "a slice verdict before its stage's verdict"
        out.append((v, current))
    return out


def runs_report(store: Store, run_ids: Sequence[str], gates: Gates | None = None) -> ReportData:
    """The report of stored runs: the first is the baseline, each other one a candidate judged
    against it as ``specverdict compare`` would; sections follow the candidates' stages."""
    if len(run_ids) < 2:
        raise ValueError("give a baseline run id and at least one candidate run id")
    store = read_once(store)
    gates = gates or Gates()
    base, *cands = (store.get_run(i) for i in run_ids)
    runs = store.list_runs()
    stages = []
    clocks: set[str | None] = set()
    for stage in dict.fromkeys(c.spec.stage for c in cands):
        mine = [c for c in cands if c.spec.stage == stage]
        specs: list[tuple[RunSpec, Role]] = [(base.spec, "baseline")]
        specs += [(c.spec, "candidate") for c in mine if c.fingerprint != base.fingerprint]
        pinned = {base.fingerprint: base, **{c.fingerprint: c for c in mine}}
        pairs = [(compare_runs(store, base, c, gates), base.spec, c.spec) for c in mine]
        clocks.update(v.clock for v, _, _ in pairs)
        stages.append(_stage(store, stage, specs, pairs, runs, gates.alpha, pinned))
    names = sorted({r.spec.campaign for r in (base, *cands)})
    return ReportData(
        title=f"specverdict report: runs {', '.join(run_ids)}",
        source=" ".join(run_ids),
        campaign=", ".join(names),
        specverdict_version=__version__,
        gates=gates,
        stages=tuple(stages),
        clock=clock_words(clocks),
    )
