"""The demo job: a no-speculation baseline and speculative candidates on the reference engine.

Each configuration gets its own server (speculation is a launch setting, as in vLLM). The same
prompts are streamed to each at concurrency 1, greedy; acceptance comes from the Prometheus
counter deltas and is cross-checked against the per-request metrics; outputs are compared token
for token with the baseline's (greedy speculation must be lossless).
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx

from specverdict.engines.client import StreamedResponse, stream
from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.engines.prometheus import SpecCounters, parse_spec_counters

PROMPTS = (
    'def is_palindrome(text: str) -> bool:\n    """Return True if text reads the same both ways, '
    'ignoring case and spaces."""\n',
    'def flatten(items):\n    """Flatten a list of lists into one list, keeping the order."""\n',
    'def count_words(text):\n    """Return a dict mapping each word in text to how often it '
    'occurs."""\n',
    'def merge_sorted(a, b):\n    """Merge two sorted lists into one sorted list."""\n',
    'class Stack:\n    """A last-in, first-out stack."""\n\n    def __init__(self):\n',
    'def parse_key_value(line):\n    """Split a line of the form key=value and return (key, '
    'value), both stripped."""\n',
    'import os\n\n\ndef list_python_files(root):\n    """Return the paths of all .py files under '
    'root, sorted."""\n',
    'def chunked(seq, size):\n    """Yield successive chunks of length size from seq."""\n',
)

CONFIGS: tuple[tuple[str, dict[str, object] | None], ...] = (
    ("none", None),
    (
        "ngram k=4",
        {
            "method": "ngram",
            "num_speculative_tokens": 4,
            "prompt_lookup_min": 2,
            "prompt_lookup_max": 5,
        },
    ),
    ("mtp k=2", {"method": "mtp", "num_speculative_tokens": 2}),
    ("draft_model k=3", {"method": "draft_model", "num_speculative_tokens": 3}),
)


@dataclass(frozen=True)
class DemoRow:
    label: str
    requests: int
    failed: int
    output_tokens: int
    tokens_per_s: float
    mean_tpot_ms: float | None
    acceptance_rate: float | None
    mean_accepted_length: float | None
    counters_match_requests: bool
    identical_to_baseline: int | None
    speedup: float | None = None


def server_command(port: int, spec: dict[str, object] | None) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        "specverdict.reference.server.cli",
        "--port",
        str(port),
        "--per-request-spec-decode-metrics",
        "summary",
    ]
    if spec is not None:
        cmd += ["--speculative-config", json.dumps(spec)]
    return cmd


async def _run_prompts(
    base_url: str, max_tokens: int
) -> tuple[list[StreamedResponse], SpecCounters]:
    async with httpx.AsyncClient() as client:
        before = parse_spec_counters((await client.get(base_url + "/metrics")).text)
        results = []
        for prompt in PROMPTS:
            payload = {"prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0}
            results.append(await stream(client, base_url + "/v1/completions", payload))
        after = parse_spec_counters((await client.get(base_url + "/metrics")).text)
    return results, after - before


def run_config(
    label: str,
    spec: dict[str, object] | None,
    max_tokens: int,
    baseline: list[StreamedResponse] | None,
) -> tuple[DemoRow, list[StreamedResponse]]:
    port = free_port()
    with LaunchedServer(server_command(port, spec), f"http://127.0.0.1:{port}"):
        results, delta = asyncio.run(_run_prompts(f"http://127.0.0.1:{port}", max_tokens))
    ok = [r for r in results if r.status == "ok"]
    tokens = sum(r.completion_tokens or 0 for r in ok)
    seconds = sum(r.e2e_s or 0.0 for r in ok)
    tpots = [t for r in ok if (t := r.tpot_s) is not None]
    per_request_accepted = sum(
        (r.metrics or {}).get("speculative_decoding", {}).get("num_accepted_draft_tokens", 0)
        for r in ok
    )
    identical = None
    if baseline is not None:
        identical = sum(1 for a, b in zip(results, baseline, strict=True) if a.text == b.text)
    row = DemoRow(
        label=label,
        requests=len(results),
        failed=len(results) - len(ok),
        output_tokens=tokens,
        tokens_per_s=tokens / seconds if seconds else 0.0,
        mean_tpot_ms=1000 * sum(tpots) / len(tpots) if tpots else None,
        acceptance_rate=delta.acceptance_rate,
        mean_accepted_length=delta.mean_accepted_length,
        counters_match_requests=(
            delta.accepted == per_request_accepted and delta.requests == len(results)
        ),
        identical_to_baseline=identical,
    )
    return row, results


def run_demo(max_tokens: int = 128) -> list[DemoRow]:
    rows: list[DemoRow] = []
    baseline: list[StreamedResponse] | None = None
    for label, spec in CONFIGS:
        row, results = run_config(label, spec, max_tokens, baseline)
        if baseline is None:
            baseline = results
        base_tps = rows[0].tokens_per_s if rows else row.tokens_per_s
        rows.append(
            DemoRow(
                **{**row.__dict__, "speedup": row.tokens_per_s / base_tps if base_tps else None}
            )
        )
    return rows


def to_markdown(rows: list[DemoRow]) -> str:
    def f(x: float | None, fmt: str) -> str:
        return "n/a" if x is None else format(x, fmt)

    lines = [
        "# specverdict demo: reference engine, function-completion prompts, concurrency 1, greedy",
        "",
        "| config | requests | failed | tokens/s | speed-up | TPOT ms | acceptance | MAL | "
        "identical to baseline | counters = per-request |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ident = (
            "baseline"
            if r.identical_to_baseline is None
            else f"{r.identical_to_baseline}/{r.requests}"
        )
        lines.append(
            f"| {r.label} | {r.requests} | {r.failed} | {r.tokens_per_s:.1f} | {f(r.speedup, '.2f')}x | "
            f"{f(r.mean_tpot_ms, '.2f')} | {f(r.acceptance_rate, '.3f')} | "
            f"{f(r.mean_accepted_length, '.2f')} | {ident} | {'yes' if r.counters_match_requests else 'NO'} |"
        )
    lines += [
        "",
        "Single runs, no repeats: these figures carry no confidence interval. "
        "The campaign runner adds repeats, paired statistics and verdicts.",
        "",
    ]
    return "\n".join(lines)


def write_report(rows: list[DemoRow], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / "demo.json").write_text(json.dumps([r.__dict__ for r in rows], indent=2))
    path = out / "report.md"
    path.write_text(to_markdown(rows))
    return path
