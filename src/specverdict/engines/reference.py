"""The embedded reference engine: vLLM's formats, plus a built-in launch command."""

from __future__ import annotations

import sys
from typing import get_args

from pydantic import ValidationError

from specverdict.campaign.spec import RunSpec
from specverdict.engines.vllm import VLLMAdapter, vllm_speculative_config
from specverdict.reference.config import SpecMethod, SpeculativeConfig
from specverdict.reference.quant import Scheme

#: campaign quantization labels that mean full-precision weights on the reference engine
UNQUANTIZED = frozenset({"none", "fp32", "float32", "fp64", "auto"})


class ReferenceAdapter(VLLMAdapter):
    kind = "reference"
    acceptance_recordable = "fixed"
    self_launching = True
    methods = frozenset(get_args(SpecMethod))

    def problems(self, spec: RunSpec) -> list[str]:
        """The vLLM-shaped flags, checked against the reference engine's own configuration: its
        methods, their parameters and the quantizations it simulates."""
        found = super().problems(spec)
        if found:
            return found
        quant = spec.quantization.lower()
        schemes = sorted(set(get_args(Scheme)) - {"none"})
        if quant not in UNQUANTIZED and quant not in schemes:
            found.append(
                f"quantization {spec.quantization!r}: the reference engine simulates "
                f"{', '.join(schemes)} (or full precision: {', '.join(sorted(UNQUANTIZED))})"
            )
        config = vllm_speculative_config(spec)
        if config is not None:
            try:
                SpeculativeConfig.model_validate(config)
            except ValidationError as exc:
                err = exc.errors()[0]
                where = ".".join(str(p) for p in err["loc"])
                msg = str(err["msg"]).removeprefix("Value error, ")
                found.append(f"the reference engine refuses {where or 'it'}: {msg}")
        return found

    def builtin_command(
        self, spec: RunSpec, model: str, host: str, port: int, run_dir: str
    ) -> list[str] | None:
        command = [
            sys.executable,
            "-m",
            "specverdict.reference.server.cli",
            "--host",
            host,
            "--port",
            str(port),
            "--served-model-name",
            spec.model.served_name,
            "--per-request-spec-decode-metrics",
            "summary",
        ]
        if model != spec.model.served_name:
            command += ["--model", model]
        if spec.quantization.lower() not in UNQUANTIZED:
            command += ["--quantization", spec.quantization]
        return command + self.speculative_args(spec)
