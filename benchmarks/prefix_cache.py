"""Prefix caching on multi-turn conversations: host time and modelled device time of the
reference engine with ``--enable-prefix-caching`` (its default) against the named baseline,
prefix caching off.

Each conversation starts from a generated agent task's workspace file (the prompt an agent has
after reading it) and goes on for several turns: every turn re-sends the whole conversation,
the engine's last answer and a follow-up, as an agent's next turn does. Conversations run
concurrently in batched engine steps (continuous batching), greedy, in one process; both
settings must give the same answers.

    python benchmarks/prefix_cache.py --conversations 8 --turns 5 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _results import section_head, write_section
from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.engine import EngineCore, GenerationRequest
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.weights import shipped
from specverdict.suites.synth.data import load_eval

SECTION = "## Prefix caching: multi-turn conversations on the reference engine"
FOLLOW_UP = "\n\nThe tests still fail. Read the function again and fix it:\n"


def run(
    cached: bool, spec: dict[str, object] | None, prompts: list[str], turns: int, max_tokens: int
) -> tuple[float, float, list[list[int]], int, int]:
    core = EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="bench",
            speculative=SpeculativeConfig.model_validate(spec) if spec else None,
            enable_prefix_caching=cached,
            device_model="accel-2b",
            device_clock="virtual",
        )
    )
    tok = core.tokenizer
    follow = list(tok.encode(FOLLOW_UP))
    convs = [list(tok.encode(p)) for p in prompts]
    answers: list[list[int]] = [[] for _ in prompts]
    t0 = time.perf_counter()
    for turn in range(turns):
        states = [
            core.start(
                GenerationRequest(
                    f"c{i}t{turn}", tuple(c), max_tokens, SamplingParams(0.0), ignore_eos=True
                )
            )
            for i, c in enumerate(convs)
        ]
        out: list[list[int]] = [[] for _ in states]
        live = list(enumerate(states))
        while live:
            results = core.step_batch([s for _, s in live])
            for (i, _), r in zip(live, results, strict=True):
                assert not isinstance(r, Exception), r
                out[i].extend(r.token_ids)
            live = [(i, s) for i, s in live if not s.finished]
        for i, o in enumerate(out):
            answers[i].extend(o)
            convs[i] = [*convs[i], *o, *follow]
    host = time.perf_counter() - t0
    pc = core.prefix_cache
    return host, core.modeled_s, answers, pc.queried if pc else 0, pc.hit if pc else 0


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--conversations", type=int, default=8)
    p.add_argument("--turns", type=int, default=5)
    p.add_argument("--max-tokens", type=int, default=48)
    p.add_argument("--write", type=Path, default=None)
    args = p.parse_args()
    files = [next(iter(r["files"].values())) for r in load_eval("agent")[: args.conversations]]
    prompts = [f"Fix the bug in this file.\n\n{f}" for f in files]
    rows = []
    for label, spec in (
        ("none", None),
        ("mtp k=2", {"method": "mtp", "num_speculative_tokens": 2}),
    ):
        off = run(False, spec, prompts, args.turns, args.max_tokens)
        on = run(True, spec, prompts, args.turns, args.max_tokens)
        assert on[2] == off[2], f"{label}: answers differ with prefix caching"
        rows.append((label, off, on))
        print(
            f"{label}: host {off[0]:.1f} s -> {on[0]:.1f} s ({off[0] / on[0]:.2f}x), modelled device "
            f"{off[1]:.2f} s -> {on[1]:.2f} s ({off[1] / on[1]:.2f}x), hit {on[4]}/{on[3]} prompt tokens"
        )
    if args.write:
        lines = [
            *section_head(
                SECTION,
                f"python benchmarks/prefix_cache.py --conversations {args.conversations} "
                f"--turns {args.turns} --max-tokens {args.max_tokens} --write benchmarks/RESULTS.md",
            ),
            "- baseline: prefix caching off (`--no-enable-prefix-caching`); the same conversations, "
            "greedy, concurrent in batched steps, device model accel-2b; answers identical both ways",
            "",
            "| configuration | host s, off | host s, on | host ratio | device s, off | device s, on "
            "| device ratio | prompt tokens hit |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for label, off, on in rows:
            lines.append(
                f"| {label} | {off[0]:.1f} | {on[0]:.1f} | {off[0] / on[0]:.2f}x | {off[1]:.2f} | "
                f"{on[1]:.2f} | {off[1] / on[1]:.2f}x | {on[4]} of {on[3]} |"
            )
        write_section(args.write, SECTION, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
