"""``specverdict init``: a commented starting campaign for an engine kind and a model."""

from __future__ import annotations

import math
import re
from pathlib import Path

import click
import yaml

from specverdict.cli.inputs import not_blank, output_file
from specverdict.errors import ConfigError
from specverdict.plugins import ENGINES

#: the campaign's quantization for each engine kind (a label; the engine's own flags follow it)
QUANTIZATION = {"reference": "fp32", "llamacpp": "q8_0"}

HEADER = """\
# A campaign: one engine and one model, a baseline without speculation and the candidates to
# judge against it, the stages (workloads) each judged on its own. Check it with
#   specverdict validate {out}
# then run it and read the verdicts:
#   specverdict run {out}
#   specverdict verdict {out}
# Every key is described in docs/campaign.md (specverdict schema prints the JSON Schema).
name: {name}
"""

LAUNCHED = """\
engine:
  # the reference engine is started by specverdict, one server per run
  kind: {kind}
"""

ATTACHED = """\
engine:
  kind: {kind}
  # Attach mode: specverdict measures servers you started, one per configuration (below, the
  # baseline's and the candidate's base_url). To have specverdict start one server per run
  # instead, remove every base_url and give engine.launch, e.g.
  #   launch: {{args: {launch_args}}}
  # (the engine's built-in command, or launch.command with placeholders {{model}} {{port}} ...)
"""

#: an example of launch arguments in each engine's own flags (the context length)
LAUNCH_EXAMPLE = {
    "vllm": '["--max-model-len", "4096"]',
    "sglang": '["--context-length", "4096"]',
    "llamacpp": '["--ctx-size", "4096"]',
    "trtllm": '["--max_seq_len", "4096"]',
}

BODY = """\
model:
  # results never transfer across model families
  family: {family}
  # the name sent as `model` in every request
  served_name: {served_name}
# the target's weight quantization, as a label (bf16, fp8, ...)
quantization: {quantization}
baseline:
  method: none{baseline_url}
candidates:
  # prompt-lookup (n-gram) speculation needs no draft model; k is the draft tokens per step, a
  # list (k: [2, 4]) expands into one candidate each. Others: mtp, eagle3 or draft_model (with
  # draft: a checkpoint), ...
  - method: ngram
    k: 4{candidate_url}
stages:
  # a stage is function, repository, agent, prose or side:<name>; each gets its own verdicts
  function:
    suite: {suite}
    samples: {{first: 40}}
sampling:
  # temperature 0 also checks that speculation leaves greedy outputs unchanged
  temperature: 0.0
  max_tokens: 256
  seed: 0
load:
  # requests in flight (a list measures each level); or request_rate (requests/s)
  concurrency: [1]
  # requests sent before every measured execution and left out of the figures
  warmup: 2
gates:
  # the pass rate a candidate may lose at most, and the smallest speed-up worth adopting
  margin: 0.05
  min_speedup: 1.05
"""

BASELINE_URL = "\n  # the server started without speculation\n  base_url: {url}"
CANDIDATE_URL = "\n    # the server started with this speculation\n    base_url: {url}"


def _scalar(value: str) -> str:
    """A YAML scalar for ``value``: as it is when plain and read back as this string (not
    ``0``, ``yes`` or a date), else a double-quoted string with YAML's escapes."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_./@:-]*", value) and yaml.safe_load(value) == value:
        return value
    quoted = yaml.safe_dump(value, default_style='"', width=math.inf, allow_unicode=True)
    return quoted.strip()


def campaign_template(
    kind: str,
    model: str,
    family: str | None = None,
    baseline_url: str = "http://127.0.0.1:8000",
    candidate_url: str = "http://127.0.0.1:8001",
    out: str = "campaign.yaml",
) -> str:
    """A commented campaign for ``kind`` and ``model`` that ``specverdict validate`` accepts."""
    if kind not in ENGINES.names():
        raise ConfigError(f"--engine: {ENGINES.miss(kind)}")
    if not model.strip():
        raise ConfigError("--model: give the model's served name (what requests send as `model`)")
    launched = kind == "reference"
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", model.rsplit("/", 1)[-1]).strip("-.") or "model"
    text = HEADER.format(out=out, name=f"{kind}-{stem}")
    text += (LAUNCHED if launched else ATTACHED).format(
        kind=kind, launch_args=LAUNCH_EXAMPLE.get(kind, '["--your-engine-flag", "value"]')
    )
    text += BODY.format(
        family=_scalar(family or ("specverdict-reference" if launched else stem.lower())),
        served_name=_scalar(model),
        quantization=QUANTIZATION.get(kind, "bf16"),
        baseline_url="" if launched else BASELINE_URL.format(url=baseline_url),
        candidate_url="" if launched else CANDIDATE_URL.format(url=candidate_url),
        suite="synth-function@1" if launched else "humaneval@1",
    )
    return text


@click.command("init")
@click.option("--engine", "kind", required=True, help=f"engine kind ({', '.join(ENGINES.names())})")
@click.option("--model", required=True, help="the model's served name (sent as `model`)")
@click.option("--family", default=None, help="model family (default: from the model's name)")
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="the campaign file to write (default: standard output)",
)
@click.option("--force", is_flag=True, help="overwrite --out when it exists")
def init(kind: str, model: str, family: str | None, out: Path | None, force: bool) -> None:
    """Write a commented starting campaign for an engine and a model.

    Example: specverdict init --engine vllm --model Qwen/Qwen3-8B --out campaign.yaml
    """
    not_blank(family, "--family")
    output_file(out, "--out")
    text = campaign_template(kind, model, family, out=str(out or "campaign.yaml"))
    if out is None:
        click.echo(text, nl=False)
        return
    if out.exists() and not force:
        raise ConfigError(f"--out {out}: the file exists (pass --force to overwrite it)")
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--out {out}: cannot write: {exc.strerror}") from None
    click.echo(f"wrote {out}; next: specverdict validate {out}", err=True)
