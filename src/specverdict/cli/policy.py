"""``specverdict policy``: from a campaign's verdicts, which configuration to run per stage and
load level (only ADOPT cells; speculation off elsewhere), as engine flags and as the
expectations file ``specverdict watch`` reads."""

from __future__ import annotations

import json
from pathlib import Path

import click

from specverdict.campaign import build_plan, load_campaign
from specverdict.cli.runs import DB_OPTION, open_registry
from specverdict.cli.wrap import wrapped_lines
from specverdict.policy.build import build_policy, overrides_target, pair_key, pinned_anyway
from specverdict.policy.evidence import collect_evidence
from specverdict.policy.model import Policy
from specverdict.verdict import campaign_verdicts

POLICY_FILE = "policy.json"
EXPECTATIONS_FILE = "expectations.json"


def render(policy: Policy) -> list[str]:
    lines = []
    for st in policy.stages:
        lines.append(f"stage {st.stage} ({st.suite})")
        for c in st.cells:
            ci = ""
            if c.speedup_interval is not None:
                ci = f" speed-up [{c.speedup_interval[0]:.2f}, {c.speedup_interval[1]:.2f}]"
            lines.append(f"  {c.load}: {c.choice}{ci}: {c.why}")
            if c.engine_args:
                lines.append(f"    flags: {' '.join(c.engine_args)}")
            if c.mad_rule is not None and not c.mad_rule.agrees:
                lines.append(f"    median-MAD rule: {c.mad_rule.choice}: {c.mad_rule.why}")
        if st.vllm_speculative_config is not None:
            text = json.dumps(st.vllm_speculative_config, separators=(",", ":"))
            lines.append(f"  vLLM: --speculative-config '{text}'")
        lines += [f"  note: {n}" for n in st.notes]
    return lines


@click.command("policy")
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@DB_OPTION
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help=f"write {POLICY_FILE}, {EXPECTATIONS_FILE} and the engine's option files here",
)
@click.option("--json", "as_json", is_flag=True, help="print the policy as JSON")
@click.option(
    "--configuration",
    "pin",
    multiple=True,
    metavar="LABEL",
    help="also pin this candidate's expectation (e.g. 'mtp k=2') wherever it was measured, "
    "adopted or not, for watch: a configuration you run anyway, or adopted before; a warning "
    "names each cell where it is not ADOPT (repeatable)",
)
def policy(campaign: Path, db: Path, out: Path | None, as_json: bool, pin: tuple[str, ...]) -> None:
    """Recommend per stage which configuration to run at which load level, from ADOPT verdicts.

    Example: specverdict policy examples/demo.yaml --db runs.db --out policy/
    """
    plan = build_plan(load_campaign(campaign))
    store = open_registry(db)
    verdicts = campaign_verdicts(store, plan)
    ks = {
        (p.candidate.stage, p.candidate.load.label, p.candidate.speculation.label): (
            p.candidate.speculation.k
        )
        for p in plan.pairs
    }
    evidence = collect_evidence(
        store, verdicts, {pair_key(v): ks.get(pair_key(v)) for v in verdicts}
    )
    try:
        _, warnings = pinned_anyway(plan, verdicts, evidence, pin)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    for line in warnings:
        click.echo(f"specverdict: warning: {line}", err=True)
    result, expectations = build_policy(
        plan, verdicts, evidence, overrides_target(plan, Path.cwd()), pin
    )
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / POLICY_FILE).write_text(result.model_dump_json(indent=2) + "\n")
            (out / EXPECTATIONS_FILE).write_text(expectations.model_dump_json(indent=2) + "\n")
            for st in result.stages:
                for c in st.cells:
                    for name, text in c.engine_files.items():
                        (out / c.run_dir).mkdir(exist_ok=True)
                        (out / c.run_dir / name).write_text(text)
        except OSError as exc:
            raise click.UsageError(f"--out {out}: {exc.strerror or exc}") from None
    if as_json:
        click.echo(result.model_dump_json(indent=2))
    else:
        for line in wrapped_lines(render(result)):
            click.echo(line)
        if out is not None:
            click.echo(f"wrote {out / POLICY_FILE} and {out / EXPECTATIONS_FILE}")
            if not expectations.expectations:
                click.echo(
                    f"{EXPECTATIONS_FILE} pins nothing (no candidate is ADOPT with a measured "
                    "acceptance): to watch a configuration you run anyway, pass --configuration "
                    "LABEL"
                )
