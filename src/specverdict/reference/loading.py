"""Checkpoint loading with a record of what was loaded, overrides, and injectable loader faults.

Every model the engine loads (target, draft, MTP head) goes through :func:`load_checkpoint`,
which returns its tensors and a :class:`ModelLoad`: per tensor its name, shape, dtype and source
file, and the tensors *left at their initial values*. ``GET /debug/load_report`` serves these.

- **Overrides** (``--override-dir DIR``): a file ``DIR/<role>/<name>`` replaces the checkpoint's
  ``<name>`` for that role (``target``, ``draft``, ``mtp``, ``medusa``, ``dflash``, ``eagle3``, ``dspark``), the way a bind mount over a model
  directory does. Start the engine without the flag and the overrides are gone, as when a
  container is re-created without its mounts.
- **Loader fault** (``--fault draft-skip=PATTERN``): tensors of a drafting module whose names
  match the glob PATTERN are left at their initialisation (GPT-2's: N(0, 0.02) matrices, unit norm
  weights, zero biases; seeded by name) and nothing is logged, like a loader that silently skips
  weights it does not recognise: start-up is normal, outputs stay correct (the target verifies),
  acceptance drops.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from safetensors import safe_open

Tensors = dict[str, NDArray[np.floating]]
#: the roles of the modules that draft (the loader fault applies to them)
DRAFT_ROLES = ("draft", "mtp", "medusa", "dflash", "eagle3", "dspark")


@dataclass(frozen=True)
class TensorRecord:
    name: str
    shape: tuple[int, ...]
    dtype: str
    source: str


@dataclass
class ModelLoad:
    """What one model's loader did."""

    role: str
    path: str
    quantization: str = "none"
    loaded: list[TensorRecord] = field(default_factory=list)
    left_at_init: list[TensorRecord] = field(default_factory=list)
    overridden_files: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        def rec(r: TensorRecord) -> dict[str, object]:
            return {"name": r.name, "shape": list(r.shape), "dtype": r.dtype, "source": r.source}

        return {
            "role": self.role,
            "path": self.path,
            "quantization": self.quantization,
            "overridden_files": self.overridden_files,
            "loaded": [rec(r) for r in self.loaded],
            "left_at_init": [rec(r) for r in self.left_at_init],
        }


@dataclass(frozen=True)
class LoadOptions:
    override_dir: Path | None = None
    skip_pattern: str | None = None  # applies to the draft and MTP head only

    def resolve(self, role: str, directory: Path, name: str) -> tuple[Path, bool]:
        """The file to read for ``name`` of ``role``, and whether an override supplied it."""
        if self.override_dir is not None:
            candidate = self.override_dir / role / name
            if candidate.is_file():
                return candidate, True
        return directory / name, False


def init_value(name: str, shape: tuple[int, ...]) -> NDArray[np.float64]:
    """GPT-2's initialisation, seeded by the tensor's name (reproducible across starts)."""
    leaf = name.rsplit(".", 1)[-1]
    if leaf == "bias":
        return np.zeros(shape)
    if len(shape) == 1:
        return np.ones(shape)
    seed = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(0.0, 0.02, shape)


def read_config(role: str, directory: Path, options: LoadOptions) -> dict[str, object]:
    path, _ = options.resolve(role, directory, "config.json")
    raw: dict[str, object] = json.loads(path.read_text())
    return raw


def load_checkpoint(
    role: str, directory: Path, options: LoadOptions, quantization: str = "none"
) -> tuple[Tensors, ModelLoad]:
    path, overridden = options.resolve(role, directory, "model.safetensors")
    report = ModelLoad(role=role, path=str(directory), quantization=quantization)
    if overridden:
        report.overridden_files.append(str(path))
    if options.resolve(role, directory, "config.json")[1]:
        report.overridden_files.append(str(options.resolve(role, directory, "config.json")[0]))
    skip = options.skip_pattern if role in DRAFT_ROLES else None
    tensors: Tensors = {}
    with safe_open(str(path), framework="numpy") as fh:
        for name in fh.keys():  # noqa: SIM118 (safe_open handles are not mappings)
            value = fh.get_tensor(name)
            record = TensorRecord(name, tuple(value.shape), str(value.dtype), str(path))
            if skip is not None and fnmatch.fnmatchcase(name, skip):
                tensors[name] = init_value(name, tuple(value.shape))
                report.left_at_init.append(record)
            else:
                tensors[name] = value
                report.loaded.append(record)
    return tensors, report
