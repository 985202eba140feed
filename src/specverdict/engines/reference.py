"""The embedded reference engine: vLLM's formats, plus a built-in launch command."""

from __future__ import annotations

import sys

from specverdict.campaign.spec import RunSpec
from specverdict.engines.vllm import VLLMAdapter


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
        return command + self.speculative_args(spec)
