"""``specverdict-reference``: launch the reference engine with vLLM's flags.

Example::

    specverdict-reference --port 8000 \\
        --speculative-config '{"method": "mtp", "num_speculative_tokens": 2}' \\
        --per-request-spec-decode-metrics summary

An invalid flag or config exits with code 2 and one line naming it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import NoReturn

from pydantic import ValidationError

from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.weights import shipped

PROG = "specverdict-reference"


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
        choices=["none"],
        default=None,
        help="target weight quantization (unquantized only in this release)",
    )
    p.add_argument("--max-model-len", type=int, default=None)
    p.add_argument(
        "--per-request-spec-decode-metrics", choices=["none", "summary", "detailed"], default="none"
    )
    p.add_argument("--seed", type=int, default=0)
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
    return EngineConfig(
        model_dir=model_dir,
        served_model_name=name,
        max_model_len=args.max_model_len,
        speculative=spec,
        per_request_spec_decode_metrics=args.per_request_spec_decode_metrics,
        seed=args.seed,
    )


def main(argv: list[str] | None = None) -> int:
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
    app = create_app(core, sink)
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
