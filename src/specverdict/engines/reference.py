"""The embedded reference engine: vLLM's formats, plus a built-in launch command."""

from __future__ import annotations

import sys

from specverdict.campaign.model import Launch
from specverdict.campaign.spec import RunSpec
from specverdict.engines.vllm import VLLMAdapter


class ReferenceAdapter(VLLMAdapter):
    kind = "reference"

    def launch_command(
        self, spec: RunSpec, launch: Launch | None, port: int, model_path: str | None
    ) -> list[str]:
        if launch is not None:
            return super().launch_command(spec, launch, port, model_path)
        command = [
            sys.executable,
            "-m",
            "specverdict.reference.server.cli",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--served-model-name",
            spec.model.served_name,
            "--per-request-spec-decode-metrics",
            "summary",
        ]
        if model_path:
            command += ["--model", model_path]
        return command + self.speculative_args(spec)
