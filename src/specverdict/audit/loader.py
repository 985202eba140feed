"""Compare what an engine loaded with what the checkpoint holds, by role, with a verdict line.

What the engine loaded comes as :class:`LoadedModel` records, from

- the reference engine's ``GET /debug/load_report`` (or that JSON saved to a file):
  ``{"models": [{"role", "path", "loaded": [{name, shape, dtype, source}], "left_at_init":
  [...]}]}``, names as in the checkpoint (``namespace`` ``"checkpoint"``);
- a list of loaded parameter names from vLLM or SGLang (text, one name a line, or a JSON list;
  see ``docs/engines/loaded-parameters.md``). Those are the engine's parameter names
  (``namespace`` ``"engine"``): stacked projections (``qkv_proj``, ``gate_up_proj``,
  ``fused_qkv_a_proj_with_mqa``) and fused experts (``experts.w13_weight``,
  ``experts.w2_weight``) stand for several checkpoint tensors, and shapes are the engine's
  (transposed, fused, sharded), so only names are compared. A fused parameter being loaded says
  nothing about each expert inside it: that limit is stated in the audit's notes.

- a GGUF file llama.cpp serves (:func:`gguf_loaded`). llama.cpp exposes no list of what it
  loaded, but its loader refuses a file with a tensor missing that the architecture requires,
  a tensor of the wrong shape, or a tensor it did not use (``wrong number of tensors``), so a
  server that started loaded exactly the file's tensors; optional ones it may do without
  (an untied ``output.weight``: it then reuses ``token_embd``). The record gives them the names
  of the checkpoint the file was converted from (gguf's own name map for the architecture), so
  the audit against that checkpoint finds what the conversion left out or changed.

Findings per model: checkpoint tensors **not loaded** (absent from the record), **left at
initialisation** (the record says so), **unexpected** loaded tensors the checkpoint does not
have, and **shape / dtype mismatches** (checkpoint namespace only).
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ConfigDict

from specverdict.audit.drafter import drafter_findings
from specverdict.audit.inventory import ROLES, Inventory, TensorInfo, inventory_gguf, role_of
from specverdict.errors import ConfigError
from specverdict.records.audits import (
    Finding,
    LoaderAudit,
    ModelAudit,
    Namespace,
    RoleCounts,
)

LOAD_REPORT_PATH = "/debug/load_report"


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LoadedTensor(Frozen):
    name: str
    shape: tuple[int, ...] | None = None
    dtype: str | None = None
    source: str | None = None


class LoadedModel(Frozen):
    """What an engine says it loaded for one model (target, draft, mtp, ...)."""

    role: str
    path: str | None = None
    namespace: Namespace = "checkpoint"
    loaded: tuple[LoadedTensor, ...] = ()
    left_at_init: tuple[LoadedTensor, ...] = ()
    overridden_files: tuple[str, ...] = ()
    origin: str = ""  # where the record came from (URL or file)


# ---------------------------------------------------------------------------------------------
# Reading what was loaded


def _tensor(raw: Any, where: str) -> LoadedTensor:
    if isinstance(raw, str):
        return LoadedTensor(name=raw)
    if isinstance(raw, dict) and isinstance(raw.get("name"), str):
        shape = raw.get("shape")
        return LoadedTensor(
            name=raw["name"],
            shape=tuple(int(x) for x in shape) if isinstance(shape, list) else None,
            dtype=str(raw["dtype"]) if raw.get("dtype") is not None else None,
            source=str(raw["source"]) if raw.get("source") is not None else None,
        )
    raise ConfigError(f"{where}: expected a tensor name or an object with a name, got {raw!r}")


def _model(raw: Mapping[str, Any], where: str, default_ns: Namespace) -> LoadedModel:
    ns = raw.get("namespace", default_ns)
    if ns not in ("checkpoint", "engine"):
        raise ConfigError(f"{where}: namespace must be checkpoint or engine, got {ns!r}")
    loaded = raw.get("loaded")
    if not isinstance(loaded, list):
        raise ConfigError(f"{where}: expected a 'loaded' list")
    left = raw.get("left_at_init", [])
    if not isinstance(left, list):
        raise ConfigError(f"{where}: 'left_at_init' must be a list")
    return LoadedModel(
        role=str(raw.get("role", "model")),
        path=str(raw["path"]) if raw.get("path") is not None else None,
        namespace=ns,
        loaded=tuple(_tensor(x, where) for x in loaded),
        left_at_init=tuple(_tensor(x, where) for x in left),
        overridden_files=tuple(str(x) for x in raw.get("overridden_files", [])),
        origin=where,
    )


def parse_loaded(data: Any, origin: str, role: str = "model") -> list[LoadedModel]:
    """Loaded-model records from parsed JSON.

    Accepted: a load report ``{"models": [...]}`` (checkpoint namespace unless a model says
    otherwise); one model ``{"role", "loaded": [...], ...}``; a bare list of names or of
    ``{name, shape?, dtype?}`` objects (engine namespace, named ``role``).
    """
    if isinstance(data, dict) and "models" in data:
        models = data["models"]
        if not isinstance(models, list) or not all(isinstance(m, dict) for m in models):
            raise ConfigError(f"{origin}: 'models' must be a list of objects")
        return [_model(m, origin, "checkpoint") for m in models]
    if isinstance(data, dict) and "loaded" in data:
        return [_model({"role": role, **data}, origin, "engine")]
    if isinstance(data, list):
        return [_model({"role": role, "loaded": data}, origin, "engine")]
    raise ConfigError(
        f"{origin}: expected a load report ({{'models': [...]}}), a model ({{'loaded': [...]}}) "
        "or a list of names"
    )


def _names_from_text(text: str) -> list[str]:
    """One name a line; blank lines and ``#`` comments skipped; the first field of a line."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            out.append(line.split()[0])
    return out


def read_loaded(source: str, role: str = "model", timeout_s: float = 10.0) -> list[LoadedModel]:
    """Read what was loaded from a URL (``http://HOST:PORT`` alone means its
    ``/debug/load_report``), a file (JSON as :func:`parse_loaded` accepts, or text with one
    parameter name a line) or a directory of JSON records (each file's models, in file name
    order: what the recorder in ``docs/engines/loaded-parameters.md`` writes)."""
    if source.startswith(("http://", "https://")):
        url = source
        if urlsplit(source).path in ("", "/"):
            url = source.rstrip("/") + LOAD_REPORT_PATH
        try:
            resp = httpx.get(url, timeout=timeout_s)
        except httpx.HTTPError as exc:
            raise ConfigError(f"{url}: {exc}") from None
        if resp.status_code != 200:
            raise ConfigError(f"{url}: HTTP {resp.status_code}")
        try:
            data = resp.json()
        except ValueError:
            raise ConfigError(f"{url}: the answer is not JSON") from None
        return parse_loaded(data, url, role)
    path = Path(source)
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise ConfigError(f"{source}: no *.json loader records in it")
        return [m for f in files for m in read_loaded(str(f), role, timeout_s)]
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{source}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        names = _names_from_text(text)
        if not names:
            raise ConfigError(f"{source}: no parameter names in it") from None
        return parse_loaded(names, source, role)
    return parse_loaded(data, source, role)


def gguf_loaded(gguf_path: str | Path, checkpoint: Inventory, role: str = "model") -> LoadedModel:
    """What llama.cpp loads from ``gguf_path`` (every tensor of the file: see the module
    docstring), named as in ``checkpoint``, the safetensors checkpoint it was converted from.

    A checkpoint tensor whose GGUF name (gguf's ``get_tensor_name_map`` for the file's
    architecture and block count) is in the file is loaded, with the file's dtype and the
    checkpoint's shape when the file holds it transposed (GPT-2's ``Conv1D`` matrices); a GGUF
    tensor no checkpoint name maps to keeps its GGUF name (an unexpected tensor). Raises
    :class:`~specverdict.errors.ConfigError` for an architecture gguf does not know."""
    import gguf

    path = Path(gguf_path)
    file = inventory_gguf(path)
    reader = gguf.GGUFReader(path)
    arch_field = reader.fields.get("general.architecture")
    arch_name = str(arch_field.contents()) if arch_field is not None else ""
    arch = next((a for a, n in gguf.MODEL_ARCH_NAMES.items() if n == arch_name), None)
    if arch is None:
        raise ConfigError(f"{path}: architecture {arch_name!r} is not one gguf knows")
    blocks = reader.fields.get(f"{arch_name}.block_count")
    n_blocks = int(blocks.contents()) if blocks is not None else 0
    name_map = gguf.get_tensor_name_map(arch, n_blocks)
    in_file = file.by_name()
    loaded: list[LoadedTensor] = []
    used: set[str] = set()
    for t in checkpoint.tensors:
        name = name_map.get_name(t.name, try_suffixes=(".weight", ".bias"))
        if name is None or name not in in_file:
            continue
        g = in_file[name]
        used.add(name)
        shape = t.shape if g.shape in (t.shape, t.shape[::-1]) else g.shape
        loaded.append(LoadedTensor(name=t.name, shape=shape, dtype=g.dtype, source=name))
    for name in sorted(in_file.keys() - used):
        g = in_file[name]
        loaded.append(LoadedTensor(name=name, shape=g.shape, dtype=g.dtype, source=name))
    return LoadedModel(role=role, path=str(path), loaded=tuple(loaded))


# ---------------------------------------------------------------------------------------------
# Engine parameter names for a checkpoint tensor

#: stacked projections: checkpoint segment -> engine segment (vLLM and SGLang's
#: ``stacked_params_mapping`` in their Llama/Qwen/DeepSeek models)
STACKED = {
    "q_proj": "qkv_proj",
    "k_proj": "qkv_proj",
    "v_proj": "qkv_proj",
    "gate_proj": "gate_up_proj",
    "up_proj": "gate_up_proj",
    "q_a_proj": "fused_qkv_a_proj_with_mqa",
    "kv_a_proj_with_mqa": "fused_qkv_a_proj_with_mqa",
}
#: per-expert checkpoint tensors -> the fused expert parameters (vLLM's and SGLang's FusedMoE
#: ``make_expert_params_mapping``: gate/up (w1/w3) into ``w13_*``, down (w2) into ``w2_*``)
_EXPERT = re.compile(
    r"(?P<pre>.*\.experts\.)\d+\.(?P<proj>gate_proj|up_proj|down_proj|w1|w2|w3)\.(?P<leaf>\w+)$"
)
_W13 = {"gate_proj", "up_proj", "w1", "w3"}


def engine_candidates(name: str) -> list[str]:
    """The names an engine may give the parameter a checkpoint tensor is loaded into."""
    out = [name]
    m = _EXPERT.match(name)
    if m:
        fused = "w13_" if m["proj"] in _W13 else "w2_"
        out.append(f"{m['pre']}{fused}{m['leaf']}")
    segs = name.split(".")
    stacked = [STACKED.get(s, s) for s in segs]
    if stacked != segs:
        out.append(".".join(stacked))
    return out


def _spellings(name: str, renames: Sequence[tuple[str, str]]) -> list[str]:
    """The checkpoint name and its rewrites by every (old prefix, new prefix) that applies."""
    return [name] + [new + name[len(old) :] for old, new in renames if name.startswith(old)]


# ---------------------------------------------------------------------------------------------
# The comparison


def _by_role(findings: Iterable[Finding]) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in findings:
        out[f.role] = out.get(f.role, 0) + 1
    return out


def _role_list(counts: Mapping[str, int]) -> str:
    ordered = [r for r in ROLES if r in counts] + sorted(set(counts) - set(ROLES))
    return ", ".join(f"{r} {counts[r]}" for r in ordered)


def _count(n: int, noun: str, plural: str = "s") -> str:
    return f"{n} {noun}{plural if n != 1 else ''}"


def _tensor_phrase(counts: Mapping[str, int]) -> str:
    ordered = [r for r in ROLES if r in counts] + sorted(set(counts) - set(ROLES))
    parts = [f"{_count(counts[r], f'{r} tensor')}" for r in ordered]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def verdict_line(
    model: str,
    checkpoint_tensors: int,
    not_loaded: Sequence[Finding],
    left_at_init: Sequence[Finding],
    unexpected: Sequence[Finding],
    shapes: Sequence[Finding],
    dtypes: Sequence[Finding],
) -> str:
    """``draft: 4 dense_mlp tensors in the checkpoint were not loaded (4 left at
    initialisation)``; ``draft: all 16 checkpoint tensors loaded`` when clean."""
    clauses = []
    unfilled = [f for f in left_at_init if f.detail.startswith("engine parameter")]
    at_init = [f for f in left_at_init if not f.detail.startswith("engine parameter")]
    missing = [*not_loaded, *at_init]
    if missing:
        verb = "was" if len(missing) == 1 else "were"
        clause = f"{_tensor_phrase(_by_role(missing))} in the checkpoint {verb} not loaded"
        if at_init:
            clause += f" ({len(at_init)} left at initialisation)"
        clauses.append(clause)
    if unfilled:
        clauses.append(
            f"{_count(len(unfilled), 'engine parameter')} that no checkpoint tensor fills "
            f"{'was' if len(unfilled) == 1 else 'were'} left at initialisation "
            f"({_role_list(_by_role(unfilled))})"
        )
    if unexpected:
        clauses.append(
            f"{_count(len(unexpected), 'loaded tensor')} not in the checkpoint "
            f"({_role_list(_by_role(unexpected))})"
        )
    if shapes:
        clauses.append(
            f"{_count(len(shapes), 'shape mismatch', 'es')} ({_role_list(_by_role(shapes))})"
        )
    if dtypes:
        clauses.append(
            f"{_count(len(dtypes), 'dtype mismatch', 'es')} ({_role_list(_by_role(dtypes))})"
        )
    if not clauses:
        return f"{model}: all {checkpoint_tensors} checkpoint tensors loaded"
    return f"{model}: " + "; ".join(clauses)


def _same_dtype(a: str, b: str) -> bool:
    def norm(x: str) -> str:
        return x.lower().removeprefix("torch.")

    return norm(a) == norm(b)


def compare_model(
    inventory: Inventory,
    loaded: LoadedModel,
    *,
    ignore: Sequence[str] = (),
    renames: Sequence[tuple[str, str]] = (),
    method: str | None = None,
    k: int | None = None,
) -> ModelAudit:
    """Compare one model's loader record with its checkpoint's inventory.

    ``method`` and ``k``: what a drafter (any model but the target) is served as, for the
    drafter findings (``audit.drafter``: a DSpark drafter served as mtp, an EAGLE-3 head
    without its fusion, fewer Medusa heads than k).

    ``ignore``: globs of checkpoint tensor names left out of the comparison (e.g. buffers an
    engine drops on purpose, such as GPT-2's ``*.attn.bias``). ``renames``: (old prefix, new
    prefix) pairs for engines that re-root names; a checkpoint tensor matches under its own
    name or under any rewrite whose old prefix it starts with.
    """
    ckpt = [t for t in inventory.tensors if not any(fnmatch.fnmatchcase(t.name, g) for g in ignore)]
    ignored = len(inventory.tensors) - len(ckpt)
    notes: list[str] = []
    loaded_by_name = {t.name: t for t in loaded.loaded}
    left_names = {t.name for t in loaded.left_at_init}
    not_loaded: list[Finding] = []
    left: list[Finding] = []
    shapes: list[Finding] = []
    dtypes: list[Finding] = []
    claimed: set[str] = set()
    claimed_left: set[str] = set()
    fused_hits = 0
    for t in ckpt:
        spellings = _spellings(t.name, renames)
        if loaded.namespace == "engine":
            candidates = [c for n in spellings for c in engine_candidates(n)]
            hit = next((c for c in candidates if c in loaded_by_name), None)
            if hit is not None:
                claimed.add(hit)
                fused_hits += hit not in spellings
                continue
        else:
            candidates = spellings
            hit = next((c for c in candidates if c in loaded_by_name), None)
            if hit is not None:
                claimed.add(hit)
                _check(t, loaded_by_name[hit], shapes, dtypes)
                continue
        at_init = next((c for c in candidates if c in left_names), None)
        if at_init is not None:
            claimed_left.add(at_init)
            left.append(Finding(name=t.name, role=t.role, detail="left at initialisation"))
        else:
            not_loaded.append(Finding(name=t.name, role=t.role, detail="not loaded"))
    # engine parameters no checkpoint tensor fills, which the engine left at initialisation
    for n in sorted(left_names - claimed_left):
        if not any(fnmatch.fnmatchcase(n, g) for g in ignore):
            left.append(
                Finding(
                    name=n,
                    role=role_of(n),
                    detail="engine parameter with no checkpoint tensor, left at initialisation",
                )
            )
    unexpected = [
        Finding(name=n, role=role_of(n), detail="loaded but not in the checkpoint")
        for n in sorted(loaded_by_name.keys() - claimed)
    ]
    if fused_hits:
        notes.append(
            f"{fused_hits} checkpoint tensors matched stacked or fused engine parameters "
            "(qkv_proj, gate_up_proj, experts.w13_/w2_): a fused parameter being loaded does "
            "not show that each part of it was"
        )
    if loaded.namespace == "engine":
        notes.append("engine parameter names: shapes and dtypes were not compared")
    if loaded.overridden_files:
        notes.append("loaded from override files: " + ", ".join(loaded.overridden_files))
    notes.extend(f"checkpoint: {p}" for p in inventory.problems)
    counts: dict[str, dict[str, int]] = {}
    for t in ckpt:
        counts.setdefault(t.role, {})
        counts[t.role]["checkpoint"] = counts[t.role].get("checkpoint", 0) + 1
    for key, found in (
        ("not_loaded", not_loaded),
        ("left_at_init", left),
        ("unexpected", unexpected),
        ("shape_mismatch", shapes),
        ("dtype_mismatch", dtypes),
    ):
        for f in found:
            counts.setdefault(f.role, {})
            counts[f.role][key] = counts[f.role].get(key, 0) + 1
    roles = {
        r: RoleCounts(**counts[r])
        for r in [*ROLES, *sorted(set(counts) - set(ROLES))]
        if r in counts
    }
    drafter = drafter_findings(inventory, method, k) if loaded.role != "target" else []
    clean = not (
        not_loaded or left or unexpected or shapes or dtypes or drafter or inventory.problems
    )
    line = verdict_line(loaded.role, len(ckpt), not_loaded, left, unexpected, shapes, dtypes)
    if drafter:
        line += f"; {drafter[0].detail}" + (
            f" ({len(drafter)} tensors: {', '.join(f.name for f in drafter[:3])}"
            + (", ..." if len(drafter) > 3 else "")
            + ")"
            if len(drafter) > 1
            else f" ({drafter[0].name})"
        )
    if inventory.problems:
        line += f"; the checkpoint itself has {len(inventory.problems)} problems"
    return ModelAudit(
        model=loaded.role,
        checkpoint=inventory.path,
        origin=loaded.origin,
        namespace=loaded.namespace,
        checkpoint_tensors=len(ckpt),
        loaded_tensors=len(loaded.loaded),
        ignored=ignored,
        roles=roles,
        not_loaded=tuple(not_loaded),
        left_at_init=tuple(left),
        unexpected=tuple(unexpected),
        shape_mismatches=tuple(shapes),
        dtype_mismatches=tuple(dtypes),
        drafter=tuple(drafter),
        notes=tuple(notes),
        clean=clean,
        verdict=line,
    )


def _check(t: TensorInfo, got: LoadedTensor, shapes: list[Finding], dtypes: list[Finding]) -> None:
    if got.shape is not None and tuple(got.shape) != t.shape:
        shapes.append(
            Finding(
                name=t.name,
                role=t.role,
                detail=f"checkpoint {list(t.shape)}, loaded {list(got.shape)}",
            )
        )
    if got.dtype is not None and not _same_dtype(got.dtype, t.dtype):
        dtypes.append(
            Finding(name=t.name, role=t.role, detail=f"checkpoint {t.dtype}, loaded {got.dtype}")
        )


def compare_loaded(
    inventories: Inventory | Mapping[str, Inventory],
    loaded: LoadedModel | Sequence[LoadedModel],
    *,
    ignore: Sequence[str] = (),
    renames: Sequence[tuple[str, str]] = (),
    method: str | None = None,
    k: int | None = None,
) -> LoaderAudit:
    """Audit one or more loaded models against their checkpoints.

    ``inventories`` is one inventory (for a single loaded model) or a mapping from a model's
    role (``target``, ``draft``, ``mtp``) to its checkpoint's inventory; a loaded model without
    an inventory is an error. See :func:`compare_model` for ``ignore``, ``renames``,
    ``method`` and ``k``.
    """
    models = [loaded] if isinstance(loaded, LoadedModel) else list(loaded)
    if not models:
        raise ConfigError("the loader record names no model")
    audits = []
    for m in models:
        if isinstance(inventories, Inventory):
            if len(models) > 1:
                raise ConfigError(
                    f"the record has {len(models)} models ({', '.join(x.role for x in models)}): "
                    "give a checkpoint per model"
                )
            inv = inventories
        else:
            if m.role not in inventories:
                raise ConfigError(
                    f"no checkpoint for model {m.role!r} (have: {', '.join(inventories) or 'none'})"
                )
            inv = inventories[m.role]
        audits.append(compare_model(inv, m, ignore=ignore, renames=renames, method=method, k=k))
    return LoaderAudit(
        models=tuple(audits),
        clean=all(a.clean for a in audits),
        verdicts=tuple(a.verdict for a in audits),
    )
