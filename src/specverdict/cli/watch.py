"""``specverdict watch``: scrape engines' /metrics, test each window's acceptance against a
policy's pinned expectation with a CUSUM of stated false-alarm rate, tell restarts from drift,
re-run the override audit after every restart."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import click
import yaml
from pydantic import ValidationError

from specverdict.cli.inputs import http_url, output_file, structured_file
from specverdict.watch.artifacts import alert_rules, dashboard
from specverdict.watch.counter_sources import VLLMSource
from specverdict.watch.detect import DetectorConfig
from specverdict.watch.expect import choose, load_expectations
from specverdict.watch.scrape import Watcher
from specverdict.watch.source import MetricsSource, default_source, source_for

#: the longest --interval, in seconds (a day)
MAX_INTERVAL_S = 86_400.0


def _source(kind: str | None, prefix: str | None, engine: str, where: str) -> MetricsSource:
    if prefix is not None:
        if kind not in (None, "vllm", "llamacpp"):
            raise click.UsageError(f"--prefix: only for the counter sources, not --source {kind}")
        return VLLMSource(prefix)
    return source_for(kind or default_source(engine, where))


def _write(path: Path, text: str, flag: str) -> None:
    try:
        path.write_text(text)
    except OSError as exc:
        raise click.UsageError(f"{flag} {path}: {exc.strerror or exc}") from None


@click.command("watch")
@click.argument("expectations", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--target", "targets", multiple=True, required=True, help="engine base URL")
@click.option("--stage", default=None, help="the expectation's stage (needed when several)")
@click.option("--configuration", default=None, help="the expectation's configuration label")
@click.option("--interval", type=float, default=15.0, show_default=True, help="seconds")
@click.option("--once", is_flag=True, help="one window and exit (1 when an alarm is raised)")
@click.option(
    "--state",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="with --once: the file that carries counters and CUSUM between runs (cron)",
)
@click.option(
    "--arl0",
    type=float,
    default=10_000.0,
    show_default=True,
    help="in-control average run length, in windows (false alarms: 1/ARL0 a window)",
)
@click.option(
    "--kappa",
    type=float,
    default=0.5,
    show_default=True,
    help="CUSUM reference value, in standard units of a window",
)
@click.option(
    "--min-drafts",
    type=int,
    default=20,
    show_default=True,
    help="drafts a window needs; fewer wait for the next scrape",
)
@click.option(
    "--source",
    "source_kind",
    default=None,
    help="what to read (default: by the expectations' engine): vllm (vLLM and the reference "
    "engine), llamacpp, trtllm (trtllm-serve's iteration stats), sglang "
    "(spec_verify_calls), sglang-gauge (spec_accept_length; older SGLang)",
)
@click.option(
    "--prefix",
    default=None,
    help="a counter family of vLLM's names under this prefix (e.g. vllm:spec_decode_)",
)
@click.option(
    "--listen",
    type=click.IntRange(1, 65535),
    default=None,
    help="serve the watch's own /metrics here (a port)",
)
@click.option("--webhook", default=None, help="POST each alarm as JSON to this URL")
@click.option(
    "--rules-out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="write Prometheus alerting rules (YAML) here",
)
@click.option(
    "--dashboard-out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="write a Grafana dashboard (JSON) here",
)
@click.option("--max-polls", type=click.IntRange(min=1), default=None, hidden=True)
def watch(
    expectations: Path,
    targets: tuple[str, ...],
    stage: str | None,
    configuration: str | None,
    interval: float,
    once: bool,
    state: Path | None,
    arl0: float,
    kappa: float,
    min_drafts: int,
    source_kind: str | None,
    prefix: str | None,
    listen: int | None,
    webhook: str | None,
    rules_out: Path | None,
    dashboard_out: Path | None,
    max_polls: int | None,
) -> None:
    """Watch engines' acceptance against a policy's expectations; alarm on drift.

    Example: specverdict watch policy/expectations.json --target http://127.0.0.1:8000 --once

    Example: specverdict watch exp.json --target http://10.0.0.5:8000 --source trtllm
    """
    if not math.isfinite(interval) or interval <= 0 or interval > MAX_INTERVAL_S:
        raise click.UsageError(
            f"--interval {interval:g}: expected seconds above 0 and at most {MAX_INTERVAL_S:g}"
        )
    for target in targets:
        http_url(target, "--target")
    if webhook is not None:
        http_url(webhook, "--webhook")
    structured_file(expectations, "EXPECTATIONS")
    if state is not None and state.exists():
        structured_file(state, "--state")
    output_file(rules_out, "--rules-out")
    output_file(dashboard_out, "--dashboard-out")
    if state is not None and not once:
        raise click.UsageError("--state: only with --once")
    try:
        config = DetectorConfig(arl0=arl0, kappa=kappa, min_drafts=min_drafts)
    except ValidationError as exc:
        err = exc.errors()[0]
        flag = "--" + str(err["loc"][0]).replace("_", "-")
        raise click.UsageError(f"{flag} {err['input']!r}: {err['msg'].lower()}") from None
    exp = load_expectations(expectations)
    chosen, base = choose(exp, stage, configuration, str(expectations))
    if rules_out is not None:
        _write(rules_out, yaml.safe_dump(alert_rules(), sort_keys=False), "--rules-out")
    if dashboard_out is not None:
        _write(dashboard_out, json.dumps(dashboard(), indent=2), "--dashboard-out")
    source = _source(source_kind, prefix, exp.engine, str(expectations))
    watcher = Watcher(list(targets), base, config, exp.overrides, webhook, source=source)
    click.echo(
        f"watching {chosen.stage}/{chosen.configuration}"
        + ("" if base.engine_k is None else f" (pinned {base.pinned_k})")
        + f": MAL band from {base.mal_lower:.3f}, "
        f"CUSUM h {config.threshold:.2f} (kappa {kappa:g}), false alarms 1 in {arl0:g} windows"
    )
    if source.caveat is not None:
        click.echo(f"caveat: {source.caveat}")
    if listen is not None:
        from prometheus_client import start_http_server

        try:
            start_http_server(listen, registry=watcher.metrics.registry)
        except OSError as exc:
            raise click.UsageError(f"--listen {listen}: {exc.strerror or exc}") from None
    if once:
        if state is not None:
            watcher.restore(state)
        if state is None or all(t.state.last is None for t in watcher.targets):
            watcher.poll()
            time.sleep(interval)
        watcher.poll()
        if state is not None:
            watcher.save(state)
        raise SystemExit(1 if watcher.alarmed else 0)
    polls = 0
    while max_polls is None or polls < max_polls:
        watcher.poll()
        polls += 1
        if max_polls is None or polls < max_polls:
            time.sleep(interval)
