"""``specverdict suites``: list the suites, show one, build its test cache, score one answer.

``score`` judges a raw model output exactly as a run would (same program assembly, sandbox and
ground truth); its exit code is 0 when the answer passes, 1 when it does not, 2 on usage errors.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.table import Table

from specverdict.cli.wrap import terminal_width, wrapped
from specverdict.errors import ConfigError
from specverdict.run.checklist import has_scorer
from specverdict.suites import Suite, get_suite, known_suites
from specverdict.suites.function.evalplus import EvalPlusSuite
from specverdict.suites.function.grade import read_detail
from specverdict.suites.function.groundtruth import GroundTruthError
from specverdict.suites.function.passk import failure_class
from specverdict.suites.functional import FunctionSuite, Mode

DATA_OPTION = click.option(
    "--data",
    type=click.Path(path_type=Path, dir_okay=False),
    help="the EvalPlus release file (HumanEvalPlus.jsonl.gz, MbppPlus.jsonl.gz) for *-plus suites",
)
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="print JSON")


def _suite(ref: str, data: Path | None = None) -> Suite:
    try:
        suite = get_suite(ref)
    except KeyError as exc:
        raise click.UsageError(str(exc).strip("'\"")) from None
    if data is not None:
        if not isinstance(suite, EvalPlusSuite):
            raise click.UsageError(f"--data is for EvalPlus suites; {ref} reads its own data")
        suite.path = data
    return suite


def _endpoint(suite: Suite) -> str:
    """The endpoint its samples use (``completion`` or ``chat``)."""
    mode = getattr(suite, "mode", None)
    if mode is not None:
        return str(mode)
    first = next(iter(suite.samples()), None)
    return "chat" if first is not None and first.endpoint == "chat" else "completion"


def _function_suite(ref: str, data: Path | None) -> FunctionSuite:
    suite = _suite(ref, data)
    if not isinstance(suite, FunctionSuite):
        raise click.UsageError(f"suite {ref} runs no code: it has no scorer")
    return suite


@click.group()
def suites() -> None:
    """List, inspect and try the suites that runs take their samples from.

    Example: specverdict suites list
    """


@suites.command("list")
@JSON_OPTION
def list_suites(as_json: bool) -> None:
    """List the known suites: name@version, stage, endpoint, size (samples; "-" for a suite
    whose data you bring, or one not prepared yet: suites prepare NAME), licence; --json adds
    each source (suites show NAME prints it).

    Example: specverdict suites list --json
    """
    rows: list[dict[str, Any]] = []
    for ref in known_suites():
        suite = get_suite(ref)
        try:
            size: int | None = suite.listed_size()
        except (ValueError, OSError, ConfigError):
            size = None  # its data is the user's (EvalPlus files) or not installed here
        rows.append(
            {
                "suite": ref,
                "stage": suite.stage,
                "mode": _endpoint(suite),
                "size": size,
                "licence": suite.licence,
                "source": suite.source,
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
    for col in ("suite", "stage", "endpoint", "size", "licence"):
        table.add_column(
            col, no_wrap=col != "licence", justify="right" if col == "size" else "left"
        )
    for r in rows:
        size_text = "-" if r["size"] is None else str(r["size"])
        table.add_row(r["suite"], r["stage"], r["mode"], size_text, r["licence"])
    Console(width=terminal_width()).print(table)


@suites.command()
@click.argument("name")
@DATA_OPTION
@JSON_OPTION
def show(name: str, data: Path | None, as_json: bool) -> None:
    """Show a suite: stage, version, size, endpoint, source and licence.

    Example: specverdict suites show humaneval@1
    """
    suite = _suite(name, data)
    try:
        size = len(suite.samples())
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    info: dict[str, Any] = {
        "suite": f"{suite.name}@{suite.version}",
        "stage": suite.stage,
        "version": suite.version,
        "size": size,
        "mode": _endpoint(suite),
        "scored": has_scorer(suite),
        "source": suite.source,
        "licence": suite.licence,
    }
    if isinstance(suite, FunctionSuite):
        info["cache"] = str(suite.cache_directory())
        info["cached_tasks"] = suite.cached_tasks()
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    for key, value in info.items():
        for line in wrapped(f"{key + ':':<14}{value}", hang=14):
            click.echo(line)


@suites.command()
@click.argument("name")
@DATA_OPTION
@JSON_OPTION
def prepare(name: str, data: Path | None, as_json: bool) -> None:
    """Build a suite's test cache ahead of a run: base inputs, amplified inputs and the
    reference solution's outputs on them.

    Example: specverdict suites prepare humaneval@1
    """
    suite = _function_suite(name, data)
    start = time.monotonic()
    try:
        truths = suite.prepare()
    except (ValueError, GroundTruthError) as exc:
        raise ConfigError(str(exc)) from None
    extra = [len(t.plus) for t in truths.values()]
    per_task = {
        "mean": round(statistics.fmean(extra), 1) if extra else 0,
        "min": min(extra, default=0),
        "max": max(extra, default=0),
    }
    info = {
        "suite": f"{suite.name}@{suite.version}",
        "tasks": len(truths),
        "base_inputs": sum(len(t.base) for t in truths.values()),
        "extra_inputs": sum(extra),
        "extra_per_task": per_task,
        "dropped": sum(t.dropped for t in truths.values()),
        "seconds": round(time.monotonic() - start, 1),
        "cache": str(suite.truths.directory),
    }
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    click.echo(
        f"{info['suite']}: {info['tasks']} tasks, {info['base_inputs']} base and "
        f"{info['extra_inputs']} extra inputs ({per_task['mean']} per task, "
        f"{per_task['min']}-{per_task['max']}), {info['seconds']} s; cache {info['cache']}"
    )


@suites.command()
@click.argument("name")
@click.argument("task_id")
@click.option(
    "--answer",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    required=True,
    help="a file holding the raw model output",
)
@click.option(
    "--mode",
    type=click.Choice(["completion", "chat"]),
    help="read the output as a completion of the prompt or as a chat answer (default: the "
    "suite's own endpoint)",
)
@DATA_OPTION
@JSON_OPTION
def score(
    name: str, task_id: str, answer: Path, mode: Mode | None, data: Path | None, as_json: bool
) -> None:
    """Score one raw output as a run would; exit 0 if it passes, 1 if not.

    Example: specverdict suites score humaneval@1 HumanEval/0 --answer out.txt
    """
    suite = _function_suite(name, data)
    try:
        task = suite.task(task_id)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    text = answer.read_text(encoding="utf-8", errors="replace")
    try:
        result = suite.score_many([(suite.sample(task), text)], mode=mode)[0]
    except GroundTruthError as exc:
        raise ConfigError(str(exc)) from None
    detail = read_detail(result)
    if as_json:
        out = {
            "suite": f"{suite.name}@{suite.version}",
            "task_id": task_id,
            "mode": mode or suite.mode,
            "passed": result.passed,
            "outcome": result.outcome,
            "class": failure_class(result),
            "detail": detail.model_dump() if detail else None,
        }
        click.echo(json.dumps(out, indent=2))
    else:
        click.echo(f"{task_id}: {failure_class(result)}")
        if detail is not None:
            base = "passed" if detail.base_passed else "failed"
            click.echo(
                f"  base {detail.base_right}/{detail.base_total} ({base}), "
                f"extra {detail.plus_right}/{detail.plus_total}"
            )
            if detail.failure:
                click.echo(f"  first failure: {detail.failure}")
    raise SystemExit(0 if result.passed else 1)
