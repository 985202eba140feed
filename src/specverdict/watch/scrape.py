"""The watch loop: scrape each target's ``/metrics``, feed the detector, re-run the override
audit after every restart, export the watch's own metrics, post alarms to a webhook. All the
I/O of ``watch`` is here; the decisions are in :mod:`specverdict.watch.detect`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_client.parser import text_string_to_metric_families

from specverdict.audit.overrides import CommandPrefix, Directory, check_overrides, load_manifest
from specverdict.engines.prometheus import PREFIX, read_spec_family
from specverdict.errors import SpecverdictError
from specverdict.policy.model import OverridesTarget
from specverdict.watch.detect import (
    Baseline,
    Counters,
    DetectorConfig,
    DetectorState,
    Event,
    step,
)

START_TIME = "process_start_time_seconds"


def parse_counters(text: str, prefix: str = PREFIX) -> Counters:
    """The spec-decode counters of one exposition (absent series count 0) and the process
    start time: ``process_start_time_seconds``, else the drafts counter's ``_created``."""
    fam = read_spec_family(text, prefix)
    start = created = None
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == START_TIME:
                start = sample.value
            elif sample.name == f"{prefix}num_drafts_created":
                created = sample.value if created is None else min(created, sample.value)
    return Counters(
        drafts=fam.drafts or 0.0,
        draft_tokens=fam.draft_tokens or 0.0,
        accepted=fam.accepted or 0.0,
        start_time=start if start is not None else created,
    )


class WatchMetrics:
    """The watch's own exposition, one label set per target."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        r = self.registry = registry or CollectorRegistry(auto_describe=True)

        def g(name: str, doc: str) -> Gauge:
            return Gauge(f"specverdict_watch_{name}", doc, ["target"], registry=r)

        self.mal = g("window_mal", "Mean accepted length of the last window (bonus included).")
        self.acceptance = g("window_acceptance", "Acceptance rate of the last window.")
        self.mal_lower = g("expected_mal_lower", "Lower end of the pinned MAL interval.")
        self.mal_upper = g("expected_mal_upper", "Upper end of the pinned MAL interval.")
        self.acc_lower = g("expected_acceptance_lower", "Lower end of the pinned acceptance.")
        self.acc_upper = g("expected_acceptance_upper", "Upper end of the pinned acceptance.")
        self.cusum = g("cusum", "One-sided CUSUM of the window's fall below the band.")
        self.threshold = g("cusum_threshold", "CUSUM alarm threshold h.")
        self.false_alarm = g(
            "false_alarm_rate", "Configured false alarms per window at the band's edge (1/ARL0)."
        )
        self.alarm = g("alarm", "1 while a drift alarm is raised.")
        self.up = g("target_up", "1 when the last scrape of the target succeeded.")
        self.audit = g(
            "override_audit_clean", "Last override audit: 1 clean, 0 not clean, -1 not run."
        )
        self.windows = Counter(
            "specverdict_watch_windows", "Windows tested.", ["target"], registry=r
        )
        self.restarts = Counter(
            "specverdict_watch_restarts", "Restarts seen.", ["target"], registry=r
        )


Fetch = Callable[[str], str]


def http_fetch(timeout_s: float = 5.0) -> Fetch:
    def fetch(url: str) -> str:
        resp = httpx.get(url.rstrip("/") + "/metrics", timeout=timeout_s)
        resp.raise_for_status()
        return resp.text

    return fetch


@dataclass
class Target:
    url: str
    state: DetectorState = field(default_factory=DetectorState)
    audit_clean: bool | None = None
    audit_verdict: str = ""


class Watcher:
    def __init__(
        self,
        urls: list[str],
        base: Baseline,
        config: DetectorConfig,
        overrides: OverridesTarget | None = None,
        webhook: str | None = None,
        fetch: Fetch | None = None,
        prefix: str = PREFIX,
        out: Callable[[str], None] | None = None,
    ) -> None:
        self.targets = [Target(u) for u in urls]
        self.base = base
        self.config = config
        self.overrides = overrides
        self.webhook = webhook
        self.fetch = fetch or http_fetch()
        self.prefix = prefix
        self.out = out or (lambda line: print(line, flush=True))
        self.metrics = WatchMetrics()
        h = config.threshold
        for t in self.targets:
            m, lab = self.metrics, {"target": t.url}
            m.mal_lower.labels(**lab).set(base.mal_lower)
            m.mal_upper.labels(**lab).set(base.mal_upper if base.mal_upper is not None else 0.0)
            m.acc_lower.labels(**lab).set(base.acceptance_lower or 0.0)
            m.acc_upper.labels(**lab).set(base.acceptance_upper or 0.0)
            m.threshold.labels(**lab).set(h)
            m.false_alarm.labels(**lab).set(1.0 / config.arl0)
            m.audit.labels(**lab).set(-1)
            m.alarm.labels(**lab).set(0)

    def audit(self, target: Target) -> Event | None:
        """Run the override audit for ``target``; an event when overrides are not in place."""
        o = self.overrides
        if o is None:
            return None
        try:
            where: Directory | CommandPrefix = (
                CommandPrefix.parse(o.via) if o.via else Directory(root=o.root or ".")
            )
            result = check_overrides(load_manifest(o.manifest), where)
            target.audit_clean, target.audit_verdict = result.clean, result.verdict
        except (SpecverdictError, OSError, ValueError) as exc:
            target.audit_clean, target.audit_verdict = False, f"override audit could not run: {exc}"
        self.metrics.audit.labels(target=target.url).set(1 if target.audit_clean else 0)
        if target.audit_clean:
            return None
        return Event(kind="alarm", message=f"overrides: {target.audit_verdict}")

    def _post(self, target: Target, event: Event) -> None:
        if self.webhook is None:
            return
        body = {"target": target.url, "kind": event.kind, "message": event.message}
        try:
            httpx.post(self.webhook, json=body, timeout=5.0)
        except httpx.HTTPError as exc:
            sys.stderr.write(f"specverdict watch: webhook {self.webhook}: {exc}\n")

    def poll(self) -> list[tuple[str, Event]]:
        """One scrape of every target."""
        happened: list[tuple[str, Event]] = []
        for t in self.targets:
            lab = {"target": t.url}
            try:
                now: Counters | None = parse_counters(self.fetch(t.url), self.prefix)
            except (httpx.HTTPError, OSError, ValueError):
                now = None
            first = t.state.last is None and now is not None
            t.state, events = step(t.state, now, self.base, self.config)
            if first or any(e.kind == "restart" for e in events):
                audit = self.audit(t)
                if audit is not None:
                    events.append(audit)
            m = self.metrics
            m.up.labels(**lab).set(1 if t.state.up else 0)
            m.cusum.labels(**lab).set(t.state.cusum)
            m.alarm.labels(**lab).set(1 if t.state.alarm else 0)
            for e in events:
                if e.kind == "window" and e.window is not None:
                    m.windows.labels(**lab).inc()
                    m.mal.labels(**lab).set(e.window.mal)
                    if e.window.acceptance is not None:
                        m.acceptance.labels(**lab).set(e.window.acceptance)
                if e.kind == "restart":
                    m.restarts.labels(**lab).inc()
                if e.kind == "alarm":
                    self._post(t, e)
                happened.append((t.url, e))
                self.out(f"{t.url} {e.kind}: {e.message}")
        return happened

    @property
    def alarmed(self) -> bool:
        return any(t.state.alarm or t.audit_clean is False for t in self.targets)

    # --- state for --once runs from cron -------------------------------------------------------

    def save(self, path: Path) -> None:
        data = {
            t.url: {
                "state": t.state.model_dump(mode="json"),
                "audit_clean": t.audit_clean,
                "audit_verdict": t.audit_verdict,
            }
            for t in self.targets
        }
        path.write_text(json.dumps(data, indent=2))

    def restore(self, path: Path) -> None:
        if not path.exists():
            return
        try:
            data = json.loads(path.read_text())
            for t in self.targets:
                if t.url in data:
                    t.state = DetectorState.model_validate(data[t.url]["state"])
                    t.audit_clean = data[t.url]["audit_clean"]
                    t.audit_verdict = data[t.url]["audit_verdict"]
        except (ValueError, KeyError, TypeError) as exc:
            raise SpecverdictError(f"{path}: not a watch state file ({exc})") from None
