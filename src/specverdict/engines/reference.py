"""The embedded reference engine: vLLM's formats, plus a built-in launch command."""

from __future__ import annotations

import sys

from specverdict.campaign.spec import RunSpec
from specverdict.engines.vllm import VLLMAdapter

#: campaign quantization labels that mean full-precision weights on the reference engine
UNQUANTIZED = frozenset({"none", "fp32", "float32", "fp64", "auto"})


class ReferenceAdapter(VLLMAdapter):
    kind = "reference"

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
