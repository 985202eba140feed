"""``specverdict compare-live``: measure two running servers (one without speculation, one
with) on a suite and print the verdict, without a campaign file.

The command builds the campaign in memory (attach mode: the baseline's and the candidate's own
``base_url``), runs it through the runner into the registry like ``specverdict run`` would,
and judges the pair like ``specverdict verdict``. Its runs are ordinary runs of a campaign
named ``compare-live``: ``runs list``, ``runs export`` and ``compare`` read them. As with
``run``, runs already stored for the same servers and settings are reused (an unfinished one is
resumed); to measure again, delete them (``runs delete``) or pass another ``--db``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, get_args

import click
import httpx
from pydantic import ValidationError
from rich.console import Console

from specverdict.campaign import Campaign, build_plan
from specverdict.campaign.model import Method
from specverdict.cli.progress import console_runner
from specverdict.cli.runs import DB_OPTION, DEFAULT_DB, summary_tables
from specverdict.cli.validate import check_feasible
from specverdict.cli.verdict import FAIL_ON, JSON, _finish, parse_fail_on
from specverdict.cli.wrap import print_next
from specverdict.engines.preflight import served_kind
from specverdict.errors import ConfigError
from specverdict.measure.results import run_results
from specverdict.plugins import ENGINES
from specverdict.run.runner import failed_runs
from specverdict.store import open_store
from specverdict.verdict import campaign_verdicts

#: campaign keys -> the flag that sets them, for error messages
FLAGS = {
    "kind": "--engine",
    "served_name": "--model",
    "family": "--model",
    "quantization": "--quantization",
    "method": "--method",
    "k": "--k",
    "suite": "--suite",
    "samples": "--samples",
    "first": "--samples",
    "concurrency": "--concurrency",
    "max_tokens": "--max-tokens",
    "temperature": "--temperature",
    "baseline_repeats": "--baseline-repeats",
    "blocks": "--blocks",
    "margin": "--margin",
    "min_speedup": "--min-speedup",
    "alpha": "--alpha",
    "candidates": "--candidate",
    "baseline": "--baseline",
    "stages": "--stage",
}


def _flag(loc: tuple[Any, ...]) -> str:
    if loc[:2] == ("baseline", "base_url"):
        return "--baseline"
    if loc and loc[0] == "candidates" and loc[-1] == "base_url":
        return "--candidate"
    for part in reversed(loc):
        if str(part) in FLAGS:
            return FLAGS[str(part)]
    return ".".join(map(str, loc)) or "options"


def live_campaign(
    baseline: str,
    candidate: str,
    suite: str,
    *,
    kind: str,
    model: str,
    method: str,
    k: int,
    samples: int,
    stage: str = "function",
    quantization: str = "auto",
    concurrency: int = 1,
    max_tokens: int = 256,
    temperature: float = 0.0,
    baseline_repeats: int | None = None,
    margin: float | None = None,
    min_speedup: float | None = None,
    alpha: float | None = None,
    blocks: str = "auto",
) -> Campaign:
    """The in-memory campaign of ``compare-live``; a bad value is a ``ConfigError`` naming its
    flag."""
    data = {
        "name": "compare-live",
        "engine": {"kind": kind},
        "model": {"family": model, "served_name": model},
        "quantization": quantization,
        "baseline": {"method": "none", "base_url": baseline},
        "candidates": [{"method": method, "k": k, "base_url": candidate}],
        "stages": {stage: {"suite": suite, "samples": {"first": samples}}},
        "sampling": {"temperature": temperature, "max_tokens": max_tokens, "seed": 0},
        "load": {
            "concurrency": [concurrency],
            "baseline_repeats": baseline_repeats,
            "blocks": int(blocks) if blocks.isdigit() else blocks,
        },
        "gates": {
            k: v
            for k, v in (("margin", margin), ("min_speedup", min_speedup), ("alpha", alpha))
            if v is not None
        },
    }
    try:
        return Campaign.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        cause = err.get("ctx", {}).get("error")
        loc = tuple(err["loc"]) + tuple(getattr(cause, "loc", ()))
        got = err.get("input")
        shown = f" (got {got!r})" if isinstance(got, str | int | float) else ""
        raise ConfigError(f"{_flag(loc)}: {cause or err['msg']}{shown}") from None


def served(base_url: str) -> tuple[str, str | None]:
    """The first model a server lists at ``/v1/models`` (what ``--model`` defaults to) and
    the engine kind it says it is (``owned_by``; what ``--engine`` defaults to)."""
    try:
        resp = httpx.get(f"{base_url.rstrip('/')}/v1/models", timeout=10)
        resp.raise_for_status()
        body = resp.json()
        return str(body["data"][0]["id"]), served_kind(body)
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise ConfigError(
            f"--baseline {base_url}: cannot read its model from /v1/models "
            f"({type(exc).__name__}); pass --model and --engine"
        ) from None


def served_model(base_url: str) -> str:
    """The first model a server lists at ``/v1/models``."""
    return served(base_url)[0]


@click.command("compare-live")
@click.option("--baseline", required=True, help="URL of the server running without speculation")
@click.option("--candidate", required=True, help="URL of the server running with speculation")
@click.option("--suite", required=True, help="suite name@version, e.g. humaneval@1")
@click.option(
    "--method",
    required=True,
    type=click.Choice([m for m in get_args(Method) if m != "none"]),
    help="the speculation method the candidate server was started with",
)
@click.option("--k", type=int, required=True, help="its draft tokens per step")
@click.option("--samples", type=int, default=20, show_default=True, help="the suite's first N")
@click.option(
    "--engine",
    "kind",
    default=None,
    help=f"engine kind of both servers ({', '.join(ENGINES.names())}); it decides where "
    "acceptance is read from (openai: none). Default: what the baseline's /v1/models says it "
    "is (owned_by: vllm, sglang, llamacpp), else openai",
)
@click.option("--model", default=None, help="served model name (default: the baseline's first)")
@click.option("--stage", default="function", show_default=True, help="the stage it is judged as")
@click.option("--quantization", default="auto", show_default=True, help="a label")
@click.option("--concurrency", type=int, default=1, show_default=True)
@click.option("--max-tokens", type=int, default=256, show_default=True)
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option(
    "--baseline-repeats",
    type=int,
    default=None,
    help="executions of the baseline (default 1 in blocks, 2 in whole executions)",
)
@click.option(
    "--blocks",
    default="auto",
    show_default=True,
    help="requests per block the two servers take turns in (the speed gate's units), or off "
    "(whole executions); auto: max(8, 2 x concurrency)",
)
@click.option("--margin", type=float, default=None, help="quality margin (default 0.02)")
@click.option("--min-speedup", type=float, default=None, help="speed bar (default 1.05)")
@click.option("--alpha", type=float, default=None, help="error level (default 0.05)")
@click.option(
    "--remeasure",
    is_flag=True,
    help="measure both servers anew instead of reusing this registry's executions of them",
)
@click.option(
    "--force",
    is_flag=True,
    help="measure even when a server's pre-flight contradicts --engine or --method (recorded)",
)
@DB_OPTION
@JSON
@FAIL_ON
def compare_live(
    baseline: str,
    candidate: str,
    suite: str,
    method: str,
    k: int,
    samples: int,
    kind: str | None,
    model: str | None,
    stage: str,
    quantization: str,
    concurrency: int,
    max_tokens: int,
    temperature: float,
    baseline_repeats: int | None,
    blocks: str,
    margin: float | None,
    min_speedup: float | None,
    alpha: float | None,
    remeasure: bool,
    force: bool,
    db: Path,
    as_json: bool,
    fail_on: str,
) -> None:
    """Measure a server without speculation and one with it on a suite, and print the verdict.

    Example: specverdict compare-live --baseline http://127.0.0.1:8000 --candidate http://127.0.0.1:8001 --suite humaneval@1 --method mtp --k 2 --samples 40
    """
    parse_fail_on(fail_on)
    found_kind = None
    if model is None:
        model, found_kind = served(baseline)
    elif kind is None:
        with contextlib.suppress(ConfigError):  # unreachable: the run says so, in its terms
            found_kind = served(baseline)[1]
    kind = kind or found_kind or "openai"
    campaign = live_campaign(
        baseline,
        candidate,
        suite,
        kind=kind,
        model=model,
        method=method,
        k=k,
        samples=samples,
        stage=stage,
        quantization=quantization,
        concurrency=concurrency,
        max_tokens=max_tokens,
        temperature=temperature,
        baseline_repeats=baseline_repeats,
        margin=margin,
        min_speedup=min_speedup,
        alpha=alpha,
        blocks=blocks,
    )
    plan = build_plan(campaign)
    check_feasible(plan, Path("compare-live"))
    store = open_store(db)
    console = Console(stderr=as_json)
    runner = console_runner(store, db, console, remeasure=remeasure, force=force)
    with store.exclusive_runner():
        records = runner.run_plan(plan)
    for table in summary_tables([run_results(store, r.run_id) for r in records]):
        console.print(table)
    verdicts = campaign_verdicts(store, plan)
    failed = failed_runs(store, records, campaign.gates.max_failure_rate)
    if failed is not None:
        raise failed
    first: dict[str, str] = {}
    for r in records:  # the baseline first, one execution per configuration
        first.setdefault(r.fingerprint, r.run_id)
    ids = list(first.values())
    db_flag = "" if db == DEFAULT_DB else f" --db {db}"
    console.print(f"engine {kind} (the servers')", highlight=False)
    print_next(
        console, f"specverdict report {' '.join(ids)}{db_flag} --out report", "the HTML report"
    )
    _finish(verdicts, as_json, fail_on)
