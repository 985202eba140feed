"""``specverdict demo`` with several campaigns, as a user runs it: on the modelled device clock
the further campaigns run alongside the first, each in a process of its own, and their output follows the
first's; on the host's clock they run one after the other."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.conftest import specverdict_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NARROW = {"COLUMNS": "60"}  # a narrow terminal: a path rich folded would split in the output


def _small(tmp_path: Path, source: str, name: str, args: list[str]) -> Path:
    """``examples/<source>`` as campaign ``name``: three prompts, twelve tokens, one execution
    each, launched with ``args``."""
    raw = yaml.safe_load((EXAMPLES / source).read_text())
    raw["name"] = name
    raw["engine"]["launch"]["args"] = args
    for stage in raw["stages"].values():
        stage["samples"] = {"first": 3}
    raw["sampling"]["max_tokens"] = 12
    raw["load"].update(repeats=1, baseline_repeats=1, warmup=0)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def _verdicts(folder: Path) -> list[str]:
    return [v["candidate"] for v in json.loads((folder / "demo.json").read_text())["verdicts"]]


def test_on_the_device_clock_the_further_campaigns_run_alongside(tmp_path: Path) -> None:
    virtual = ["--device-model", "accel-5b", "--device-clock", "virtual"]
    first = _small(tmp_path, "demo-fp8.yaml", "first", virtual)
    second = _small(tmp_path, "demo-nvfp4.yaml", "second", virtual)
    third = _small(tmp_path, "demo-fp8.yaml", "third", virtual)
    out = tmp_path / "out"
    args = ["demo", "--out", str(out)]
    for campaign in (first, second, third):
        args += ["--campaign", str(campaign)]
    proc = specverdict_cli(*args, env=NARROW)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = " ".join(proc.stdout.split())  # as printed, less rich's line wrapping
    assert f"{second}, {third} run alongside, each in a process of its own" in text
    # the first campaign's report, then the further processes' output, in campaign order
    headers = [text.index(f"of {c},") for c in (first, second, third)]
    first_done = text.index(f"report: {out / 'index.html'}")
    assert headers[0] < first_done < headers[1] < headers[2]
    assert f"report: {out / 'second' / 'index.html'}" in text
    assert f"report: {out / 'third' / 'index.html'}" in text
    # each campaign measured into its own registry, with its verdicts
    for folder in (out, out / "second", out / "third"):
        assert (folder / "runs.db").exists() and (folder / "index.html").exists()
        assert len(_verdicts(folder)) == 1
    for name in ("second", "third"):
        assert "specverdict demo" in (out / f"alongside-{name}.log").read_text()


def test_on_the_hosts_clock_the_campaigns_run_one_after_the_other(tmp_path: Path) -> None:
    paced = ["--device-model", "accel-5b"]  # paced to the device, but timed on the host
    first = _small(tmp_path, "demo-fp8.yaml", "first", paced)
    second = _small(tmp_path, "demo-nvfp4.yaml", "second", paced)
    out = tmp_path / "out"
    proc = specverdict_cli(
        "demo", "--out", str(out), "--campaign", str(first), "--campaign", str(second), env=NARROW
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = " ".join(proc.stdout.split())
    assert "alongside" not in text and not list(out.glob("alongside*.log"))
    assert text.index(f"of {first},") < text.index(f"of {second},")
    assert len(_verdicts(out)) == len(_verdicts(out / "second")) == 1
