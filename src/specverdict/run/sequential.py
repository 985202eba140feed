"""Sequential campaigns (``specverdict run CAMPAIGN --until-decided``): samples in batches until
each pair's verdict is settled, then that pair stops.

The design is declared before the first sample: batches of B samples of each stage's selection
in its order (the first B, the next B, ...) up to a maximum N per stage, so K = max(1,
floor(N / B)) looks, the last taking the remainder (``stats.looks``). At look j every
execution of every pair still open (the baseline of a stage and load level while any of its
candidates is open) is extended to the first jB samples (N at the last look)
through ``Runner.run_one`` (one more segment of the same run, as a resume sends what is
missing: the samples stay paired and in one run), in the campaign's interleaved order. The look
is then recorded on each open candidate's executions (``RunManifest.sequential``), the
campaign's verdicts are read as ``verdict`` reads them (``campaign_verdicts``: the family
control included), and a pair whose verdict is ADOPT, REJECT or INVALID stops taking samples.
Quality decides by betting (anytime-valid); the fixed-n gates spend the look's share of alpha,
so the error over all looks stays at the campaign's alpha (design note 022).

A sequential campaign interrupted mid-batch resumes with the same command: the looks recorded
say where it stood, and the batch's missing samples are sent first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from specverdict.campaign.plan import Execution, Pair, Plan, Step, blocked
from specverdict.campaign.spec import RunSpec
from specverdict.errors import ConfigError
from specverdict.records import RunRecord
from specverdict.records.manifest import Look, SequentialDesign
from specverdict.run.runner import Runner, select_runs
from specverdict.run.start_cost import START_SHARE, dear_batch, look_starts, start_cost
from specverdict.stats.looks import declared_looks, look_size
from specverdict.store.base import Store
from specverdict.suites import suite_for
from specverdict.verdict import PairVerdict, campaign_verdicts
from specverdict.verdict.collect import latest_per_repeat

#: verdicts that settle a pair: more samples cannot be asked to change them
SETTLED = ("ADOPT", "REJECT", "INVALID")

Log = Callable[[str], None]


@dataclass(frozen=True)
class PairProgress:
    """Where one pair of a sequential campaign stands."""

    pair: Pair
    design: SequentialDesign

    @property
    def label(self) -> str:
        c = self.pair.candidate
        return f"{c.speculation.label}, {c.stage}, {c.load.label}"

    @property
    def samples(self) -> int:
        return self.design.taken[-1].samples if self.design.taken else 0

    @property
    def verdict(self) -> str | None:
        return self.design.taken[-1].verdict if self.design.taken else None


@dataclass
class SequentialResult:
    pairs: list[PairProgress]
    records: list[RunRecord] = field(default_factory=list)
    verdicts: list[PairVerdict] = field(default_factory=list)

    def samples_used(self) -> int:
        return sum(p.samples for p in self.pairs)

    def samples_fixed(self) -> int:
        return sum(p.design.max_samples for p in self.pairs)


def _completed(store: Store, spec: RunSpec) -> list[RunRecord]:
    return latest_per_repeat([r for r in store.list_runs() if r.fingerprint == spec.fingerprint])


def _recorded(store: Store, spec: RunSpec) -> SequentialDesign | None:
    found = [r.manifest.sequential for r in _completed(store, spec) if r.manifest.sequential]
    return max(found, key=lambda d: len(d.taken)) if found else None


#: the fewest blocks a look of a blocked design adds: the signed-rank interval of J blocks
#: exists only when 2^-J is under half the look's level, so a first look of fewer than 8
#: blocks spends its share of alpha (under Pocock-type spending, 0.16 of it or more up to ten
#: looks) and can decide nothing: at 8 blocks 2^-8 = 0.0039 <= 0.05 x 0.16 / 2
MIN_LOOK_BLOCKS = 8


def look_batch(batch: int, block: int | None) -> int:
    """A sequential design's batch for a pair measured in blocks of ``block``: rounded up to
    whole blocks, at least ``MIN_LOOK_BLOCKS`` of them (the batch asked for without blocks)."""
    if block is None:
        return batch
    return max(-(-batch // block), MIN_LOOK_BLOCKS) * block


def _dear_starts(
    stored: Callable[[], list[RunRecord]],
    plan: Plan,
    spec: RunSpec,
    design: SequentialDesign,
    log: Log,
) -> SequentialDesign:
    """``design`` with its batch raised where each look would start servers whose starts
    cost more than ``START_SHARE`` of the look (``run.start_cost``); as it is otherwise."""
    starts, executions = look_starts(plan, spec)
    if starts == 0:
        return design
    cost = start_cost(stored(), spec)
    where = f"{spec.stage}, {spec.load.label}"
    if cost is None:
        log(
            f"looks of {where}: each starts {starts} server(s), and the registry holds no start "
            f"and baseline figures of this engine to weigh them: batches of {design.batch} as "
            "asked"
        )
        return design
    size = dear_batch(design.batch, design.max_samples, starts, executions, cost)
    if size == design.batch:
        return design
    why = (
        f"each look starts {starts} server(s) of {cost.start_s:.0f} s (median of {cost.starts} "
        f"stored starts) for {executions} execution(s) at {1000 * cost.sample_s:.0f} ms a sample "
        f"(the baseline's, {cost.baselines} stored): batches of {size}, not {design.batch}, keep "
        f"the starts within {100 * START_SHARE:.0f}% of a look"
    )
    log(f"looks of {where}: {why}")
    return design.model_copy(
        update={
            "batch": size,
            "looks": declared_looks(design.max_samples, size),
            "declared_batch": design.batch,
            "why": why,
        }
    )


def plan_designs(
    store: Store,
    plan: Plan,
    pairs: list[Pair],
    max_samples: int | None,
    batch: int,
    log: Log = print,
) -> dict[str, SequentialDesign]:
    """Each pair's design (by candidate fingerprint): the one recorded at its earlier looks, or
    a new one; a design that would change once looks are taken is refused."""
    if batch < 1:
        raise ConfigError(f"--batch {batch}: expected a positive number of samples")
    if max_samples is not None and max_samples < 1:
        raise ConfigError(f"--max-samples {max_samples}: expected a positive number of samples")
    sizes: dict[str, int] = {}
    out: dict[str, SequentialDesign] = {}
    read: list[list[RunRecord]] = []

    def registry() -> list[RunRecord]:  # the stored runs, read once, when a design needs them
        if not read:
            read.append(store.list_runs())
        return read[0]

    for pair in pairs:
        spec = pair.candidate
        if spec.stage not in sizes:
            try:
                sizes[spec.stage] = len(suite_for(spec).select(spec.samples))
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
        n = sizes[spec.stage] if max_samples is None else min(max_samples, sizes[spec.stage])
        size = look_batch(batch, plan.campaign.block_size(spec.load.level))
        new = SequentialDesign(batch=size, max_samples=n, looks=declared_looks(n, size))
        old = _recorded(store, spec)
        asked = (old.declared_batch or old.batch, old.max_samples) if old else None
        if old is None:
            new = _dear_starts(registry, plan, spec, new, log)
        elif asked != (size, n):
            raise ConfigError(
                f"--batch {batch} --max-samples {max_samples or 'all'}: the pair "
                f"{spec.speculation.label}, {spec.stage}, {spec.load.label} already took "
                f"{len(old.taken)} look(s) under batch {old.batch} and max {old.max_samples} "
                "samples; a sequential design cannot change once looks are taken (run with "
                f"--batch {old.declared_batch or old.batch} --max-samples {old.max_samples})"
            )
        out[spec.fingerprint] = old or new
    return out


def _stage_size(design: SequentialDesign, index: int) -> int:
    return look_size(index, design.looks, design.batch, design.max_samples)


def run_until_decided(
    runner: Runner,
    store: Store,
    plan: Plan,
    *,
    batch: int,
    max_samples: int | None = None,
    only: str | None = None,
    log: Log = print,
    clock: Callable[[], float] = time.time,
) -> SequentialResult:
    """Run the plan's pairs look by look until each is settled or at its maximum."""
    chosen = select_runs(plan, only) if only else list(plan.runs)
    fingerprints = {r.fingerprint for r in chosen}
    pairs = [p for p in plan.pairs if p.candidate.fingerprint in fingerprints]
    if not pairs:
        raise ConfigError(
            f"campaign {plan.campaign.name!r}: no baseline-candidate pair to decide "
            "(--until-decided needs a baseline)"
        )
    designs = plan_designs(store, plan, pairs, max_samples, batch, log)
    records: list[RunRecord] = []
    # every pair resumes where the looks recorded left it; the open ones move in lockstep
    start = 1 + max(len(d.taken) for d in designs.values())
    last = max(d.looks for d in designs.values())
    verdicts: list[PairVerdict] = []
    with runner.sessions(plan):
        for index in range(start, last + 1):
            open_pairs = [
                p
                for p in pairs
                if designs[p.candidate.fingerprint].stopped is None
                and index <= designs[p.candidate.fingerprint].looks
            ]
            if not open_pairs:
                break
            sizes = _look_sizes(open_pairs, designs, index)
            log(
                f"look {index}: {len(open_pairs)} pair(s) open, "
                + ", ".join(sorted({f"{s.stage} to {n} samples" for s, n in sizes.values()}))
            )
            records += _run_look(runner, plan, [s for s in chosen if s.fingerprint in sizes], sizes)
            _record_look(store, open_pairs, designs, index, clock())
            verdicts = _settle(store, plan, open_pairs, designs, index, log)
    if not verdicts:  # nothing left to run: every pair was settled before
        verdicts = [v for v in campaign_verdicts(store, plan) if v.slice is None]
    progress = [PairProgress(p, designs[p.candidate.fingerprint]) for p in pairs]
    return SequentialResult(progress, records, verdicts)


def _look_sizes(
    open_pairs: list[Pair], designs: dict[str, SequentialDesign], index: int
) -> dict[str, tuple[RunSpec, int]]:
    """The samples each run of the open pairs reaches at this look (a baseline shared by
    several pairs: the most any of them asks)."""
    sizes: dict[str, tuple[RunSpec, int]] = {}
    for p in open_pairs:
        n = _stage_size(designs[p.candidate.fingerprint], index)
        for spec in (p.baseline, p.candidate):
            prev = sizes.get(spec.fingerprint, (spec, 0))[1]
            sizes[spec.fingerprint] = (spec, max(prev, n))
    return sizes


def _run_look(
    runner: Runner, plan: Plan, order: list[RunSpec], sizes: dict[str, tuple[RunSpec, int]]
) -> list[RunRecord]:
    """Extend every open run to its size at this look, in the campaign's interleaved order:
    in blocks, the arms taking turns; else a launched configuration's executions of a round
    share one server start (engine.launch.sessions), kept up over looks as
    engine.launch.servers allows, the next ones started ahead with engine.launch.prestart."""
    records: list[RunRecord] = []
    if plan.campaign.blocked():
        steps = blocked(
            order,
            plan.repeats_of,
            lambda s: plan.campaign.block_size(s.load.level),
            lambda s: sizes[s.fingerprint][1],
        )
        for step in steps:
            assert isinstance(step, Step)
            e = step.execution
            records.append(
                runner.run_one(
                    plan,
                    e.spec,
                    e.repeat,
                    order=(e.repeat, e.position),
                    limit=step.limit,
                    block=step.block,
                    block_size=plan.campaign.block_size(e.spec.load.level),
                )
            )
        return records
    schedule = runner.schedule(plan, order)
    for i, item in enumerate(schedule):
        assert isinstance(item, Execution)
        runner.prestart_after(plan, schedule, i)
        n = sizes[item.spec.fingerprint][1]
        records.append(
            runner.run_one(
                plan, item.spec, item.repeat, order=(item.repeat, item.position), limit=n
            )
        )
    return records


def _record_look(
    store: Store,
    open_pairs: list[Pair],
    designs: dict[str, SequentialDesign],
    index: int,
    at: float,
) -> None:
    """Each open pair's look, with the executions it reads, written to its design."""
    for p in open_pairs:
        design = designs[p.candidate.fingerprint]
        look = Look(
            index=index,
            samples=_stage_size(design, index),
            baseline_run_ids=tuple(r.run_id for r in _completed(store, p.baseline)),
            candidate_run_ids=tuple(r.run_id for r in _completed(store, p.candidate)),
            at=at,
        )
        designs[p.candidate.fingerprint] = _write(
            store, p.candidate, design.model_copy(update={"taken": (*design.taken, look)})
        )


def _settle(
    store: Store,
    plan: Plan,
    open_pairs: list[Pair],
    designs: dict[str, SequentialDesign],
    index: int,
    log: Log,
) -> list[PairVerdict]:
    """The campaign's verdicts at this look; each open pair's written to its look, and the
    pair stopped when settled, futile, or at its last declared look."""
    verdicts = [v for v in campaign_verdicts(store, plan) if v.slice is None]
    by_pair = dict(zip((p.candidate.fingerprint for p in plan.pairs), verdicts, strict=True))
    for p in open_pairs:
        design = designs[p.candidate.fingerprint]
        v = by_pair[p.candidate.fingerprint]
        stopped = None
        if v.verdict in SETTLED:
            stopped = f"{v.verdict} at look {index}"
        elif v.reason("sequential.futility") is not None:
            stopped = f"INCONCLUSIVE at look {index}: more samples cannot settle it"
        elif index >= design.looks:
            stopped = f"INCONCLUSIVE at the last declared look ({design.max_samples} samples)"
        taken = (*design.taken[:-1], design.taken[-1].model_copy(update={"verdict": v.verdict}))
        designs[p.candidate.fingerprint] = _write(
            store, p.candidate, design.model_copy(update={"taken": taken, "stopped": stopped})
        )
        if stopped is not None:
            log(
                f"look {index}: {p.candidate.speculation.label}, {p.candidate.stage}, "
                f"{p.candidate.load.label}: {stopped}, {design.taken[-1].samples} samples"
            )
    return verdicts


def _write(store: Store, spec: RunSpec, design: SequentialDesign) -> SequentialDesign:
    """Record the design and its looks on every completed execution of the candidate."""
    for run in _completed(store, spec):
        store.update_run(run.run_id, manifest={"sequential": design})
    return design
