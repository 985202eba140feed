"""Expand a campaign into run specs and baseline-candidate pairs.

One baseline and every expanded candidate run per stage and load level; each candidate is paired
with the baseline of its stage and load level, and every pair is checked by ``check_pair``, so a
plan never holds a comparison that changes more than speculation.
"""

from __future__ import annotations

from itertools import product

from pydantic import BaseModel, ConfigDict

from specverdict.campaign.model import Campaign, Candidate
from specverdict.campaign.spec import (
    EngineRef,
    LoadPoint,
    ModelRef,
    RunSpec,
    SamplingRef,
    Speculation,
    SuiteRef,
    check_pair,
)


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

    @property
    def executions(self) -> int:
        return len(self.runs) * self.repeats


def speculations(candidate: Candidate) -> list[Speculation]:
    params = tuple(sorted(candidate.params.items()))
    return [
        Speculation(
            method=candidate.method, k=k, draft=candidate.draft, draft_quantization=q, params=params
        )
        for k, q in product(candidate.ks(), candidate.draft_quantizations())
    ]


def load_points(campaign: Campaign) -> list[LoadPoint]:
    load = campaign.load
    if load.request_rate is not None:
        return [LoadPoint(request_rate=float(r), warmup=load.warmup) for r in load.levels()]
    return [LoadPoint(concurrency=int(c), warmup=load.warmup) for c in load.levels()]


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
    specs: list[Speculation] = [Speculation()] if campaign.baseline is not None else []
    seen: set[Speculation] = set(specs)
    for cand in campaign.candidates:
        for sp in speculations(cand):
            if sp not in seen:  # the same candidate listed twice runs once
                specs.append(sp)
                seen.add(sp)
    runs: list[RunSpec] = []
    pairs: list[Pair] = []
    for stage, section in campaign.stages.items():
        for load in load_points(campaign):
            group = [
                RunSpec(
                    campaign=campaign.name,
                    engine=engine,
                    model=model,
                    quantization=campaign.quantization,
                    speculation=sp,
                    stage=stage,
                    suite=SuiteRef.parse(section.suite),
                    samples=section.samples,
                    sampling=sampling,
                    load=load,
                )
                for sp in specs
            ]
            runs.extend(group)
            if campaign.baseline is None:
                continue
            for run in group[1:]:
                check_pair(group[0], run)
                pairs.append(Pair(baseline=group[0], candidate=run))
    return Plan(campaign=campaign, runs=tuple(runs), pairs=tuple(pairs))
