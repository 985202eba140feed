"""Real vLLM (the CPU build in .venv-vllm, ``make vllm``): paths, environment, campaign helpers.

Every test here is marked ``vllm`` and left out of the default run; ``make test-vllm`` runs them.
A vLLM server takes about 3 GB of memory and up to a minute to start on two cores: one server at
a time (a module's shared server is stopped before the next module starts its own), and every
server is stopped (the launcher kills its process group).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan
from specverdict.engines.vllm import VLLMAdapter, cpu_env
from specverdict.measure.results import RunResults
from specverdict.store import SQLiteStore

ROOT = Path(__file__).resolve().parents[3]
VENV = ROOT / ".venv-vllm"
MODELS = VENV / "models"
TARGET = MODELS / "target"
DRAFT = MODELS / "draft"
#: generous: a cold compile cache on a busy two-core machine
STARTUP_TIMEOUT_S = 600.0
DRAFT_K3 = f"{{method: draft_model, k: 3, draft: '{DRAFT}'}}"

CAMPAIGN = """\
name: {name}
engine: {engine}
model: {{family: specverdict-reference, served_name: reference-target, path: '{target}'}}
quantization: fp32
candidates:
{candidates}
stages:
  function: {{suite: builtin-code@1, samples: {samples}}}
sampling: {{temperature: {temperature}, max_tokens: {max_tokens}, seed: 0}}
load: {{concurrency: [{concurrency}], warmup: 1}}
"""


def launch_env() -> dict[str, str]:
    """The CPU build's environment, with the vLLM venv first on PATH (the built-in command runs
    ``python -m vllm...``) and the compile cache shared by every test and ``make demo-vllm``."""
    path = f"{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**cpu_env(str(VENV / "cache")), "PATH": path}


def launch_engine() -> str:
    """The ``engine`` section of a campaign that starts vLLM per run (flow style)."""
    env = ", ".join(f"{k}: '{v}'" for k, v in launch_env().items())
    return f"{{kind: vllm, launch: {{env: {{{env}}}, startup_timeout_s: {STARTUP_TIMEOUT_S:g}}}}}"


def plan_of(
    engine: str,
    candidates: str,
    *,
    name: str = "vllm-real",
    samples: str = "{first: 6}",
    temperature: float = 0.0,
    max_tokens: int = 64,
    concurrency: str = "1",
) -> Plan:
    text = CAMPAIGN.format(
        name=name,
        engine=engine,
        target=TARGET,
        candidates=candidates,
        samples=samples,
        temperature=temperature,
        max_tokens=max_tokens,
        concurrency=concurrency,
    )
    return build_plan(parse_campaign(text, Path(f"{name}.yaml")))


def quiet(_: str) -> None:
    return None


def counters_only(res: RunResults, store: SQLiteStore) -> RunResults:
    """The same run summarized from its /metrics deltas alone (per-request fields dropped)."""
    samples = [s.model_copy(update={"acceptance": None}) for s in store.samples(res.run.run_id)]
    acc = VLLMAdapter().summarize_acceptance(
        res.run.spec,
        samples,
        store.snapshots(res.run.run_id),
        int(res.run.manifest.segments[-1].requests),
    )
    return res.model_copy(update={"acceptance": acc})


def assert_sources_agree(res: RunResults, store: SQLiteStore) -> None:
    """Per-request acceptance, cross-checked by the adapter, equal to the counter deltas."""
    acc = res.acceptance
    assert acc.source == "per-request", acc
    # the adapter compares per-request sums with the counter deltas: `why` names a
    # disagreement, pollution or a check it could not make
    assert acc.valid and not acc.polluted and acc.why is None, acc.why
    counters = counters_only(res, store).acceptance
    assert counters.source == "metrics-delta" and counters.valid
    assert (counters.drafts, counters.draft_tokens, counters.accepted) == (
        acc.drafts,
        acc.draft_tokens,
        acc.accepted,
    )
    assert counters.accepted_per_pos == acc.accepted_per_pos
    assert acc.draft_tokens and acc.draft_tokens > 0


@pytest.fixture(scope="session", autouse=True)
def _vllm_installed() -> Iterator[None]:
    missing = [p for p in (VENV / "bin" / "python", TARGET, DRAFT) if not p.exists()]
    if missing:
        pytest.fail(
            f"real vLLM is not installed ({', '.join(map(str, missing))} missing): run make vllm",
            pytrace=False,
        )
    assert sys.executable != str(VENV / "bin" / "python")  # the harness runs from its own venv
    yield
