"""Reports of stored runs, stage by stage: ``index.html`` (self-contained, with plots),
``report.md`` and ``report.json`` (the ``ReportData`` they are all rendered from)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from specverdict.report.html import render_html
from specverdict.report.markdown import render_markdown
from specverdict.report.model import ReportData, campaign_report, runs_report


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    markdown: Path
    json: Path


def write_report_files(data: ReportData, out: Path) -> ReportFiles:
    """Write ``index.html``, ``report.md`` and ``report.json`` into ``out`` (created)."""
    out.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(out / "index.html", out / "report.md", out / "report.json")
    files.html.write_text(render_html(data), encoding="utf-8")
    files.markdown.write_text(render_markdown(data), encoding="utf-8")
    files.json.write_text(data.model_dump_json(indent=2), encoding="utf-8")
    return files


__all__ = [
    "ReportData",
    "ReportFiles",
    "campaign_report",
    "render_html",
    "render_markdown",
    "runs_report",
    "write_report_files",
]
