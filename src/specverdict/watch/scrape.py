"""The watch loop: scrape each target's metrics through its source, feed the detector, re-run
the override audit after every restart and whenever a target answers again, export the
watch's own metrics, post alarms to a webhook. All the I/O of ``watch`` is here; the decisions
are in :mod:`specverdict.watch.detect`, the reading of each engine's format in the sources
(:mod:`specverdict.watch.source`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from prometheus_client import CollectorRegistry, Counter, Gauge

from specverdict.audit.overrides import CommandPrefix, Directory, check_overrides, load_manifest
from specverdict.errors import SpecverdictError
from specverdict.policy.model import OverridesTarget
from specverdict.watch.counter_sources import VLLMSource, parse_counters
from specverdict.watch.detect import (
    Baseline,
    Counters,
    DetectorConfig,
    DetectorState,
    Event,
    step,
)
from specverdict.watch.source import MetricsSource, SourceError

__all__ = ["WatchMetrics", "Watcher", "http_fetch", "parse_counters"]


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


def http_fetch(timeout_s: float = 5.0, path: str = "/metrics") -> Fetch:
    def fetch(url: str) -> str:
        resp = httpx.get(url.rstrip("/") + path, timeout=timeout_s)
        resp.raise_for_status()
        return resp.text

    return fetch


@dataclass
class Target:
    url: str
    state: DetectorState = field(default_factory=DetectorState)
    #: the last counters read; a source that accumulates (TensorRT-LLM) adds to these, not to
    #: the detector's window start, which stays put while a window waits for more drafts
    reading: Counters | None = None
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
        prefix: str | None = None,
        out: Callable[[str], None] | None = None,
        source: MetricsSource | None = None,
    ) -> None:
        """``source`` reads each target's metrics (default: vLLM's counters, under ``prefix``
        when given); ``fetch`` gets a target's body (default: HTTP GET of the source's path)."""
        self.targets = [Target(u) for u in urls]
        self.base = base
        self.config = config
        self.overrides = overrides
        self.webhook = webhook
        self.source = source or VLLMSource(prefix)
        self.fetch = fetch or http_fetch(path=self.source.path)
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
            notes: tuple[str, ...] = ()
            try:
                reading = self.source.read(self.fetch(t.url), t.reading)
                now: Counters | None = reading.counters
                notes = reading.notes
                t.reading = now
            except SourceError as exc:
                now = None
                notes = (f"{self.source.kind} source: {exc}",)
            except (httpx.HTTPError, OSError, ValueError):
                now = None
            for note in notes:
                self.out(f"{t.url} note: {note}")
            first = t.state.last is None and now is not None
            t.state, events = step(t.state, now, self.base, self.config)
            # a target answering again may have restarted unseen (a source without counters
            # that reset: TensorRT-LLM's drained stats, SGLang's gauges): audit then too
            if first or any(e.kind in ("restart", "up") for e in events):
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
                "reading": t.reading.model_dump(mode="json") if t.reading else None,
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
                    reading = data[t.url].get("reading")
                    t.reading = Counters.model_validate(reading) if reading else t.state.last
                    t.audit_clean = data[t.url]["audit_clean"]
                    t.audit_verdict = data[t.url]["audit_verdict"]
        except (ValueError, KeyError, TypeError) as exc:
            raise SpecverdictError(f"{path}: not a watch state file ({exc})") from None
