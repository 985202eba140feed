"""The self-contained HTML report: one file, no network, readable without colour or script.

Everything is inline: the CSS, the SVG plots, the manifests. A short script makes table headers
sortable and opens a manifest when its link is followed; the page is complete without it.
Rendered with jinja2 and autoescaping; only the SVG built by ``svg.py`` (which escapes its own
text) is marked safe.
"""

from __future__ import annotations

import functools
import json
import shlex
from typing import Any

from jinja2 import Environment, Template
from markupsafe import Markup

from specverdict.measure.summary import SPEED_METRIC_WORDS
from specverdict.records import RunManifest
from specverdict.report.model import ReportData, RunRow, StageReport
from specverdict.report.outputs import FileOutput
from specverdict.report.plots import Figure, slug, stage_figures

VERDICT_SYMBOL = {"ADOPT": "✔", "REJECT": "✖", "INCONCLUSIVE": "?", "INVALID": "⚠"}

CSS = """
:root { --fg: #1a1a1a; --muted: #555; --line: #bbb; --bg: #fff; --soft: #f4f6f8; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg); background: var(--bg); }
header, main, footer { max-width: 1100px; margin: 0 auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 1rem 0 .25rem; overflow-wrap: anywhere; }
h2 { font-size: 1.3rem; margin: 2rem 0 .5rem; border-bottom: 2px solid var(--fg); }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: .85rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft);
  padding: .5rem; border: 1px solid var(--line); max-height: 28rem; overflow: auto; }
.meta, .context, .note { color: var(--muted); overflow-wrap: anywhere; }
.warning { border-left: 4px solid #b45309; padding: .3em .8em; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; border: 1px solid var(--line); }
.scroll:focus { outline: 3px solid #0072B2; }
table { border-collapse: collapse; font-size: .85rem; }
th, td { padding: .3rem .5rem; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
thead th { background: var(--soft); position: sticky; top: 0; white-space: nowrap; }
tbody th { font-weight: normal; min-width: 10rem; overflow-wrap: anywhere; }
table.runs thead th { white-space: normal; }  /* a header wraps at its spaces before the table scrolls */
tr.baseline th { font-weight: bold; }
th button { font: inherit; font-weight: bold; background: none; border: 0; padding: 0;
  cursor: pointer; text-decoration: underline dotted; color: inherit; }
.banner { border: 3px solid var(--fg); padding: .5rem .8rem; margin: .8rem 0; }
.banner.v-adopt { border-style: solid; background: #e9f6ee; }
.banner.v-reject { border-style: double; border-width: 6px; background: #fbeaea; }
.banner.v-inconclusive { border-style: dashed; background: #fff7e0; }
.banner.v-invalid { border-style: dotted; border-width: 4px; background: #f2f2f2; }
.verdict-word { font-size: 1.2rem; font-weight: bold; margin: 0; letter-spacing: .04em; }
.banner .labels { font-size: .8rem; color: var(--muted); overflow-wrap: anywhere; }
.reasons { padding-left: 1.2rem; margin: .3rem 0; }
.status { font-weight: bold; font-family: ui-monospace, monospace; font-size: .8rem; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 460px), 1fr));
  gap: 1rem; }
figure.plot { margin: 0; border: 1px solid var(--line); padding: .5rem; min-width: 0; }
figure.plot svg { display: block; height: auto; }
figcaption { font-size: .85rem; }
figcaption strong { display: block; }
.empty { font-style: italic; border: 2px dashed var(--line); padding: 1rem; }
mark.diverge { background: #ffe08a; color: #000; outline: 2px solid #000;
  text-decoration: underline wavy; font-weight: bold; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }
.pair-texts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 320px), 1fr));
  gap: .5rem; }
details { margin: .4rem 0; }
summary { cursor: pointer; overflow-wrap: anywhere; }
table.matrix td { text-align: center; }
table.matrix td a { font-weight: bold; }
li.deciding { font-weight: bold; }
dl.manifest dt { font-weight: bold; margin-top: .4rem; }
dl.manifest dd { margin-left: 1rem; }
a { color: #0a4f8a; }
@media (max-width: 600px) { body { font-size: 14px; } tbody th { min-width: 11rem; } }
@media print { .scroll { overflow: visible; } }
"""

# Sortable tables (progressive: the server-side order is already sensible) and manifests that
# open when their link is followed.
SCRIPT = """
(function () {
  function cellValue(row, i) {
    var c = row.children[i];
    if (!c) { return ""; }
    var v = c.getAttribute("data-value");
    return v === null ? c.textContent.trim() : v;
  }
  document.querySelectorAll("table.sortable thead th").forEach(function (th, i) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(b);
    th.setAttribute("aria-sort", "none");
    b.addEventListener("click", function () {
      var table = th.closest("table");
      var body = table.tBodies[0];
      var asc = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("thead th").forEach(function (o) {
        o.setAttribute("aria-sort", "none");
      });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = cellValue(a, i), y = cellValue(b, i);
        var nx = parseFloat(x), ny = parseFloat(y);
        var r = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? r : -r;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    var d = el && el.querySelector("details");
    if (d) { d.open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
"""

TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ data.title }}</title>
<style>{{ css }}</style>
</head>
<body>
<header>
<h1>{{ data.title }}</h1>
<p class="meta">source: <code>{{ data.source }}</code> · specverdict {{ data.specverdict_version }}
· gates: alpha {{ data.gates.alpha }}, margin {{ data.gates.margin }},
min_speedup {{ data.gates.min_speedup }}, max_failure_rate {{ data.gates.max_failure_rate }}
· speeds timed on the {{ data.clock }}</p>
{% set engine_line = data.engine_time_line() %}{% if engine_line %}<p class="meta">{{ engine_line }}</p>
{% endif %}<nav aria-label="Stages"><ul>
{% for st in stages %}<li><a href="#{{ st.anchor }}">Stage {{ st.s.stage }} ({{ st.s.suite }})</a>:
{% for p in st.s.pairs %}<span class="v-{{ p.verdict.verdict | lower }}"><b>{{ p.verdict.verdict }}</b>
{{ p.speculation }}{% if st.s.several_loads %} at {{ p.verdict.load }}{% endif %}</span>{% if not loop.last %}; {% endif %}{% endfor %}</li>
{% endfor %}</ul></nav>
<p class="note">Every verdict holds for its own stage, suite, load level and candidate only;
there is no verdict across stages.</p>
</header>
<main>
{% for st in stages %}{% set s = st.s %}
<section id="{{ st.anchor }}" aria-labelledby="{{ st.anchor }}-h" class="stage">
<h2 id="{{ st.anchor }}-h">Stage {{ s.stage }} · {{ s.suite }}</h2>
<p class="context">engine {{ s.engine }} · model family {{ s.model }} · quantization
{{ s.quantization }} · suite {{ s.suite }} · load {{ s.loads | join(", ") }} · speed judged on
{{ metric_words[s.speed_metric] }}{% if s.slo_ms %} · goodput SLO {{ slo_text(s.slo_ms) }}{% endif %}</p>
{% for w in s.warnings %}<p class="warning" role="note"><b>Warning:</b> {{ w }}</p>
{% endfor %}
<h3>Verdicts</h3>
{% set grid = matrix(s) %}
<table class="matrix" aria-label="Verdict by candidate and load, stage {{ s.stage }}">
<thead><tr><th scope="col">candidate</th>{% for load in grid.loads %}<th scope="col">{{ load }}</th>{% endfor %}</tr></thead>
<tbody>{% for cand, cells in grid.rows %}<tr><th scope="row">{{ cand }}</th>
{% for c in cells %}<td{% if c %} class="v-{{ c.verdict.verdict | lower }}"{% endif %}>{% if c %}<a href="#{{ st.anchor }}-{{ loop.index0 }}-{{ slug(cand) }}">{{ c.verdict.verdict }}</a><br><small>{{ fmt_speed(c.verdict) }}<br>{{ cell_quality(c) }}<br><em>{{ cell_reason(c.verdict) }}</em></small>{% else %}-{% endif %}</td>{% endfor %}</tr>
{% endfor %}</tbody></table>
{% if s.paying %}<ul class="paying" aria-label="Where each candidate stops paying, stage {{ s.stage }}">
{% for line in s.paying %}<li>{{ line }}</li>
{% endfor %}</ul>{% endif %}
{% for p in s.pairs %}{% set v = p.verdict %}
<article class="banner v-{{ v.verdict | lower }}" id="{{ st.anchor }}-{{ grid.loads.index(v.load) }}-{{ slug(p.speculation) }}" aria-label="{{ v.verdict }}: {{ p.speculation }} at {{ v.load }}">
<p class="verdict-word"><span aria-hidden="true">{{ symbol[v.verdict] }}</span> {{ v.verdict }}:
{{ p.title or p.speculation }} against {{ v.baseline }} at {{ v.load }}</p>
<p>speed-up {{ fmt_speed(v) }} · pass rate base/cand {{ pct(v.base_pass_rate) }} / {{ pct(v.cand_pass_rate) }}
· acceptance {{ num(v.acceptance_rate, ".3f") }} · MAL {{ num(v.mean_accepted_length, ".2f") }}{% if s.slo_ms %}
· goodput base/cand {{ pair_goodput(s, v) }}{% endif %}</p>
<p class="labels">candidate: {{ p.candidate_label }}<br>baseline: {{ p.baseline_label }}</p>
<ul class="reasons">
{% for r in ordered(v) if deciding(v, r) %}<li class="deciding"><span class="status">[{{ r.status }}]</span> <code>{{ r.gate }}</code>: {{ r.message }} <strong>(decided the verdict)</strong></li>
{% else %}<li>every gate held (each one below)</li>
{% endfor %}</ul>
<details class="gates"><summary>every gate ({{ v.reasons | length }}): health and figures</summary>
<ul class="reasons">
{% for r in ordered(v) %}<li{% if deciding(v, r) %} class="deciding"{% endif %}><span class="status">[{{ r.status }}]</span> <code>{{ r.gate }}</code>: {{ r.message }}</li>
{% endfor %}</ul></details>
</article>
{% else %}<p class="empty">No candidate in this stage.</p>
{% endfor %}

<h3>Runs</h3>
<p class="note">One row per planned run (its first completed execution); baseline first at each load
level. Every run of this stage shares engine {{ s.engine }}, model {{ s.model }}, quantization
{{ s.quantization }} and suite {{ s.suite }}{% if not s.several_loads %} at {{ s.loads[0] }}{% endif %}.
Times in milliseconds (p50 / p95); intervals at {{ confidence }}.{% if s.slo_ms %} Goodput:
requests per second within every SLO target ({{ slo_text(s.slo_ms) }}), as vLLM's --goodput
counts them.{% endif %}</p>
<div class="scroll" role="region" aria-label="Runs of stage {{ s.stage }}" tabindex="0">
<table class="sortable runs">
<thead><tr>
<th scope="col">run</th><th scope="col">run id</th><th scope="col">acc. rate</th>
<th scope="col">MAL</th><th scope="col">tokens/s</th><th scope="col">TTFT</th>
<th scope="col">TPOT</th>{% if s.slo_ms %}<th scope="col">goodput/s</th>{% endif %}<th scope="col">failed</th><th scope="col">finish</th>
<th scope="col">pass rate [interval]</th><th scope="col">retention</th>
</tr></thead>
<tbody>
{% for r in s.rows %}<tr class="{{ r.role }}" data-run-id="{{ r.run_id or '' }}">
<th scope="row">{{ r.speculation }}{% if s.several_loads %} @ {{ r.load }}{% endif %}{% if r.role == "baseline" %} <em>(baseline)</em>{% endif %}</th>
<td>{% if r.run_id %}<a href="#run-{{ r.run_id }}">{{ r.run_id[:8] }}</a>{% if r.run_ids | length > 1 %} +{{ r.run_ids | length - 1 }}{% endif %}{% else %}not run{% endif %}</td>
{{ cell(r.acceptance_rate, ".3f") }}{{ cell(r.mean_accepted_length, ".2f") }}
{{ cell(r.summary.tokens_per_s if r.summary else None, ".1f") }}
{{ pair_cell(r.summary.ttft_p50_s if r.summary else None, r.summary.ttft_p95_s if r.summary else None, ".0f") }}
{{ pair_cell(r.summary.tpot_p50_s if r.summary else None, r.summary.tpot_p95_s if r.summary else None, ".1f") }}
{% if s.slo_ms %}{{ goodput_cell(r) }}{% endif %}
{{ cell(r.failure_rate, ".0%") }}
<td>{{ finish(r) }}</td>
{{ quality_cell(r) }}
{{ cell(r.retention, ".3f") }}
</tr>
{% endfor %}</tbody>
</table>
</div>
{% for r in s.rows if r.acceptance and not r.acceptance.valid and r.role == "candidate" %}
{% if loop.first %}<ul class="note">{% endif %}
<li>{{ r.speculation }} @ {{ r.load }}: no acceptance figure ({{ r.acceptance.source }}): {{ r.acceptance.why }}</li>
{% if loop.last %}</ul>{% endif %}{% endfor %}

<h3>Plots</h3>
<div class="figures">
{% for f in st.figures %}
<figure class="plot{% if not f.svg %} empty-plot{% endif %}" id="{{ f.fig_id }}" data-kind="{{ f.kind }}">
{% if f.svg %}{{ f.svg | safe }}{% else %}<p class="empty">Nothing to draw: {{ f.empty }}</p>{% endif %}
<figcaption><strong>{{ f.title }}</strong>{{ f.caption }}
{% if f.rows %}<details><summary>numbers behind this plot</summary>
<div class="scroll"><table><thead><tr>{% for h in f.headers %}<th scope="col">{{ h }}</th>{% endfor %}</tr></thead>
<tbody>{% for row in f.rows %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}</tbody></table></div>
</details>{% endif %}</figcaption>
</figure>
{% endfor %}
</div>

<h3>Gate health</h3>
<p class="note">Which gates judged real data, which could not have failed (vacuous) and which had
nothing to judge, with the reason.</p>
<div class="scroll" role="region" aria-label="Gate health of stage {{ s.stage }} (scrolls sideways)" tabindex="0">
<table class="sortable health">
<thead><tr><th scope="col">candidate</th><th scope="col">load</th><th scope="col">gate</th>
<th scope="col">status</th><th scope="col">health</th><th scope="col">why</th></tr></thead>
<tbody>
{% for p in s.pairs %}{% for g in p.health %}<tr>
<td>{{ p.speculation }}</td><td>{{ p.verdict.load }}</td><td><code>{{ g.gate }}</code></td>
<td>{{ g.status }}</td><td>{{ g.health }}</td><td>{{ g.message }}</td></tr>
{% endfor %}{% endfor %}</tbody>
</table>
</div>

<h3>Per-sample supplement</h3>
{% set ns = namespace(any=false) %}
{% for p in s.pairs %}{% for x in p.supplement %}{% set ns.any = true %}
<details class="sample {{ x.kind }}">
<summary>{{ x.kind }} sample <code>{{ x.sample_id }}</code>: {{ p.speculation }} at {{ p.verdict.load }}
{% if x.kind == "discordant" %}(baseline {{ x.base_outcome }}, candidate {{ x.cand_outcome }}){% endif %}
{% if x.position is not none %}· first difference at character {{ x.position }}{% else %}· identical outputs{% endif %}</summary>
<div class="pair-texts">
<div><p><strong>baseline</strong> ({{ p.verdict.baseline }}):</p><pre>{{ highlight(x.base_text, x.position) }}</pre></div>
<div><p><strong>candidate</strong> ({{ p.speculation }}):</p><pre>{{ highlight(x.cand_text, x.position) }}</pre></div>
</div>
</details>
{% endfor %}{% endfor %}
{% if not ns.any %}<p>No discordant or greedy-divergent sample in this stage.</p>{% endif %}

<h3>Run manifests</h3>
<p class="note">What exactly was measured: engine version, launch command, speculative
configuration as sent, launch files, audits, and the full manifest and run spec.</p>
{% for m in s.manifests %}
<div id="run-{{ m.run_id }}" class="manifest-anchor">
<details class="manifest">
<summary>run <code>{{ m.run_id }}</code> (repeat {{ m.repeat }}, {{ m.status }}): {{ m.label }}</summary>
<dl class="manifest">
{% for key, value in highlights(m.manifest) %}<dt>{{ key }}</dt><dd><pre>{{ value }}</pre></dd>
{% endfor %}
<dt>full manifest</dt><dd><pre>{{ dumps(m.manifest.model_dump(mode='json')) }}</pre></dd>
<dt>run spec (fingerprint {{ m.fingerprint }})</dt><dd><pre>{{ dumps(m.spec) }}</pre></dd>
</dl>
</details>
</div>
{% endfor %}
</section>
{% endfor %}
</main>
<footer><p class="note">Generated by specverdict {{ data.specverdict_version }}. The same figures are
in report.md and report.json beside this file.</p></footer>
<script>{{ script }}</script>
</body>
</html>
"""


def _num(x: float | None, fmt: str, scale: float = 1.0) -> str:
    return "n/a" if x is None else format(scale * x, fmt)


def _cell(x: float | None, fmt: str, scale: float = 1.0) -> Markup:
    """A numeric cell: the formatted figure, with the exact stored value in ``data-value``."""
    if x is None:
        return Markup('<td class="num" data-value="">n/a</td>')
    return Markup('<td class="num" data-value="{}">{}</td>').format(repr(x), format(scale * x, fmt))


def _pair_cell(p50: float | None, p95: float | None, fmt: str) -> Markup:
    """A latency cell: p50 / p95 in milliseconds, sorted by the p50."""
    if p50 is None:
        return Markup('<td class="num" data-value="">n/a</td>')
    high = "n/a" if p95 is None else format(1000 * p95, fmt)
    return Markup('<td class="num" data-value="{}">{} / {}</td>').format(
        repr(p50), format(1000 * p50, fmt), high
    )


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _quality_cell(row: RunRow) -> Markup:
    q = row.quality
    if q is None:
        return Markup('<td data-value="">not run</td>')
    if q.pass_rate is None or q.interval is None:
        return Markup('<td data-value="">not scored</td>')
    lo, hi = q.interval
    return Markup('<td class="num" data-value="{}">{} [{}, {}]<br>{}/{}</td>').format(
        repr(q.pass_rate), _pct(q.pass_rate), _pct(lo), _pct(hi), q.passed, q.samples
    )


def _finish(row: RunRow) -> str:
    if row.summary is None:
        return "n/a"
    parts = [f"{k} {v}" for k, v in sorted(row.summary.finish_reasons.items())]
    parts += [f"{k} {v}" for k, v in sorted(row.summary.errors.items())]
    return ", ".join(parts) or "none"


#: the speed metric as the report names it next to a speed-up
METRIC_SHORT = {"tpot": "TPOT", "e2e": "e2e", "ttft": "TTFT", "output_throughput": "tok/s"}


def _speed(v: Any) -> str:
    """The speed-up, its interval and the metric it is of (every speed figure says which)."""
    if v.speedup is None:
        return "n/a"
    text = f"{v.speedup:.3f}×"
    if v.speedup_interval is not None:
        text += f" [{v.speedup_interval[0]:.3f}, {v.speedup_interval[1]:.3f}]"
    return f"{text} {METRIC_SHORT.get(v.speed_metric, v.speed_metric)}"


def slo_text(slo_ms: dict[str, float] | None) -> str:
    """The goodput targets in words, e.g. ``ttft <= 500 ms, tpot <= 50 ms``."""
    return ", ".join(f"{k} ≤ {v:g} ms" for k, v in (slo_ms or {}).items())


def _pair_goodput(stage: StageReport, v: Any) -> str:
    """A pair's goodput, baseline / candidate, from the rows of their first executions."""
    by_run = {r.run_id: r for r in stage.rows if r.run_id is not None}

    def one(run_ids: tuple[str, ...]) -> str:
        row = by_run.get(run_ids[0]) if run_ids else None
        g = row.summary.goodput_per_s if row is not None and row.summary is not None else None
        return "n/a" if g is None else f"{g:.2f}"

    return f"{one(v.baseline_run_ids)} / {one(v.candidate_run_ids)} requests/s"


def _goodput_cell(row: RunRow) -> Markup:
    """Goodput: good requests per second, and how many of the answered were good."""
    s = row.summary
    if s is None or s.good_requests is None:
        return Markup('<td class="num" data-value="">n/a</td>')
    rate = "n/a" if s.goodput_per_s is None else f"{s.goodput_per_s:.2f}"
    return Markup('<td class="num" data-value="{}">{}<br>{}/{} good</td>').format(
        "" if s.goodput_per_s is None else repr(s.goodput_per_s), rate, s.good_requests, s.ok
    )


def highlight(text: str, position: int | None) -> Markup:
    """The text with its first differing character marked (visibly and for screen readers); a
    position at the end marks where the shorter output stops."""
    if position is None:
        return Markup("{}").format(text)
    if position >= len(text):
        return Markup(
            '{}<span class="sr-only">[first difference: output ends here]</span>'
            '<mark class="diverge">⟂ end</mark>'
        ).format(text)
    return Markup(
        '{}<span class="sr-only">[first difference:]</span><mark class="diverge">{}</mark>{}'
    ).format(text[:position], text[position], text[position + 1 :])


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)


def manifest_highlights(manifest: RunManifest) -> list[tuple[str, str]]:
    """The manifest entries a reader looks for first, as text."""
    out: list[tuple[str, str]] = []
    if manifest.engine_version is not None:
        source = manifest.engine_version_source
        shown = _dumps(manifest.engine_version)
        out.append(
            ("engine version", shown if source in (None, "/version") else f"{shown} ({source})")
        )
    if manifest.launch_command:
        out.append(("launch command", shlex.join(manifest.launch_command)))
    text = shlex.join(manifest.speculative_args)
    out.append(("speculative configuration as sent", text or "(none: no speculation)"))
    for name, body in sorted(manifest.launch_files.items()):
        out.append((f"launch file {name}", body))
    audits = manifest.audits.model_dump(mode="json", exclude_none=True)
    if audits:
        out.append(("audits", _dumps(audits)))
    if manifest.engine_time is not None:
        out.append(("engine time", manifest.engine_time.split_line()))
    if manifest.resample_of:
        out.append(("resample of", manifest.resample_of))
    if manifest.error:
        out.append(("error", manifest.error))
    return out


@functools.cache
def _template() -> Template:
    """The page's template, compiled once a process (compiling it takes about 0.2 s)."""
    env = Environment(autoescape=True, trim_blocks=False, lstrip_blocks=False)
    return env.from_string(TEMPLATE)


def render_html(data: ReportData) -> str:
    template = _template()
    stages = [
        {"s": s, "anchor": f"stage-{slug(s.stage)}", "figures": _figures(s, data)}
        for s in data.stages
    ]
    return template.render(
        data=data,
        stages=stages,
        css=Markup(CSS),
        script=Markup(SCRIPT),
        symbol=VERDICT_SYMBOL,
        confidence=f"{100 * (1 - data.gates.alpha):g}%",
        cell=_cell,
        pair_cell=_pair_cell,
        goodput_cell=_goodput_cell,
        pair_goodput=_pair_goodput,
        slo_text=slo_text,
        metric_words=SPEED_METRIC_WORDS,
        num=_num,
        pct=_pct,
        fmt_speed=_speed,
        quality_cell=_quality_cell,
        finish=_finish,
        highlight=highlight,
        highlights=manifest_highlights,
        dumps=_dumps,
        matrix=_matrix,
        cell_quality=_cell_quality,
        cell_reason=_cell_reason,
        ordered=_ordered,
        deciding=_deciding,
        slug=slug,
    )


#: reason statuses that decide a verdict other than ADOPT, listed first
DECIDING = ("invalid", "reject", "inconclusive")
_ORDER = {status: i for i, status in enumerate((*DECIDING, "pass", "vacuous", "info"))}


def _ordered(verdict: Any) -> list[Any]:
    """A verdict's reasons, what decided it first (stable within each status)."""
    return sorted(verdict.reasons, key=lambda r: _ORDER.get(r.status, len(_ORDER)))


def _deciding(verdict: Any, reason: Any) -> bool:
    wanted = {"INVALID": "invalid", "REJECT": "reject", "INCONCLUSIVE": "inconclusive"}
    return bool(wanted.get(verdict.verdict) == reason.status)


def _cell_quality(pair: Any) -> str:
    """A matrix cell's quality change in a few words."""
    q = pair.quality_drop
    if q is None:
        return "no quality signal"
    return f"drop {100 * q.drop:.1f} pp [{100 * q.lower:.1f}, {100 * q.upper:.1f}]"


def _cell_reason(verdict: Any) -> str:
    """What decided a cell, in a few words: the first deciding gate, or that all held."""
    if verdict.verdict == "ADOPT":
        return "every gate held"
    first = next((r for r in _ordered(verdict) if _deciding(verdict, r)), None)
    return "no deciding gate" if first is None else f"{first.status}: {first.gate}"


def _matrix(stage: StageReport) -> dict[str, Any]:
    """Candidate x load: the pair of each cell (None where none was planned)."""
    loads = list(dict.fromkeys(p.verdict.load for p in stage.pairs))
    rows: dict[str, list[Any]] = {}
    for p in stage.pairs:
        cells = rows.setdefault(p.speculation, [None] * len(loads))
        cells[loads.index(p.verdict.load)] = p
    return {"loads": loads, "rows": list(rows.items())}


def _figures(stage: StageReport, data: ReportData) -> list[Figure]:
    return stage_figures(stage, data.gates)


#: ``index.html``: self-contained, with the plots
OUTPUT: FileOutput[ReportData] = FileOutput(
    "html",
    "report",
    "index.html",
    "self-contained HTML, with plots",
    lambda data: render_html(data).encode("utf-8"),
)
