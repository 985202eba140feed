"""``specverdict-reference``: launch the reference engine with vLLM's flags.

Example::

    specverdict-reference --port 8000 \\
        --speculative-config '{"method": "mtp", "num_speculative_tokens": 2}' \\
        --per-request-spec-decode-metrics summary

    specverdict-reference export-hf DIR   # the target and draft as checkpoints vLLM loads
    specverdict-reference export-gguf DIR [--dtype f16]   # ... as GGUF files llama.cpp loads

An invalid flag or config exits with code 2 and one line naming it, and so does a missing
``reference`` extra (the server's stack): the modules imported at the top of this file need
none of it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from pydantic import ValidationError

from specverdict.reference import extra
from specverdict.reference.device import PROFILES
from specverdict.reference.options import (
    PREFIX_BLOCK,
    PREFIX_CACHE_TOKENS,
    SCHEMES,
    SpeculativeConfig,
)
from specverdict.reference.weights import shipped

if TYPE_CHECKING:
    from specverdict.reference.config import EngineConfig

PROG = "specverdict-reference"
FAULT_ENV = "SPECVERDICT_REFERENCE_FAULT"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: error: {message}\n")


def fail(message: str) -> NoReturn:
    sys.stderr.write(f"{PROG}: error: {message}\n")
    raise SystemExit(2)


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--model", help="target checkpoint directory (default: the shipped target)")
    p.add_argument(
        "--served-model-name", help="name clients use (default: --model, or 'reference-target')"
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--speculative-config", help="JSON: method, num_speculative_tokens, model, ...")
    p.add_argument(
        "--quantization",
        choices=list(SCHEMES),
        default="none",
        help="target weight quantization, simulated on the real format grids",
    )
    p.add_argument(
        "--moe-experts",
        type=int,
        default=0,
        help="serve the target as a mixture of this many experts (sparse upcycling; 0: dense)",
    )
    p.add_argument("--moe-top-k", type=int, default=2, help="experts routed per token")
    p.add_argument("--max-num-seqs", type=int, default=256, help="requests per batched step")
    p.add_argument(
        "--device-model",
        default=None,
        help=f"pace steps to a device time model: {', '.join(sorted(PROFILES))}",
    )
    p.add_argument(
        "--device-clock",
        choices=["paced", "virtual"],
        default="paced",
        help="with --device-model: 'paced' holds each step for its modelled time (timings on the "
        "wall clock); 'virtual' runs steps at host speed and stamps every streamed chunk with "
        "the modelled device time (device_time_s), which clients that read it time requests by",
    )
    p.add_argument(
        "--virtual-admission-wait",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="with --device-clock virtual: how long (host time) a slot freed by a finished "
        "request waits for the client's next request before the next step, so that which "
        "requests share a step does not depend on the host's speed (0: never waits)",
    )
    p.add_argument(
        "--override-dir",
        help="files DIR/<target|draft|mtp>/<name> replace the checkpoints' files (a bind mount)",
    )
    p.add_argument(
        "--fault",
        action="append",
        default=[f for f in os.environ.get(FAULT_ENV, "").split(",") if f],
        metavar="draft-skip=GLOB|speculation-off|degrade-draft-after=N",
        help="inject a fault: draft/MTP tensors matching GLOB stay at init, silently; or "
        "'speculation-off': --speculative-config is accepted and then not applied, silently "
        "(a lost override or launch flag); or 'degrade-draft-after=N': the requests started "
        "after the first N get a worse draft (acceptance drifts down while the server runs) "
        f"(also from ${FAULT_ENV}, comma-separated: an environment that changes what loads)",
    )
    p.add_argument(
        "--verify-numerics",
        choices=["exact", "kernel"],
        default="exact",
        help="'kernel': multi-token verify passes read activations at the weights' precision "
        "(a low-precision GEMM) while single-token decode does not, as engines whose verify and "
        "decode run different kernels; only a quantized target (--quantization) is affected",
    )
    p.add_argument("--max-model-len", type=int, default=None)
    p.add_argument(
        "--enable-prefix-caching",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="reuse the keys and values of earlier sequences for prompts that start with the "
        f"same tokens, in whole {PREFIX_BLOCK}-token blocks (on by default, as in vLLM's V1 engine)",
    )
    p.add_argument(
        "--prefix-cache-tokens",
        type=int,
        default=PREFIX_CACHE_TOKENS,
        help="tokens the prefix cache holds; the least recently used sequences go first",
    )
    p.add_argument(
        "--per-request-spec-decode-metrics", choices=["none", "summary", "detailed"], default="none"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--startup-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="answer /health with 503 (not ready) for this long after the port opens, as an "
        "engine loading a large model onto its GPUs does: a slow start, for tests and "
        "benchmarks of the harness's engine time (the other endpoints answer meanwhile)",
    )
    p.add_argument(
        "--uvicorn-log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug", "trace"],
    )
    return p


def _first_error(exc: ValidationError, prefix: str) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    where = f"{prefix}.{loc}" if loc else prefix
    if err["type"] == "extra_forbidden":
        return f"{where}: unknown key"
    return f"{where}: {err['msg']}"


def build_config(args: argparse.Namespace) -> EngineConfig:
    from specverdict.reference.config import EngineConfig
    from specverdict.reference.model import MoESpec

    model_dir = Path(args.model) if args.model else shipped("target")
    for needed in ("config.json", "model.safetensors", "tokenizer.json", "generation_config.json"):
        if not (model_dir / needed).is_file():
            fail(
                f"--model {model_dir}: missing {needed} (expected a GPT-2-layout checkpoint directory)"
            )
    spec = None
    if args.speculative_config is not None:
        try:
            raw = json.loads(args.speculative_config)
        except json.JSONDecodeError as exc:
            fail(f"--speculative-config is not valid JSON: {exc.msg} at position {exc.pos}")
        if not isinstance(raw, dict):
            fail("--speculative-config must be a JSON object")
        try:
            spec = SpeculativeConfig.model_validate(raw)
        except ValidationError as exc:
            fail(_first_error(exc, "--speculative-config"))
        if spec.model is not None and not Path(spec.model).is_dir():
            fail(f"--speculative-config.model: {spec.model} is not a directory")
    if args.port is not None and not 0 <= args.port <= 65535:
        fail(f"--port {args.port}: expected 0..65535")
    if args.max_model_len is not None and args.max_model_len < 2:
        fail(f"--max-model-len {args.max_model_len}: expected at least 2")
    name = args.served_model_name or (args.model if args.model else "reference-target")
    skip = None
    degrade_after = None
    for fault in args.fault:
        kind, _, value = fault.partition("=")
        if fault == "speculation-off":
            spec = None  # parsed and accepted, then not applied: a lost override
            continue
        if kind == "degrade-draft-after":
            if not value.isdigit():
                fail(f"--fault {fault}: degrade-draft-after expects a request count (0 or more)")
            degrade_after = int(value)
            continue
        if kind != "draft-skip" or not value:
            fail(
                f"--fault {fault}: expected draft-skip=GLOB, speculation-off or "
                "degrade-draft-after=N"
            )
        skip = value
    if args.override_dir is not None and not Path(args.override_dir).is_dir():
        fail(f"--override-dir {args.override_dir}: not a directory")
    if args.device_clock == "virtual" and args.device_model is None:
        fail("--device-clock virtual: needs --device-model (the clock is the modelled device's)")
    if args.virtual_admission_wait < 0:
        fail(f"--virtual-admission-wait {args.virtual_admission_wait}: expected 0 or more")
    if args.device_model is not None and args.device_model not in PROFILES:
        fail(f"--device-model {args.device_model}: expected one of {', '.join(sorted(PROFILES))}")
    if args.moe_experts < 0 or (args.moe_experts and not 1 <= args.moe_top_k <= args.moe_experts):
        fail(f"--moe-top-k {args.moe_top_k}: expected 1..--moe-experts ({args.moe_experts})")
    if args.prefix_cache_tokens < 0:
        fail(f"--prefix-cache-tokens {args.prefix_cache_tokens}: expected 0 or more")
    if args.startup_delay < 0:
        fail(f"--startup-delay {args.startup_delay}: expected 0 or more seconds")
    if args.max_num_seqs < 1:
        fail(f"--max-num-seqs {args.max_num_seqs}: expected at least 1")
    return EngineConfig(
        model_dir=model_dir,
        served_model_name=name,
        max_model_len=args.max_model_len,
        speculative=spec,
        per_request_spec_decode_metrics=args.per_request_spec_decode_metrics,
        seed=args.seed,
        quantization=args.quantization,
        moe=MoESpec(args.moe_experts, args.moe_top_k) if args.moe_experts else None,
        max_num_seqs=args.max_num_seqs,
        override_dir=Path(args.override_dir) if args.override_dir else None,
        fault_draft_skip=skip,
        fault_degrade_draft_after=degrade_after,
        device_model=args.device_model,
        device_clock=args.device_clock,
        virtual_admission_wait_s=args.virtual_admission_wait,
        verify_numerics=args.verify_numerics,
        enable_prefix_caching=args.enable_prefix_caching,
        prefix_cache_tokens=args.prefix_cache_tokens,
    )


def export_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=f"{PROG} export-hf",
        description="Write the shipped target and draft as Hugging Face checkpoint folders "
        "(DIR/target, DIR/draft: safetensors, tokenizer, chat template) and DIR/export.json.",
    )
    p.add_argument("dir", help="output directory (created; existing files are overwritten)")
    return p


def export_main(argv: list[str]) -> int:
    from specverdict.reference.export import export_hf

    args = export_parser().parse_args(argv)
    try:
        manifest = export_hf(Path(args.dir))
    except (ValueError, OSError) as exc:
        fail(f"export-hf: {exc}")
    for name, entry in manifest["checkpoints"].items():
        print(f"{name}: {Path(args.dir) / entry['path']} (head size {entry['head_size']})")
    return 0


def export_gguf_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=f"{PROG} export-gguf",
        description="Write the shipped target and draft as GGUF files llama.cpp loads "
        "(DIR/target.gguf, DIR/draft.gguf: weights, tokenizer, chat template) and "
        "DIR/export-gguf.json.",
    )
    p.add_argument("dir", help="output directory (created; existing files are overwritten)")
    p.add_argument(
        "--dtype",
        default="f32",
        help="precision of the weight matrices: f32 (exact) or f16 (norms and biases stay f32)",
    )
    return p


def export_gguf_main(argv: list[str]) -> int:
    from specverdict.reference.gguf_export import export_gguf

    args = export_gguf_parser().parse_args(argv)
    try:
        manifest = export_gguf(Path(args.dir), args.dtype)
    except (ValueError, OSError) as exc:
        fail(f"export-gguf: {exc}")
    for name, entry in manifest["checkpoints"].items():
        print(f"{name}: {Path(args.dir) / entry['path']} ({manifest['dtype']}, {entry['sha256']})")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    problem = extra.lacking()
    if problem is not None and not {"-h", "--help"} & set(argv):
        fail(f"the reference engine {problem}")
    if argv[:1] == ["export-hf"]:
        return export_main(argv[1:])
    if argv[:1] == ["export-gguf"]:
        return export_gguf_main(argv[1:])
    args = parser().parse_args(argv)
    config = build_config(args)

    import uvicorn

    from specverdict.reference.engine import EngineCore
    from specverdict.reference.server.app import create_app
    from specverdict.reference.server.metrics import PrometheusSink

    spec = config.speculative
    sink = PrometheusSink(config.served_model_name, spec.num_speculative_tokens if spec else None)
    try:
        core = EngineCore(config, sink)
    except (ValueError, KeyError, OSError) as exc:
        fail(f"could not load the model: {exc}")
    app = create_app(core, sink, startup_delay_s=args.startup_delay)
    # The first line of the engine log, as real engines print their resolved configuration.
    print(
        f"specverdict-reference: model {config.served_model_name!r}, speculative config "
        f"{spec.model_dump_json() if spec else None}, seed {args.seed}",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(
        app, host=args.host, port=args.port, log_level=args.uvicorn_log_level, access_log=False
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
