"""Speed verdicts on the host's wall clock, attached servers, blocks against whole executions.

Two campaigns as a user runs them against servers already up, with the default load settings:

- the reference engine paced to a modelled 8B accelerator (``--device-model accel-8b``, the
  default paced clock: the client's wall clock times it), ``mtp`` k=2 against no speculation,
  concurrency 4, 120 generated functions, greedy;
- real llama.cpp (the xllamacpp server on the reference models as GGUF), a draft model k=3
  against no speculation, concurrency 1, 120 generated functions.

Each runs twice into its own registry: in blocks (``load.blocks: auto``, the default when every
configuration has its own server) and in whole executions (``load.blocks: 'off'``, the baseline
executed twice, the design before design note 029). Printed: each verdict, its speed-up and
interval, the design's units and degrees of freedom, the wall time, and the ratio of the
interval's width (log scale) in blocks to the one in whole executions.

    python benchmarks/real_clock.py [--samples 120]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from specverdict.engines.launcher import LaunchedServer, free_port

CLI = [sys.executable, "-m", "specverdict"]
REFERENCE = [sys.executable, "-m", "specverdict.reference.server.cli"]
LLAMA = [sys.executable, "-m", "specverdict.engines.xllamacpp_server"]

PACED = """\
name: paced-{design}
engine: {{kind: reference, base_url: '{base}'}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates:
  - {{method: mtp, k: 2, base_url: '{cand}'}}
stages:
  function: {{suite: synth-function@1, samples: {{first: {n}}}}}
sampling: {{temperature: 0.0, max_tokens: 128, seed: 0}}
load: {{concurrency: 4, blocks: '{blocks}'}}
gates: {{margin: 0.05}}
"""

LLAMACPP = """\
name: llamacpp-{design}
engine: {{kind: llamacpp, base_url: '{base}'}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates:
  - {{method: draft_model, k: 3, draft: '{draft}', base_url: '{cand}'}}
stages:
  function: {{suite: synth-function@1, samples: {{first: {n}}}}}
sampling: {{temperature: 0.0, max_tokens: 64, seed: 0}}
load: {{blocks: '{blocks}'}}
"""


def start(command: list[str]) -> LaunchedServer:
    port = free_port()
    return LaunchedServer([*command, "--port", str(port)], f"http://127.0.0.1:{port}").start()


def campaign(root: Path, text: str) -> dict[str, object]:
    """Run one campaign into its own registry; its verdict and the wall time."""
    name = text.split("\n", 1)[0].split(": ", 1)[1]
    file, db = root / f"{name}.yaml", root / f"{name}.db"
    file.write_text(text)
    t0 = time.perf_counter()
    ran = subprocess.run(
        [*CLI, "run", str(file), "--db", str(db), "--force"],
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.perf_counter() - t0
    if ran.returncode != 0:
        raise SystemExit(f"{name}: run failed: {ran.stderr[-800:]}")
    out = subprocess.run(
        [*CLI, "verdict", str(file), "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    (v,) = json.loads(out.stdout)["verdicts"]
    speed = next(r for r in v["reasons"] if r["gate"] == "speed.tpot")
    data = speed["data"]
    lo, hi = data["interval"] if data.get("interval") else (float("nan"), float("nan"))
    units = (
        f"{data['blocks']} blocks of {data['block_size']}, df {data['df']}"
        if data.get("design") == "blocks"
        else f"{data['drift']['executions']} executions, df {data['drift']['df']}"
        if data.get("drift")
        else "no drift measured"
    )
    return {
        "name": name,
        "verdict": v["verdict"],
        "point": data["point"],
        "lo": lo,
        "hi": hi,
        "units": units,
        "wall_s": took,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=120)
    args = parser.parse_args()
    from specverdict.reference.gguf_export import export_gguf

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paced = ["--device-model", "accel-8b"]
        mtp = ["--speculative-config", json.dumps({"method": "mtp", "num_speculative_tokens": 2})]
        servers = [start([*REFERENCE, *paced]), start([*REFERENCE, *paced, *mtp])]
        try:
            for design, blocks in (("blocks", "auto"), ("executions", "off")):
                text = PACED.format(
                    design=design, base=servers[0].base_url, cand=servers[1].base_url,
                    n=args.samples, blocks=blocks,
                )  # fmt: skip
                rows.append(campaign(root, text))
        finally:
            for s in servers:
                s.stop()
        export_gguf(root / "gguf", "f32")
        model = ["-m", str(root / "gguf" / "target.gguf"), "--alias", "reference-target"]
        common = [*LLAMA, *model, "--metrics", "-t", "1", "--threads-http", "2"]
        draft = root / "gguf" / "draft.gguf"
        spec = ["--spec-type", "draft-simple", "-md", str(draft), "--spec-draft-n-max", "3"]
        servers = [start(common), start([*common, *spec])]
        try:
            for design, blocks in (("blocks", "auto"), ("executions", "off")):
                text = LLAMACPP.format(
                    design=design, base=servers[0].base_url, cand=servers[1].base_url,
                    draft=draft, n=args.samples, blocks=blocks,
                )  # fmt: skip
                rows.append(campaign(root, text))
        finally:
            for s in servers:
                s.stop()
    print("| campaign | verdict | speed-up [95% CI] | units | wall s |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['name']} | {r['verdict']} | {r['point']:.3f}x [{r['lo']:.3f}, {r['hi']:.3f}] "
            f"| {r['units']} | {r['wall_s']:.0f} |"
        )
    for a, b in ((rows[0], rows[1]), (rows[2], rows[3])):
        width = (np.log(a["hi"]) - np.log(a["lo"])) / (np.log(b["hi"]) - np.log(b["lo"]))
        print(f"{a['name']}: interval width {width:.2f}x that of {b['name']} (log scale)")


if __name__ == "__main__":
    main()
