"""The embedded reference engine: vLLM's formats, plus a built-in launch command and its load
report.

Only the engine's pure vocabulary (:mod:`specverdict.reference.options`) and the list of its
extra's modules (:mod:`specverdict.reference.extra`) are imported here: the server stack is the
``reference`` extra, needed only where the harness launches the server itself.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from types import MappingProxyType
from typing import TYPE_CHECKING, get_args

from pydantic import ValidationError

from specverdict.campaign.model import Launch
from specverdict.campaign.spec import RunSpec
from specverdict.engines.vllm import PER_REQUEST_LEVEL, VLLMAdapter, vllm_speculative_config
from specverdict.errors import ExtraMissingError
from specverdict.reference import extra
from specverdict.reference.options import Scheme, SpecMethod, SpeculativeConfig

if TYPE_CHECKING:
    from specverdict.audit.loader import LoadedModel

#: campaign quantization labels that mean full-precision weights on the reference engine
UNQUANTIZED = frozenset({"none", "fp32", "float32", "fp64", "auto"})


def require_extra() -> None:
    """Raise :class:`ExtraMissingError` (one line: the extra, what is missing, the install
    command) when this interpreter lacks the reference engine's server stack."""
    problem = extra.lacking()
    if problem is not None:
        raise ExtraMissingError(f"engine kind 'reference' {problem}")


def launches_reference(specs: Iterable[RunSpec], launch: Launch | None) -> bool:
    """Whether the harness itself starts a reference server for any of these runs (its built-in
    command: no ``base_url`` to attach to and no ``launch.command`` of the campaign's own)."""
    if launch is not None and launch.command is not None:
        return False
    return any(s.engine.kind == "reference" and s.engine.base_url is None for s in specs)


class ReferenceAdapter(VLLMAdapter):
    kind = "reference"
    needs_metrics = True
    acceptance_recordable = "fixed"
    self_launching = True
    methods = frozenset(get_args(SpecMethod))
    method_names = MappingProxyType({m: (m,) for m in get_args(SpecMethod)})
    takes_adaptive_verification = True

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

    def load_report(self, base_url: str, timeout_s: float = 10.0) -> list[LoadedModel]:
        """What the server says it loaded, per model (``GET /debug/load_report``): checkpoint
        directory, tensors loaded and left at initialisation, override files."""
        # imported here: the audit package's own imports reach the adapter registry
        from specverdict.audit.loader import LOAD_REPORT_PATH, read_loaded

        return read_loaded(base_url.rstrip("/") + LOAD_REPORT_PATH, timeout_s=timeout_s)

    def builtin_command(
        self, spec: RunSpec, model: str, host: str, port: int, run_dir: str
    ) -> list[str] | None:
        require_extra()
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
            PER_REQUEST_LEVEL,
        ]
        if model != spec.model.served_name:
            command += ["--model", model]
        if spec.quantization.lower() not in UNQUANTIZED:
            command += ["--quantization", spec.quantization]
        return command + self.speculative_args(spec)
