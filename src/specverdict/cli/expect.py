"""``specverdict expect``: the speed-up acceptance can buy, and what a claim would need.

Exit codes: 0 (the answer is in the output, including an unattainable claim), 2 usage errors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from specverdict.campaign.golden import find_entry
from specverdict.campaign.model import MAX_K
from specverdict.cli.runs import DB_OPTION, find_run, open_registry
from specverdict.errors import ConfigError
from specverdict.verdict.expect import (
    Expectation,
    LevelExpectation,
    adaptive_bound,
    expect_schedule,
    inputs_from_run,
    parse_k_schedule,
    resolve_inputs,
)
from specverdict.verdict.expect import expect as compute_expectation

_CLAIM = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*[xX]?\s*")


def _floats(text: str, flag: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.UsageError(f"{flag} {text}: expected comma-separated numbers") from None
    if len(values) > MAX_K:
        raise click.UsageError(f"{flag}: {len(values)} values; at most {MAX_K} (one per k)")
    return values


def parse_claim(text: str) -> float:
    """``2.0x``, ``2x`` or ``2.0`` -> 2.0."""
    m = _CLAIM.fullmatch(text)
    if m is None or float(m.group(1)) <= 0:
        raise click.UsageError(f"--claim {text}: expected a speed-up such as 2.0x")
    return float(m.group(1))


def render_level(r: LevelExpectation) -> str:
    """One load level of a k schedule's prediction."""
    head = f"concurrency {r.concurrency}: the schedule's k is {r.k}"
    if r.expectation is None:
        return f"{head}: no speculation, expected speed-up S = 1.000x"
    return f"{head}\n{render(r.expectation)}"


def render(e: Expectation) -> str:
    rows = [
        f"k = {e.k}; conditional acceptance {', '.join(f'{a:.3f}' for a in e.conditional_acceptance)}",
        f"expected accepted length E = {e.expected_accepted_length:.3f} tokens per step "
        f"(at most {e.k + 1})",
        f"step cost R = {e.step_cost:.3f} baseline steps",
        f"expected speed-up S = E / R = {e.expected_speedup:.3f}x",
        f"acceptance: {e.sources['acceptance']}",
        f"step cost: {e.sources['step_cost']}",
    ]
    rows += [f"assumed: {a}" for a in e.assumptions]
    if e.measured is not None and e.measured.speedup is not None:
        rows.append(
            f"measured: speed-up {e.measured.speedup:.3f}x, MAL "
            f"{e.measured.mean_accepted_length:.3f} (run {e.measured.run_id} vs "
            f"{e.measured.baseline_run_id})"
        )
    if e.claimed_speedup is not None:
        rows.append(
            f"claim {e.claimed_speedup:g}x needs E = {e.required_accepted_length:.3f}: "
            f"{'attainable' if e.attainable else 'not attainable'} at k = {e.k}"
            + (
                ""
                if e.plausible is None
                else f", {'plausible' if e.plausible else 'not plausible'} against this acceptance"
            )
        )
        rows.append(f"  {e.claim_verdict}")
    return "\n".join(rows)


@click.command("expect")
@click.option("--acceptance", type=float, help="i.i.d. acceptance per draft token, in [0, 1]")
@click.option(
    "--per-position",
    metavar="A1,A2,...",
    help="conditional acceptance per draft position (P(position i accepted | those before were))",
)
@click.option("--run", "run_id", metavar="RUN_ID", help="measure acceptance (and cost) from a run")
@click.option(
    "--golden",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="a golden acceptance-length file (InferenceX golden_al_distribution YAML): the chosen "
    "entry's AL as i.i.d. acceptance",
)
@click.option(
    "--entry",
    metavar="MODEL/thinking_on/K",
    help="with --golden: the entry, by its path in the file",
)
@click.option("--model", help="with --golden: the entry's model (its key in the file)")
@click.option("--thinking", type=click.Choice(["on", "off"]), help="with --golden: thinking mode")
@click.option("--precision", help="with --golden: the precision the file states, e.g. bf16")
@click.option("--method", help="with --golden: the method the file states, e.g. mtp")
@click.option("--category", help="with --golden: the category the file states, e.g. coding")
@DB_OPTION
@click.option(
    "--k",
    type=click.IntRange(max=MAX_K),
    help="draft length (default: the number of positions, or the run's)",
)
@click.option(
    "--k-schedule",
    metavar="JSON",
    help="k by batch size instead of --k, vLLM's num_speculative_tokens_per_batch_size, e.g. "
    "'[[1,8,4],[9,32,2],[33,1024,1]]': predicts at each --concurrency from the schedule's k there",
)
@click.option(
    "--concurrency",
    metavar="C1,...",
    help="with --k-schedule: the load levels to predict at (default: each range's start)",
)
@click.option(
    "--adaptive",
    is_flag=True,
    help="the run verifies adaptively (enable_adaptive_verification, 1 to k drafts a step): "
    "the prediction at --k is then its upper bound, said as an assumption",
)
@click.option("--draft-cost", type=float, help="one drafter forward, in baseline decode steps")
@click.option(
    "--verify-cost",
    metavar="V1,...",
    help="verify pass cost in baseline steps: one value, or one per k = 1, 2, ...",
)
@click.option("--claim", metavar="S", help="an external speed-up claim to check, e.g. 2.0x")
@click.option("--json", "as_json", is_flag=True, help="print the expectation as JSON")
def expect(
    acceptance: float | None,
    per_position: str | None,
    run_id: str | None,
    golden: Path | None,
    entry: str | None,
    model: str | None,
    thinking: str | None,
    precision: str | None,
    method: str | None,
    category: str | None,
    db: Path,
    k: int | None,
    k_schedule: str | None,
    concurrency: str | None,
    adaptive: bool,
    draft_cost: float | None,
    verify_cost: str | None,
    claim: str | None,
    as_json: bool,
) -> None:
    """Expected accepted length E and speed-up S = E / R(k) from acceptance and step costs; with
    a claim, the E it needs at this R, whether that is attainable (E <= k + 1) and plausible.

    Example: specverdict expect --acceptance 0.7 --k 4 --draft-cost 0.05 --claim 2.0x

    Example: specverdict expect --golden qwen3.827b_bf16_mtp.yaml --k 3 --draft-cost 0.05

    Example: specverdict expect --acceptance 0.7 --k-schedule '[[1,8,4],[9,1024,1]]'
    --concurrency 1,16
    """
    claimed = parse_claim(claim) if claim is not None else None
    if concurrency is not None and k_schedule is None:
        raise click.UsageError("--concurrency chooses the levels of a --k-schedule: give one")
    if adaptive and k_schedule is not None:
        raise click.UsageError(
            "--adaptive with --k-schedule: adaptive verification goes with one k; give --k"
        )
    if k_schedule is not None:
        if k is not None:
            raise click.UsageError("--k-schedule gives k at each load level: drop --k")
        if golden is not None:
            raise click.UsageError(
                "--k-schedule with --golden: a golden entry is at one k; give --acceptance"
            )
    filters = {
        "model": model,
        "thinking": thinking,
        "precision": precision,
        "method": method,
        "category": category,
    }
    if golden is None:
        given = [f"--{n}" for n, v in (("entry", entry), *filters.items()) if v is not None]
        if given:
            raise click.UsageError(f"{given[0]} chooses an entry of a golden file: give --golden")
    elif sum(x is not None for x in (acceptance, per_position, run_id)) > 0:
        raise ConfigError("give exactly one of --acceptance, --per-position, --run, --golden")
    chosen = None
    if golden is not None:
        chosen = find_entry(
            golden,
            entry=entry,
            k=k,
            model=model,
            thinking=thinking,
            precision=precision,
            method=method,
            category=category,
        )
    run = None
    if run_id is not None:
        store = open_registry(db)
        run = inputs_from_run(store, find_run(store, run_id).run_id)
    positions = _floats(per_position, "--per-position") if per_position is not None else None
    costs = _floats(verify_cost, "--verify-cost") if verify_cost is not None else None
    if k_schedule is not None:
        schedule = parse_k_schedule(k_schedule)
        levels = (
            [round(c) for c in _floats(concurrency, "--concurrency")]
            if concurrency is not None
            else [start for start, _, _ in schedule]
        )
        top = max(r[2] for r in schedule)
        if positions is not None and len(positions) < top:
            raise ConfigError(
                f"--per-position has {len(positions)} values: the schedule drafts up to {top}"
            )
        rows = expect_schedule(
            schedule,
            levels,
            lambda at: resolve_inputs(
                k=at,
                acceptance=acceptance,
                per_position=positions[:at] if positions is not None else None,
                run=run,
                verify_cost=costs,
                draft_cost=draft_cost,
            ),
            claimed,
        )
        if as_json:
            click.echo(json.dumps([r.model_dump(mode="json") for r in rows], indent=2))
        else:
            click.echo("\n\n".join(render_level(r) for r in rows))
        if any(r.expectation is not None and r.expectation.attainable is False for r in rows):
            raise SystemExit(1)
        return
    inputs = resolve_inputs(
        k=k,
        acceptance=acceptance,
        per_position=positions,
        run=run,
        golden=chosen,
        verify_cost=costs,
        draft_cost=draft_cost,
    )
    if adaptive:
        inputs = adaptive_bound(inputs)
    result = compute_expectation(inputs, claimed)
    if as_json:
        click.echo(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        click.echo(render(result))
    if result.attainable is False:  # a claim no acceptance could reach fails the command
        raise SystemExit(1)
