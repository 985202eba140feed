"""The HTML report in a real headless Chromium (Debian's ``chromium``), opened from disk.

Checks: no console message at all (the page logs nothing, so any message is an error or an
uncaught exception), the sorting script ran, every plot has a rendered box and its marks drawn,
nothing overflows sideways in a phone-sized window, and a screenshot that is not blank, kept as a
test artefact. Each check is first shown able to fail on a page made to fail it.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from tests.integration.report.conftest import Measured

CHROMIUM = shutil.which("chromium")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="BROWSER TEST NOT RUN: chromium is not installed "
        "(Debian package 'chromium': apt-get install -y chromium)",
    ),
]

CONSOLE = re.compile(r":CONSOLE[:(][^\]]*\] (.*)")

# Measures what the browser laid out: per figure, its SVG's box and how many marks have a
# non-empty bounding box; then exercises the sort buttons of the first runs table.
PROBE = """<script>
(function () {
  var figures = [];
  document.querySelectorAll("figure.plot").forEach(function (f) {
    var svg = f.querySelector("svg"), box = svg ? svg.getBoundingClientRect() : null, drawn = 0;
    if (svg) {
      svg.querySelectorAll(".mark").forEach(function (m) {
        var b = m.getBBox();
        if (b.width > 0 && b.height > 0) { drawn++; }
      });
    }
    figures.push({id: f.id, kind: f.getAttribute("data-kind"), w: box ? box.width : 0,
                  h: box ? box.height : 0, right: box ? box.right : 0, drawn: drawn});
  });
  var table = document.querySelector("table.runs"), col = 4, sorted = [];
  var button = table.querySelectorAll("thead th")[col].querySelector("button");
  [0, 1].forEach(function () {
    button.click();
    sorted.push(Array.prototype.map.call(table.tBodies[0].rows, function (r) {
      return r.children[col].getAttribute("data-value");
    }));
  });
  // text boxes of each plot that overlap another (more than a pixel each way)
  var overlaps = [];
  document.querySelectorAll("figure.plot svg").forEach(function (svg) {
    var boxes = Array.prototype.map.call(svg.querySelectorAll("text"), function (t) {
      var b = t.getBoundingClientRect();
      return {l: b.left, t: b.top, r: b.right, b: b.bottom, s: t.textContent};
    }).filter(function (b) { return b.r > b.l; });
    for (var i = 0; i < boxes.length; i++) {
      for (var j = i + 1; j < boxes.length; j++) {
        var a = boxes[i], c = boxes[j];
        var ox = Math.min(a.r, c.r) - Math.max(a.l, c.l), oy = Math.min(a.b, c.b) - Math.max(a.t, c.t);
        if (ox > 1 && oy > 1) { overlaps.push(svg.id + ": " + a.s + " / " + c.s); }
      }
    }
  });
  // how much wider than its box each runs table is (0: no sideways scroll)
  var wider = Array.prototype.map.call(document.querySelectorAll("table.runs"), function (t) {
    return t.scrollWidth - t.parentElement.clientWidth;
  });
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify({figures: figures, sorted: sorted, overlaps: overlaps,
    wider: wider, scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth});
  document.body.appendChild(out);
})();
</script>"""


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"  # a fresh one every time
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            *args,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def console_messages(stderr: str) -> list[str]:
    return [m.group(1) for line in stderr.splitlines() if (m := CONSOLE.search(line))]


def probe(tmp: Path, page: Path, width: int) -> dict[str, Any]:
    probed = tmp / f"probe-{width}.html"  # self-contained: it renders from anywhere
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    proc = chromium(tmp, f"--window-size={width},900", "--dump-dom", probed.as_uri())
    assert not console_messages(proc.stderr), console_messages(proc.stderr)
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, "the probe did not run"
    result: dict[str, Any] = json.loads(unescape(found.group(1)))
    return result


def png_variety(path: Path) -> int:
    """Distinct byte values in the decompressed image data: 2-3 for a blank page."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return len(set(zlib.decompress(idat)))


def test_the_report_renders_in_chromium(
    measured: Measured, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    page = measured.scored / "index.html"
    html = page.read_text()

    # the console scan can fail: a page with an uncaught exception is caught
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>undefinedFunction()</script></body></html>")
    assert console_messages(chromium(tmp_path, "--dump-dom", bad.as_uri()).stderr)

    # the report itself: not one console message, and its script ran (sort buttons exist)
    proc = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not console_messages(proc.stderr), console_messages(proc.stderr)
    sortable = re.findall(r'<table class="sortable[^"]*">.*?</thead>', html, re.S)
    headers = sum(t.count('<th scope="col">') for t in sortable)
    assert headers > 0 and proc.stdout.count('<button type="button">') == headers

    # every plot laid out with its marks drawn
    static = re.findall(
        r'<figure class="plot[^"]*" id="([^"]+)" data-kind="([^"]+)">(.*?)</figure>', html, re.S
    )
    wide = probe(tmp_path, page, 1280)
    assert [f["id"] for f in wide["figures"]] == [fid for fid, _, _ in static]
    assert len(static) == 24  # 12 plots in each of the 2 stages
    for fig, (_, _, body) in zip(wide["figures"], static, strict=True):
        assert fig["w"] > 200 and fig["h"] > 100, fig
        assert fig["drawn"] == body.count('class="mark"') > 0, fig
    # no text of a plot overlaps another, and the runs tables need no sideways scroll at 1280
    assert wide["overlaps"] == [], wide["overlaps"]
    assert wide["wider"] and max(wide["wider"]) <= 0, wide["wider"]
    # ... and both checks can fail: a page made to fail them
    made = tmp_path / "made-to-fail.html"
    made.write_text(
        '<html><body><figure class="plot" id="f"><svg id="s" width="200" height="50">'
        '<text x="10" y="20">margin 2 pp</text><text x="14" y="22">0 (no drop)</text>'
        '</svg></figure><div class="scroll" style="width:300px;overflow-x:auto">'
        '<table class="runs"><thead><tr><th><button>x</button></th><th><button>y</button></th>'
        "<th><button>z</button></th><th><button>w</button></th><th><button>v</button></th>"
        '</tr></thead><tbody><tr><td style="white-space:nowrap">'
        + "wide "
        * 200
        + "</td><td>1</td><td>2</td><td>3</td>"
        '<td data-value="1">4</td></tr></tbody></table></div></body></html>'
    )
    failing = probe(tmp_path, made, 1280)
    assert failing["overlaps"] and max(failing["wider"]) > 0, failing
    # the sort buttons sort: tokens/s ascending, then descending
    up, down = ([float(v) for v in col] for col in wide["sorted"])
    assert up == sorted(up) and down == sorted(up, reverse=True) and len(up) == 8

    # a phone-sized window: nothing sticks out sideways (wide tables scroll in their own box)
    narrow = probe(tmp_path, page, 360)
    assert narrow["scrollWidth"] <= narrow["innerWidth"], narrow["scrollWidth"]
    for fig in narrow["figures"]:
        assert 0 < fig["w"] <= narrow["innerWidth"] and fig["right"] <= narrow["innerWidth"], fig

    # a screenshot, kept as an artefact; a blank page would have almost no variety
    shots = tmp_path_factory.mktemp("report-screenshot")
    shot = shots / "report.png"
    proc = chromium(
        tmp_path,
        "--window-size=1280,4000",
        "--hide-scrollbars",
        f"--screenshot={shot}",
        page.as_uri(),
    )
    assert shot.exists(), proc.stderr[-2000:]
    blank_page = tmp_path / "blank.html"
    blank_page.write_text("<html><body></body></html>")
    blank = tmp_path / "blank.png"
    chromium(tmp_path, "--window-size=1280,4000", f"--screenshot={blank}", blank_page.as_uri())
    assert png_variety(blank) < 10 and png_variety(shot) > 100
    print(f"report screenshot: {shot}")
