"""Decode speed and acceptance of every speculative method of the reference engine.

For each method in {ngram, draft_model, mtp}, k in {1, 2, 4, 8}, greedy and temperature 0.7:
decode tokens/s, acceptance rate, mean accepted length, and speed-up against method ``none``
measured in the same process, in round-robin order over repeats (so drift hits all configurations
alike); figures are medians over repeats.

    python benchmarks/reference_engine.py                 # print the table
    python benchmarks/reference_engine.py --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from _results import cpu_model, write_section
from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.engine import EngineCore, GenerationRequest, RequestState
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.weights import shipped

# The eight function-completion prompts every recorded result in RESULTS.md was measured on.
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

METHODS = {
    "ngram": {"method": "ngram", "prompt_lookup_min": 2, "prompt_lookup_max": 5},
    "draft_model": {"method": "draft_model"},
    "mtp": {"method": "mtp"},
}
KS = (1, 2, 4, 8)
TEMPERATURES = (0.0, 0.7)


@dataclass
class Tally:
    tokens: int = 0
    decode_s: float = 0.0
    drafted: int = 0
    accepted: int = 0
    steps: int = 0


def core_for(label: str, k: int) -> EngineCore:
    spec = (
        None
        if label == "none"
        else SpeculativeConfig.model_validate({**METHODS[label], "num_speculative_tokens": k})
    )
    return EngineCore(
        EngineConfig(model_dir=shipped("target"), served_model_name="bench", speculative=spec)
    )


def run_once(core: EngineCore, temperature: float, max_tokens: int, seed: int) -> Tally:
    tally = Tally()
    for i, prompt in enumerate(PROMPTS):
        req = GenerationRequest(
            f"b{i}",
            tuple(core.tokenizer.encode(prompt)),
            max_tokens,
            SamplingParams(temperature=temperature),
            seed=seed + i,
        )
        state = RequestState(core, req)
        out = state.advance()  # prefill + first token: not decode time
        t0 = time.perf_counter()
        while not state.finished:
            out = state.advance()
        tally.decode_s += time.perf_counter() - t0
        tally.tokens += out.completion_tokens - 1
        if out.spec is not None:
            tally.drafted += out.spec.num_draft_tokens
            tally.accepted += out.spec.num_accepted_draft_tokens
            tally.steps += out.spec.num_spec_steps
    return tally


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--write", type=Path, help="replace this benchmark's section of a RESULTS.md")
    args = ap.parse_args()

    configs = [("none", 0)] + [(m, k) for m in METHODS for k in KS]
    cores = {c: core_for(*c) for c in configs}
    results: dict[tuple[str, int, float], list[Tally]] = {}
    for rep in range(args.repeats):
        for temp in TEMPERATURES:
            for c in configs:
                results.setdefault((*c, temp), []).append(
                    run_once(cores[c], temp, args.max_tokens, 100 * rep)
                )
        print(f"repeat {rep + 1}/{args.repeats} done", flush=True)

    def tps(t: Tally) -> float:
        return t.tokens / t.decode_s

    lines = [
        "| method | k | temperature | decode tok/s | speed-up vs none | acceptance rate | MAL |",
        "|---|---|---|---|---|---|---|",
    ]
    for temp in TEMPERATURES:
        base = statistics.median(tps(t) for t in results[("none", 0, temp)])
        for m, k in configs:
            runs = results[(m, k, temp)]
            speed = statistics.median(tps(t) for t in runs)
            drafted = sum(t.drafted for t in runs)
            acc = sum(t.accepted for t in runs) / drafted if drafted else None
            steps = sum(t.steps for t in runs)
            mal = 1 + sum(t.accepted for t in runs) / steps if steps else None
            lines.append(
                f"| {m} | {k or '-'} | {temp} | {speed:.0f} | {speed / base:.2f}x | "
                f"{'-' if acc is None else f'{acc:.3f}'} | {'-' if mal is None else f'{mal:.2f}'} |"
            )
    table = "\n".join(lines)
    print(table)
    if args.write:
        header = (
            "## Reference engine: decode speed by method and k\n\n"
            f"- date: {time.strftime('%Y-%m-%d')}\n"
            f"- machine: {platform.machine()}, {os.cpu_count()} cores, {cpu_model()}, "
            f"Python {platform.python_version()}\n"
            f"- command: `python benchmarks/reference_engine.py --repeats {args.repeats} "
            f"--max-tokens {args.max_tokens} --write {args.write}`\n"
            f"- workload: the {len(PROMPTS)} demo prompts (function openings), up to {args.max_tokens} "
            "tokens each, concurrency 1, in-process engine (no HTTP); decode time excludes the "
            "prefill; medians over repeats run round-robin; baseline = method `none` in the same run\n\n"
        )
        section = header + table + "\n"
        write_section(args.write, "## Reference engine: decode speed by method and k", section)


if __name__ == "__main__":
    main()
