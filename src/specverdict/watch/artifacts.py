"""The files a watch hands to the monitoring stack: Prometheus alerting rules over the watch's
own metrics, and a Grafana dashboard of them. Pure: dictionaries out."""

from __future__ import annotations

from typing import Any

RULE_GROUP = "specverdict-watch"


def alert_rules() -> dict[str, Any]:
    """Prometheus rule file (``groups``), each alert with what to check first."""
    rules = [
        {
            "alert": "SpecDecodeAcceptanceDrift",
            "expr": "specverdict_watch_alarm == 1",
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "speculative acceptance of {{ $labels.target }} fell below the "
                "pinned band",
                "description": "The CUSUM of the window MAL's fall below the expected band "
                "crossed its threshold. Check first the loader audit (specverdict audit "
                "loader), then the overrides (specverdict audit overrides), then the draft "
                "checkpoint and the traffic mix.",
            },
        },
        {
            "alert": "SpecDecodeOverridesMissing",
            "expr": "specverdict_watch_override_audit_clean == 0",
            "labels": {"severity": "critical"},
            "annotations": {
                "summary": "an override of {{ $labels.target }} is not in place",
                "description": "The override audit after the last (re)start, or after the "
                "target answered again, found a file missing or changed: the container was "
                "likely re-created without its mounts.",
            },
        },
        {
            "alert": "SpecDecodeTargetDown",
            "expr": "specverdict_watch_target_up == 0",
            "for": "5m",
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "{{ $labels.target }} does not answer /metrics",
                "description": "No window can be tested while the target is down.",
            },
        },
        {
            "alert": "SpecDecodeRestarted",
            "expr": "increase(specverdict_watch_restarts_total[15m]) > 0",
            "labels": {"severity": "info"},
            "annotations": {
                "summary": "{{ $labels.target }} restarted",
                "description": "Counters went down or the process start time changed; the "
                "override audit was re-run (see SpecDecodeOverridesMissing).",
            },
        },
    ]
    return {"groups": [{"name": RULE_GROUP, "rules": rules}]}


PANELS: tuple[tuple[str, list[tuple[str, str]]], ...] = (
    (
        "Window MAL and expected band",
        [
            ("specverdict_watch_window_mal", "MAL {{target}}"),
            ("specverdict_watch_expected_mal_lower", "expected lower"),
            ("specverdict_watch_expected_mal_upper", "expected upper"),
        ],
    ),
    (
        "Window acceptance and expected band",
        [
            ("specverdict_watch_window_acceptance", "acceptance {{target}}"),
            ("specverdict_watch_expected_acceptance_lower", "expected lower"),
            ("specverdict_watch_expected_acceptance_upper", "expected upper"),
        ],
    ),
    (
        "CUSUM and threshold",
        [
            ("specverdict_watch_cusum", "CUSUM {{target}}"),
            ("specverdict_watch_cusum_threshold", "threshold"),
        ],
    ),
    ("Alarm state", [("specverdict_watch_alarm", "{{target}}")]),
    (
        "Override audit (1 clean, 0 not, -1 not run)",
        [("specverdict_watch_override_audit_clean", "{{target}}")],
    ),
    (
        "Target up and restarts",
        [
            ("specverdict_watch_target_up", "up {{target}}"),
            ("increase(specverdict_watch_restarts_total[1h])", "restarts/h {{target}}"),
        ],
    ),
)


def dashboard() -> dict[str, Any]:
    """A Grafana dashboard (JSON model, schemaVersion 39) with one time-series panel per row
    of :data:`PANELS`, on a Prometheus data source chosen at import (``${DS_PROMETHEUS}``)."""
    panels = []
    for i, (title, targets) in enumerate(PANELS):
        panels.append(
            {
                "id": i + 1,
                "type": "timeseries",
                "title": title,
                "datasource": {"type": "prometheus", "uid": "${DS_PROMETHEUS}"},
                "gridPos": {"h": 8, "w": 12, "x": 12 * (i % 2), "y": 8 * (i // 2)},
                "targets": [
                    {"refId": chr(ord("A") + j), "expr": expr, "legendFormat": legend}
                    for j, (expr, legend) in enumerate(targets)
                ],
            }
        )
    return {
        "title": "specverdict watch",
        "uid": "specverdict-watch",
        "schemaVersion": 39,
        "version": 1,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "30s",
        "templating": {"list": []},
        "__inputs": [
            {
                "name": "DS_PROMETHEUS",
                "label": "Prometheus",
                "type": "datasource",
                "pluginId": "prometheus",
            }
        ],
        "panels": panels,
    }
