"""Expand a campaign into run specs and baseline-candidate pairs.

One baseline and every expanded candidate run per stage and load level; each candidate is paired
with the baseline of its stage and load level, and every pair is checked by ``check_pair``, so a
plan never holds a comparison that changes more than speculation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from itertools import product
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from specverdict.campaign.model import Campaign, Candidate, DatasetSection
from specverdict.campaign.snapshots import snapshots_digest
from specverdict.campaign.spec import (
    DatasetRef,
    EngineRef,
    LoadPoint,
    ModelRef,
    RunSpec,
    SamplingRef,
    Speculation,
    SuiteRef,
    SyntheticRef,
    check_pair,
)
from specverdict.errors import ConfigError


class Pair(BaseModel):
    model_config = ConfigDict(frozen=True)

    baseline: RunSpec
    candidate: RunSpec


class Plan(BaseModel):
    model_config = ConfigDict(frozen=True)

    campaign: Campaign
    runs: tuple[RunSpec, ...]
    pairs: tuple[Pair, ...]

    @property
    def repeats(self) -> int:
        return self.campaign.load.repeats

    def repeats_of(self, spec: RunSpec) -> int:
        """Executions of one run: the baseline's own count (its drift is the noise floor),
        every other run ``load.repeats``."""
        if spec.speculation.method == "none" and self.campaign.baseline is not None:
            return self.campaign.load.baseline_executions(self.campaign.blocked())
        return self.repeats

    @property
    def executions(self) -> int:
        return sum(self.repeats_of(r) for r in self.runs)

    def requests(self, sample_counts: Mapping[str, int]) -> int:
        """Requests the plan sends, from each run's sample count (by fingerprint)."""
        return sum(sample_counts[r.fingerprint] * self.repeats_of(r) for r in self.runs)


class Execution(BaseModel):
    """One execution of a run in the campaign's order: its repeat (the round of its group,
    stage and load level) and its position within the round."""

    model_config = ConfigDict(frozen=True)

    spec: RunSpec
    repeat: int
    position: int


def interleaved(runs: Sequence[RunSpec], repeats_of: Callable[[RunSpec], int]) -> list[Execution]:
    """Executions in an order that cannot make a speed-up: per group of runs that are compared
    (same stage and load level, the baseline first), round r runs the group forwards when r is
    even and backwards when odd (baseline, candidates; candidates, baseline; ...), so that a
    drift over time (a server warming, a machine heating, a neighbour's load) lands on both
    sides of every pair instead of on the arm that ran first. A run with fewer executions than
    the others (``repeats_of``, e.g. ``Plan.repeats_of``) sits out the extra rounds: with one
    repeat and two baseline executions the group is baseline, candidates, baseline."""
    groups: dict[tuple[str, LoadPoint], list[RunSpec]] = {}
    for run in runs:
        groups.setdefault((run.stage, run.load), []).append(run)
    out: list[Execution] = []
    for group in groups.values():
        for r in range(max(repeats_of(s) for s in group)):
            ordered = [s for s in (group if r % 2 == 0 else group[::-1]) if r < repeats_of(s)]
            out += [Execution(spec=s, repeat=r, position=i) for i, s in enumerate(ordered)]
    return out


def server_key(spec: RunSpec) -> str:
    """What a launched server is: the run's identity without what only the requests carry
    (stage, suite, samples, dataset, sampling, load). Runs of one key are served by the same
    server command, so one start can serve them all."""
    ident = spec.identity()
    for field in ("stage", "suite", "samples", "dataset", "sampling", "load"):
        ident.pop(field, None)
    canonical = json.dumps(ident, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def session_key(spec: RunSpec, repeat: int) -> tuple[str, str, int]:
    """The server session an execution belongs to (``engine.launch.sessions: round``): its
    configuration (``server_key``), load level and round (its repeat)."""
    return (server_key(spec), spec.load.label, repeat)


def in_sessions(runs: Sequence[RunSpec], repeats_of: Callable[[RunSpec], int]) -> list[Execution]:
    """Executions grouped into server sessions (``engine.launch.sessions: round``): round r
    takes the configurations (``server_key``, the baseline first) at each load level forwards
    when r is even and backwards when odd, and each runs every stage it has at that level in
    the round back to back, so that one server start serves them (and the sequential looks
    that extend them). Each (stage, load) group still sees its configurations in
    ``interleaved``'s order (baseline, candidates; candidates, baseline), and a configuration's
    repeats are separate rounds, each its own start: the executions the run-to-run drift is
    read from are never one session. Load levels are separate sessions: a server that served
    a stage's prompts at one level would answer them again from its prefix cache at the next
    (vLLM, SGLang, llama.cpp and the reference engine cache prefixes by default)."""
    keys: dict[tuple[str, LoadPoint], list[RunSpec]] = {}
    for run in runs:
        keys.setdefault((server_key(run), run.load), []).append(run)
    configs = list(keys.values())
    out: list[Execution] = []
    rounds = max((repeats_of(s) for s in runs), default=0)
    for r in range(rounds):
        ordered = configs if r % 2 == 0 else configs[::-1]
        position = 0
        for config in ordered:
            members = [s for s in config if r < repeats_of(s)]
            if not members:
                continue
            out += [Execution(spec=s, repeat=r, position=position) for s in members]
            position += 1
    return out


class Step(BaseModel):
    """One call of the runner in a blocked design: extend ``execution`` to the first
    ``limit`` samples of its selection; ``block`` is the block these samples form."""

    model_config = ConfigDict(frozen=True)

    execution: Execution
    block: int
    limit: int


def blocked(
    runs: Sequence[RunSpec],
    repeats_of: Callable[[RunSpec], int],
    block_of: Callable[[RunSpec], int | None],
    samples_of: Callable[[RunSpec], int],
) -> list[Execution | Step]:
    """The campaign's order when its configurations take turns in blocks (``load.blocks``):
    per group (stage and load level, the baseline first) and round, block j of the selection
    (samples jB .. (j+1)B - 1) is sent to every configuration of the group in turn, forwards
    when j + round is even and backwards when odd (AB BA AB ...), so that a drift slower
    than a block lands on both sides of every pair, and every block is a unit of the speed
    gate. A group whose runs have no block size (``block_of`` None) keeps ``interleaved``'s
    whole executions."""
    groups: dict[tuple[str, LoadPoint], list[RunSpec]] = {}
    for run in runs:
        groups.setdefault((run.stage, run.load), []).append(run)
    out: list[Execution | Step] = []
    for group in groups.values():
        size = block_of(group[0])
        if size is None:
            out += interleaved(group, repeats_of)
            continue
        n = max(samples_of(s) for s in group)
        for r in range(max(repeats_of(s) for s in group)):
            for j in range(max(1, -(-n // size))):
                forwards = (j + r) % 2 == 0
                ordered = [s for s in (group if forwards else group[::-1]) if r < repeats_of(s)]
                out += [
                    Step(
                        execution=Execution(spec=s, repeat=r, position=i),
                        block=j,
                        limit=min((j + 1) * size, n),
                    )
                    for i, s in enumerate(ordered)
                ]
    return out


def speculations(candidate: Candidate, engine_kind: str | None = None) -> list[Speculation]:
    """The speculation axes one candidate entry expands to (a list of k, of draft quantizations;
    a k schedule is one run) on an engine of ``engine_kind`` (which decides whether a dspark
    candidate that does not say verifies adaptively)."""
    params = tuple(sorted(candidate.params.items()))
    schedule = (
        None
        if candidate.k_schedule is None
        else tuple((start, end, k) for start, end, k in candidate.k_schedule)
    )
    return [
        Speculation(
            method=candidate.method,
            k=k,
            draft=candidate.draft,
            draft_quantization=q,
            params=params,
            k_schedule=schedule,
            adaptive_verification=candidate.adaptive(engine_kind),
        )
        for k, q in product(candidate.ks(), candidate.draft_quantizations())
    ]


#: warm-up requests before every measured execution unless the campaign says otherwise
DEFAULT_WARMUP = 2


def load_points(campaign: Campaign) -> list[LoadPoint]:
    load = campaign.load
    warmup = DEFAULT_WARMUP if load.warmup is None else load.warmup
    if load.request_rate is not None:
        return [LoadPoint(request_rate=float(r), warmup=warmup) for r in load.levels()]
    return [LoadPoint(concurrency=int(c), warmup=warmup) for c in load.levels()]


def build_plan(campaign: Campaign) -> Plan:
    eng = campaign.engine
    engine = EngineRef(
        kind=eng.kind,
        base_url=eng.base_url,
        launch_command=eng.launch.command if eng.launch else None,
        launch_args=tuple(eng.launch.args) if eng.launch else (),
    )
    model = ModelRef(family=campaign.model.family, served_name=campaign.model.served_name)
    s = campaign.sampling
    sampling = SamplingRef(
        temperature=s.temperature, top_p=s.top_p, max_tokens=s.max_tokens, seed=s.seed
    )
    # each configuration with the server it is measured on (attach mode; None: launched)
    specs: list[tuple[Speculation, str | None]] = []
    if campaign.baseline is not None:
        specs.append((Speculation(), campaign.baseline_url()))
    seen: set[Speculation] = {sp for sp, _ in specs}
    for cand in campaign.candidates:
        for sp in speculations(cand, eng.kind):
            if sp not in seen:  # the same candidate listed twice runs once
                specs.append((sp, campaign.candidate_url(cand)))
                seen.add(sp)
    runs: list[RunSpec] = []
    pairs: list[Pair] = []
    for stage, section in campaign.stages.items():
        dataset = dataset_ref(section.dataset) if section.dataset is not None else None
        synthetic = (
            SyntheticRef(**section.synthetic.model_dump())
            if section.synthetic is not None
            else None
        )
        if section.suite is not None:
            suite = SuiteRef.parse(section.suite)
        elif synthetic is not None:
            suite = SuiteRef(name=synthetic.suite_name, version=1)
        else:
            suite = SuiteRef(
                name=f"dataset:{Path(dataset.path).name}" if dataset else "", version=1
            )
        for load in load_points(campaign):
            group = [
                RunSpec(
                    campaign=campaign.name,
                    engine=engine.model_copy(update={"base_url": url}),
                    model=model,
                    quantization=campaign.quantization,
                    speculation=sp,
                    stage=stage,
                    suite=suite,
                    samples=section.samples,
                    sampling=sampling,
                    load=load,
                    dataset=dataset,
                    synthetic=synthetic,
                )
                for sp, url in specs
            ]
            runs.extend(group)
            if campaign.baseline is None:
                continue
            for run in group[1:]:
                check_pair(group[0], run)
                pairs.append(Pair(baseline=group[0], candidate=run))
    return Plan(campaign=campaign, runs=tuple(runs), pairs=tuple(pairs))


def dataset_ref(section: DatasetSection) -> DatasetRef:
    """The stage's file, by content: a changed file is another run, wherever it lies."""
    path = Path(section.path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the stage's dataset: {exc.strerror}") from None
    snapshots = snapshots_sha256 = None
    if section.snapshots is not None:
        snapshots = section.snapshots
        snapshots_sha256 = snapshots_digest(Path(snapshots))
    # one way of asking, one identity: a replay that is the format's default is no replay, and
    # ShareGPT with its recorded replies is the sharegpt-recorded format
    fmt, replay = section.format, section.replay
    if replay == "first" and fmt != "chat":
        replay = None
    if replay == "recorded" and fmt == "sharegpt":
        fmt, replay = "sharegpt-recorded", None
    return DatasetRef(
        path=str(path),
        sha256=digest,
        format=fmt,
        replay=replay,
        scorer=section.scorer,
        snapshots=snapshots,
        snapshots_sha256=snapshots_sha256,
    )
