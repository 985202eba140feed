"""Outputs behind one registry (``report.outputs``): the reports of stored runs, stage by stage
(HTML, Markdown, JSON), request-row and run-result exports, and MLflow.

``index.html`` (self-contained, with plots), ``report.md`` and ``report.json`` are rendered from
one ``ReportData``."""

from __future__ import annotations

from specverdict.report.html import render_html
from specverdict.report.markdown import render_markdown
from specverdict.report.model import ReportData, campaign_report, runs_report
from specverdict.report.outputs import write_report_files

__all__ = [
    "ReportData",
    "campaign_report",
    "render_html",
    "render_markdown",
    "runs_report",
    "write_report_files",
]
