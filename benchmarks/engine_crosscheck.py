"""Three-engine cross-check on the same weights: the reference engine against llama.cpp
(xllamacpp's in-process server on the GGUF export), and real vLLM when ``.venv-vllm`` exists.

For each speculative method, the same greedy prompts (``builtin-code@1``, 16 functions) go to
every engine; per engine it counts drafted and accepted tokens (each answer's own figures:
vLLM/reference ``metrics.speculative_decoding``, llama.cpp ``timings.draft_n`` /
``draft_n_accepted``; llama.cpp's ``/metrics`` deltas are checked to equal them) and how many
answers are identical to the reference engine's answer without speculation.

    python benchmarks/engine_crosscheck.py [--max-tokens 128] [--write benchmarks/RESULTS.md]
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _results import machine, write_section  # noqa: E402
from specverdict.engines.launcher import LaunchedServer, free_port  # noqa: E402
from specverdict.engines.llamacpp import LlamaCppAdapter, counter_delta  # noqa: E402
from specverdict.engines.vllm import VLLMAdapter  # noqa: E402
from specverdict.reference.gguf_export import export_gguf  # noqa: E402
from specverdict.reference.weights import shipped  # noqa: E402
from specverdict.suites.function.builtin import BuiltinCode  # noqa: E402

HEADING = "## Three engines on the same weights: reference, llama.cpp, vLLM"
VLLM_VENV = ROOT / ".venv-vllm"


@dataclass(frozen=True)
class Method:
    label: str
    #: the reference engine's (and vLLM's) --speculative-config, None for no speculation
    vllm: dict[str, Any] | None
    #: llama-server's flags ({draft} is the draft GGUF)
    llama: tuple[str, ...]


METHODS = (
    Method("none", None, ()),
    Method(
        "draft_model k=3",
        {"method": "draft_model", "num_speculative_tokens": 3},
        ("--spec-type", "draft-simple", "-md", "{draft}", "--spec-draft-n-max", "3"),
    ),
    Method(
        "ngram k=4 (lookup 2-5)",
        {
            "method": "ngram",
            "num_speculative_tokens": 4,
            "prompt_lookup_min": 2,
            "prompt_lookup_max": 5,
        },
        (
            "--spec-type",
            "ngram-simple",
            "--spec-ngram-simple-size-n",
            "3",
            "--spec-ngram-simple-size-m",
            "4",
        ),
    ),
    Method(
        "ngram k=8 (llama.cpp size_n 3, size_m 8)",
        {
            "method": "ngram",
            "num_speculative_tokens": 8,
            "prompt_lookup_min": 3,
            "prompt_lookup_max": 3,
        },
        (
            "--spec-type",
            "ngram-simple",
            "--spec-ngram-simple-size-n",
            "3",
            "--spec-ngram-simple-size-m",
            "8",
        ),
    ),
)


@dataclass
class Result:
    texts: list[str]
    drafted: int
    accepted: int
    metrics_agree: bool | None = None
    start_s: float = 0.0


def ask(base_url: str, prompts: Sequence[str], max_tokens: int, adapter: Any) -> Result:
    texts, drafted, accepted = [], 0, 0
    with httpx.Client(timeout=300) as client:
        for prompt in prompts:
            body = {
                "model": "reference-target",
                "prompt": prompt,
                "max_tokens": max_tokens,
                "temperature": 0,
            }
            resp = client.post(base_url + "/v1/completions", json=body)
            resp.raise_for_status()
            answer = resp.json()
            texts.append(answer["choices"][0]["text"])
            acc = adapter.per_request_acceptance(answer)
            if acc is not None:
                drafted += acc["num_draft_tokens"]
                accepted += acc["num_accepted_draft_tokens"]
    return Result(texts, drafted, accepted)


def serve(command: list[str], port: int, env: dict[str, str] | None = None) -> LaunchedServer:
    return LaunchedServer(command, f"http://127.0.0.1:{port}", env=env, startup_timeout_s=600)


def reference(method: Method, prompts: Sequence[str], max_tokens: int) -> Result:
    port = free_port()
    command = [sys.executable, "-m", "specverdict.reference.server.cli", "--port", str(port)]
    if method.vllm is not None:
        command += ["--speculative-config", json.dumps(method.vllm)]
        command += ["--per-request-spec-decode-metrics", "summary"]
    t0 = time.perf_counter()
    with serve(command, port) as server:
        start = time.perf_counter() - t0
        result = ask(server.base_url, prompts, max_tokens, VLLMAdapter())
    result.start_s = start
    return result


def llamacpp(method: Method, models: Path, prompts: Sequence[str], max_tokens: int) -> Result:
    port = free_port()
    flags = [f.format(draft=models / "draft.gguf") for f in method.llama]
    command = [sys.executable, "-m", "specverdict.engines.xllamacpp_server"]
    command += ["-m", str(models / "target.gguf"), "--port", str(port), "--metrics", "-t", "1"]
    t0 = time.perf_counter()
    with serve(command + flags, port) as server:
        start = time.perf_counter() - t0
        before = httpx.get(server.base_url + "/metrics").text
        result = ask(server.base_url, prompts, max_tokens, LlamaCppAdapter())
        delta = counter_delta(before, httpx.get(server.base_url + "/metrics").text)
    result.start_s = start
    if delta is not None:
        result.metrics_agree = (delta.draft_tokens, delta.accepted) == (
            result.drafted,
            result.accepted,
        )
    return result


def vllm(method: Method, prompts: Sequence[str], max_tokens: int, models: Path) -> Result:
    from specverdict.engines.vllm import cpu_env

    port = free_port()
    command = [str(VLLM_VENV / "bin" / "python"), "-m", "vllm.entrypoints.openai.api_server"]
    command += ["--model", str(models / "target"), "--port", str(port)]
    command += ["--served-model-name", "reference-target"]
    if method.vllm is not None:
        config = dict(method.vllm)
        if config["method"] == "draft_model":
            config["model"] = str(models / "draft")
        command += ["--speculative-config", json.dumps(config)]
        command += ["--per-request-spec-decode-metrics", "summary"]
    t0 = time.perf_counter()
    with serve(command, port, env=cpu_env(str(VLLM_VENV / "cache"))) as server:
        start = time.perf_counter() - t0
        result = ask(server.base_url, prompts, max_tokens, VLLMAdapter())
    result.start_s = start
    return result


def divergences(
    models: Path, prompts: Sequence[str], texts: list[str], want: list[str], max_tokens: int
) -> list[str]:
    """Where llama.cpp's answers leave the reference baseline's: sample, token index, and the
    gap (nats) between llama.cpp's two best tokens there without speculation."""
    from specverdict.reference.tokenizer import RefTokenizer

    tokenizer = RefTokenizer(shipped("target"))
    found = []
    port = free_port()
    command = [sys.executable, "-m", "specverdict.engines.xllamacpp_server"]
    command += ["-m", str(models / "target.gguf"), "--port", str(port), "-t", "1"]
    with serve(command, port) as server:
        for i, (got, ref) in enumerate(zip(texts, want, strict=True)):
            if got == ref:
                continue
            a, b = tokenizer.encode(ref), tokenizer.encode(got)
            j = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
            if j is None:
                found.append(f"#{i}: same prefix, different length")
                continue
            body = {"prompt": prompts[i], "n_predict": j + 1, "temperature": 0, "n_probs": 2}
            probs = httpx.post(server.base_url + "/completion", json=body, timeout=120).json()
            top = probs["completion_probabilities"][j]["top_logprobs"]
            found.append(
                f"#{i} at token {j} (top-2 gap {top[0]['logprob'] - top[1]['logprob']:.4f})"
            )
    return found


def rate(r: Result) -> str:
    if not r.drafted:
        return "- (0 drafted)"
    return f"{r.accepted / r.drafted:.3f} ({r.accepted}/{r.drafted})"


def same(a: list[str], b: list[str]) -> str:
    return f"{sum(x == y for x, y in zip(a, b, strict=True))}/{len(a)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--write", type=Path, help="replace this benchmark's section of a RESULTS.md")
    args = ap.parse_args()
    prompts = [s.prompt for s in BuiltinCode().samples()]
    tmp = tempfile.TemporaryDirectory()
    models = Path(tmp.name)
    export_gguf(models, "f32")
    have_vllm = (VLLM_VENV / "bin" / "python").exists() and (VLLM_VENV / "models").is_dir()
    rows = []
    ref_base: list[str] = []
    t0 = time.perf_counter()
    for method in METHODS:
        ref = reference(method, prompts, args.max_tokens)
        lcp = llamacpp(method, models, prompts, args.max_tokens)
        vl = vllm(method, prompts, args.max_tokens, VLLM_VENV / "models") if have_vllm else None
        if method.vllm is None:
            ref_base = ref.texts
        rows.append((method, ref, lcp, vl))
        print(
            f"{method.label}: reference {rate(ref)}, llama.cpp {rate(lcp)} "
            f"(/metrics agree: {lcp.metrics_agree}), identical to the reference baseline: "
            f"reference {same(ref.texts, ref_base)}, llama.cpp {same(lcp.texts, ref_base)}",
            flush=True,
        )
    elapsed = time.perf_counter() - t0
    vllm_head = " vLLM acceptance | vLLM = ref. baseline |" if have_vllm else ""
    lines = [
        HEADING,
        "",
        f"- date: {datetime.date.today().isoformat()}",
        f"- command: `python benchmarks/engine_crosscheck.py --max-tokens {args.max_tokens} "
        "--write benchmarks/RESULTS.md`",
        f"- machine: {machine()}; {elapsed:.0f} s in all",
        f"- prompts: builtin-code@1 (16), greedy, max_tokens {args.max_tokens}; llama.cpp is "
        "xllamacpp's in-process server (llama.cpp's tools/server) on the f32 GGUF export, "
        "one thread",
        "- vLLM: "
        + (
            "`.venv-vllm`"
            if have_vllm
            else "not available on this machine "
            "(no `.venv-vllm`; its own cross-check is the section above)"
        ),
        "",
        "| method | reference acceptance (accepted/drafted) | llama.cpp acceptance | "
        "llama.cpp timings = /metrics | outputs = reference baseline: reference | llama.cpp |"
        + vllm_head,
        "|---|---|---|---|---|---|" + ("---|---|" if have_vllm else ""),
    ]
    for method, ref, lcp, vl in rows:
        row = (
            f"| {method.label} | {rate(ref)} | {rate(lcp)} | {lcp.metrics_agree} | "
            f"{same(ref.texts, ref_base)} | {same(lcp.texts, ref_base)} |"
        )
        if vl is not None:
            row += f" {rate(vl)} | {same(vl.texts, ref_base)} |"
        lines.append(row)
    lines.append("")
    lines.append("Where llama.cpp's answers differ from the reference baseline's:")
    lines.append("")
    for method, _, lcp, _ in rows:
        where = divergences(models, prompts, lcp.texts, ref_base, args.max_tokens)
        lines.append(f"- {method.label}: {', '.join(where) or 'nowhere'}")
    lines.append("")
    section = "\n".join(lines) + "\n"
    print(section)
    if args.write:
        write_section(args.write, HEADING, section)
    tmp.cleanup()


if __name__ == "__main__":
    main()
