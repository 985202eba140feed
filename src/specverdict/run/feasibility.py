"""Can the campaign run as written? Found before any engine starts, for ``validate``,
``checklist`` and ``run``.

Errors are what would fail or mislead later: a speculation method, option or quantization the
engine's adapter cannot express or the engine does not implement (``EngineAdapter.problems``),
a sample selection larger than its suite, a concurrency no run can hold (more requests in flight
than it has samples, so the run is labelled with a load it never had). Warnings are loads that
run but measure less than they say: a request rate the samples fill for only a few seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from specverdict.campaign.plan import Plan
from specverdict.engines.registry import adapter_for
from specverdict.plugins import UnknownNameError
from specverdict.suites import suite_for

#: an open-loop run shorter than this (samples / rate) is a burst, not a sustained rate
MIN_RATE_SECONDS = 10.0


@dataclass(frozen=True)
class Feasibility:
    errors: tuple[str, ...]
    warnings: tuple[str, ...]


def feasibility(plan: Plan) -> Feasibility:
    errors: dict[str, None] = {}  # ordered, each message once
    warnings: dict[str, None] = {}
    # an engine problem -> the configurations and stages it concerns (named once, not per run)
    found: dict[str, tuple[dict[str, None], dict[str, None]]] = {}
    every_stage = set(plan.campaign.stages)
    for run in plan.runs:
        who = (
            "baseline" if run.speculation.method == "none" else f"candidate {run.speculation.label}"
        )
        n: int | None = None
        try:
            suite = suite_for(run)
        except UnknownNameError as exc:
            errors[f"stages.{run.stage}.suite: {exc}"] = None
        else:
            try:
                n = len(suite.select(run.samples))
            except ValueError as exc:
                errors[f"stages.{run.stage}.samples: {exc}"] = None
        try:
            adapter = adapter_for(run.engine.kind)
        except UnknownNameError as exc:
            errors[f"engine.kind: {exc}"] = None
            continue
        for problem in adapter.problems(run):
            whos, stages = found.setdefault(problem, ({}, {}))
            whos[who] = None
            stages[run.stage] = None
        for caution in adapter.cautions(run):
            warnings[f"{who}: {caution}"] = None
        if n is None:
            continue
        conc, rate = run.load.concurrency, run.load.request_rate
        if conc is not None and conc > n:
            errors[
                f"load.concurrency {conc}: stage {run.stage} has {n} samples, so at most {n} "
                f"requests are ever in flight and the run would not be at concurrency {conc}; "
                "lower the concurrency or select more samples"
            ] = None
        if rate is not None and n / rate < MIN_RATE_SECONDS:
            warnings[
                f"load.request_rate {rate:g}/s: the {n} samples of stage {run.stage} last "
                f"{n / rate:.1f} s at that rate, a burst rather than a sustained load "
                f"(at least {MIN_RATE_SECONDS:g} s: {int(rate * MIN_RATE_SECONDS)} samples)"
            ] = None
    engine = []
    for problem, (whos, stages) in found.items():
        where = "" if set(stages) == every_stage else f" (stage {', '.join(stages)})"
        engine.append(f"{', '.join(whos)}{where}: {problem}")
    return Feasibility((*engine, *errors), tuple(warnings))
