"""Golden acceptance-length files: a published acceptance length as the expected acceptance.

SemiAnalysis InferenceX commits one YAML file per model and speculation method under
``golden_al_distribution/`` (for example ``qwen3.827b_bf16_mtp.yaml``, ``minimaxm3_eagle3.yaml``),
each measured on the ``coding`` category of SPEED-Bench's Qualitative split. The data is a
mapping of the model's name to its thinking modes to the draft length k to the acceptance
length::

    # Source GitHub Actions run: https://github.com/.../actions/runs/...
    # dataset: coding | temperature: 1.0 | top_p: 0.95 | top_k: 40 | output_len: 4096
    # key = num_speculative_tokens (EAGLE3 level); value = golden AL
    _metadata:
      draft-model: Inferact/MiniMax-M3-EAGLE3
    minimax-m3:
      thinking_on:
        3: 2.83
      thinking_off:
        3: 2.93

Every other fact about the measurement is in the header comments, in the forms the published
files use, read when present: ``dataset: X | temperature: T | ...`` (the category and the
temperature), ``speculative-config: method=M | ...`` and ``key = num_speculative_tokens (M
level)`` (the method), and a JSON object of the collector's settings (``PRECISION``,
``CATEGORY``, ``SPEEDBENCH_SPECULATIVE_CONFIG``'s ``method``). A fact no header states stays
unknown (``None``): a filter on it matches nothing rather than guessing. ``_metadata`` (and any
other key starting with ``_``) holds metadata, not a model. The files give mean acceptance
lengths only: no per-position acceptance and no histogram.

What an acceptance length is, in the files' own README: "AL = 1 + (delta accepted draft tokens
/ delta verification drafts). The ``1`` is the target model's guaranteed verification token",
and "Acceptance length counts the target's guaranteed verification token", in ``[1,
num_speculative_tokens + 1]``. That is E, the expected tokens per verify step of
:mod:`specverdict.stats.expectation` (``1 + Σ Π a_j``), bonus token included. Two figures follow
from it at draft length k:

- the i.i.d. acceptance a with E(a) = (1 − a^(k+1)) / (1 − a) = AL (Leviathan, Kalman & Matias
  2023, equation 1), solved by bisection (E is increasing in a): what ``specverdict expect``
  takes, so that its E reproduces the golden AL exactly;
- the acceptance rate (AL − 1) / k, accepted draft tokens per drafted token when every verify
  step drafts k (the README's "rate spelling" of the same AL): what a run measures as its
  acceptance rate, and so what a campaign's ``expected_acceptance`` is compared with. For a
  method that drafts up to k (DSpark, n-gram) it is a lower bound of the rate a run measures.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict

from specverdict.campaign.yamlfile import check_yaml, read_text
from specverdict.errors import ConfigError

#: the largest golden file read (the published ones are about a kilobyte)
MAX_BYTES = 1 << 20
Thinking = Literal["on", "off"]
_MODES: dict[str, Thinking] = {"thinking_on": "on", "thinking_off": "off"}


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GoldenEntry(Frozen):
    """One acceptance length: a model, a thinking mode and a draft length k, with what the
    file's header says of the measurement (``None``: not stated)."""

    file: str
    model: str
    thinking: Thinking
    k: int
    acceptance_length: float
    #: (AL − 1) / k: accepted draft tokens per drafted token at k drafts per step
    acceptance_rate: float
    #: a with (1 − a^(k+1)) / (1 − a) = AL
    iid_acceptance: float
    precision: str | None = None
    method: str | None = None
    category: str | None = None
    temperature: float | None = None

    @property
    def label(self) -> str:
        """The entry's path in the file, ``MODEL/thinking_on/K`` (what ``--entry`` takes)."""
        return f"{self.model}/thinking_{self.thinking}/{self.k}"

    def described(self, facts: tuple[str, ...] = ("precision", "method", "category")) -> str:
        """``label (AL 2.52; precision bf16)``: the label, the AL and the named facts (a fact
        the file does not state is said to be so)."""
        said = [
            f"{name} {value}" if value is not None else f"{name} not stated"
            for name in facts
            if name not in ("model", "thinking", "k")
            for value in [getattr(self, name)]
        ]
        return f"{self.label} (AL {self.acceptance_length:g}" + (
            f"; {', '.join(said)})" if said else ")"
        )


class GoldenFile(Frozen):
    """A golden file: its entries in file order, its source and its ``_metadata``."""

    path: str
    source: str | None = None
    metadata: dict[str, str] = {}
    entries: tuple[GoldenEntry, ...]


class GoldenSelectionError(ConfigError):
    """The file reads, but the selection chooses no entry, or several (or is malformed)."""


class GoldenRate(float):
    """A campaign's expected acceptance rate read from a golden file: a number like any other,
    which also says where it came from (``origin``, a phrase starting with "the")."""

    origin: str

    def __new__(cls, value: float, origin: str) -> GoldenRate:
        self = super().__new__(cls, value)
        self.origin = origin
        return self

    def __getnewargs__(self) -> tuple[float, str]:  # type: ignore[override]
        return float(self), self.origin

    def __deepcopy__(self, memo: dict[int, Any]) -> GoldenRate:
        return self


def expected_origin(expected: float | None) -> str:
    """Where an expected acceptance came from: a golden file's entry, or the campaign."""
    return getattr(expected, "origin", None) or "the campaign's expected_acceptance"


def iid_acceptance(acceptance_length: float, k: int) -> float:
    """The i.i.d. acceptance a whose E(a) = 1 + a + ... + a^k = (1 − a^(k+1)) / (1 − a) is
    ``acceptance_length`` (bisection: E rises from 1 at a = 0 to k + 1 at a = 1; the sum is
    evaluated term by term, which near a = 1 the closed form's cancellation is not)."""
    if not (math.isfinite(acceptance_length) and 1.0 <= acceptance_length <= k + 1):
        raise ValueError(f"acceptance length {acceptance_length} is not in [1, {k + 1}]")
    if acceptance_length in (1.0, k + 1.0):
        return 0.0 if acceptance_length == 1.0 else 1.0
    lo, hi = 0.0, 1.0
    while hi - lo > 1e-15:
        mid = (lo + hi) / 2
        if math.fsum(mid**i for i in range(k + 1)) < acceptance_length:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# -- the header comments ---------------------------------------------------------------------

_SOURCE = re.compile(r"^source\b[^:]*:\s*(\S+)", re.IGNORECASE)
_LEVEL = re.compile(r"num_speculative_tokens\s*\(\s*([A-Za-z][\w-]*)\s+level\s*\)", re.IGNORECASE)


def _pairs(line: str, sep: str) -> dict[str, str]:
    """``a: 1 | b: 2`` (sep ``:``) or ``a=1 | b=2`` (sep ``=``) as a mapping; other parts
    skipped."""
    out: dict[str, str] = {}
    for part in line.split("|"):
        key, found, value = part.partition(sep)
        if found and key.strip() and value.strip():
            out.setdefault(key.strip().lower(), value.strip())
    return out


def _header(text: str) -> dict[str, str]:
    """What the leading comments say: source, category, temperature, precision, method."""
    comments: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        if stripped.startswith("#"):
            comments.append(stripped[1:].strip())
    facts: dict[str, str] = {}
    block: list[str] | None = None
    for line in comments:
        if block is None and line == "{":
            block = [line]
            continue
        if block is not None:
            block.append(line)
            if line == "}":
                _settings(" ".join(block), facts)
                block = None
            continue
        if (m := _SOURCE.match(line)) is not None:
            facts.setdefault("source", m.group(1))
        elif line.lower().startswith("dataset:"):
            pairs = _pairs(line, ":")
            facts.setdefault("category", pairs["dataset"])
            if "temperature" in pairs:
                facts.setdefault("temperature", pairs["temperature"])
        elif line.lower().startswith("speculative-config:"):
            pairs = _pairs(line.split(":", 1)[1], "=")
            if "method" in pairs:
                facts.setdefault("method", pairs["method"].lower())
        elif (m := _LEVEL.search(line)) is not None:
            facts.setdefault("method", m.group(1).lower())
    return facts


def _settings(text: str, facts: dict[str, str]) -> None:
    """The collector's settings (a JSON object in the comments), where they parse."""
    try:
        settings = json.loads(text)
    except ValueError:
        return
    if not isinstance(settings, dict):
        return
    for key, name in (("PRECISION", "precision"), ("CATEGORY", "category")):
        if isinstance(settings.get(key), str) and settings[key].strip():
            facts.setdefault(name, settings[key].strip())
    try:
        spec = json.loads(settings.get("SPEEDBENCH_SPECULATIVE_CONFIG") or "null")
    except (TypeError, ValueError):
        return
    if isinstance(spec, dict) and isinstance(spec.get("method"), str):
        facts.setdefault("method", spec["method"].lower())


# -- the data --------------------------------------------------------------------------------


def _kind(node: yaml.Node, value: Any) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return "null" if value is None else repr(value)


class _Reader:
    def __init__(self, path: Path, loader: yaml.SafeLoader) -> None:
        self.path = path
        self.loader = loader

    def fail(self, node: yaml.Node, where: str, what: str) -> ConfigError:
        return ConfigError(f"{self.path}:{node.start_mark.line + 1}: {where}: {what}")

    def scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            return None
        return self.loader.construct_object(node)

    def items(self, node: yaml.MappingNode, where: str) -> list[tuple[yaml.Node, yaml.Node, str]]:
        """(key node, value node, key as written), duplicates and non-scalar keys refused."""
        seen: set[str] = set()
        out: list[tuple[yaml.Node, yaml.Node, str]] = []
        for key_node, value_node in node.value:
            inner = f"{where}.{key_node.value}" if where != "(top level)" else str(key_node.value)
            if not isinstance(key_node, yaml.ScalarNode):
                raise self.fail(key_node, where, "a key must be a name, not a mapping or list")
            if str(key_node.value) in seen:
                raise self.fail(key_node, inner, "duplicate key")
            seen.add(str(key_node.value))
            out.append((key_node, value_node, inner))
        return out


def parse_golden(text: str, path: Path) -> GoldenFile:
    """A golden file's entries (see the module doc); every problem one ``ConfigError`` line
    ``FILE:LINE: key.path: what was expected (got ...)``."""
    check_yaml(text, path)
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        reader = _Reader(path, loader)
        return _parse(reader, root, text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}:{line}: not valid YAML: {problem}") from None
    finally:
        loader.dispose()


def _parse(reader: _Reader, root: yaml.Node | None, text: str) -> GoldenFile:
    path = reader.path
    shape = "a mapping MODEL: {thinking_on: {K: AL}}"
    if not isinstance(root, yaml.MappingNode):
        got = "an empty file" if root is None else _kind(root, reader.scalar(root))
        raise ConfigError(f"{path}:1: (top level): expected {shape} (got {got})")
    facts = _header(text)
    temperature = None
    if "temperature" in facts:
        try:
            temperature = float(facts["temperature"])
        except ValueError:
            temperature = None
    metadata: dict[str, str] = {}
    entries: list[GoldenEntry] = []
    for key_node, node, where in reader.items(root, "(top level)"):
        name = str(key_node.value)
        if name.startswith("_"):
            if name == "_metadata" and isinstance(node, yaml.MappingNode):
                for k_node, v_node, _ in reader.items(node, name):
                    value = reader.scalar(v_node)
                    if value is not None and not isinstance(v_node, yaml.CollectionNode):
                        metadata[str(k_node.value)] = str(value)
            continue
        if not isinstance(node, yaml.MappingNode) or not node.value:
            got = "an empty mapping" if isinstance(node, yaml.MappingNode) else ""
            raise reader.fail(
                key_node,
                where,
                "expected a mapping of thinking_on/thinking_off to {K: AL} "
                f"(got {got or _kind(node, reader.scalar(node))})",
            )
        for mode_node, ks_node, mode_where in reader.items(node, where):
            mode = _MODES.get(str(mode_node.value))
            if mode is None:
                raise reader.fail(
                    mode_node,
                    mode_where,
                    f"expected thinking_on or thinking_off (got {str(mode_node.value)!r})",
                )
            if not isinstance(ks_node, yaml.MappingNode) or not ks_node.value:
                got = "an empty mapping" if isinstance(ks_node, yaml.MappingNode) else ""
                raise reader.fail(
                    mode_node,
                    mode_where,
                    "expected a mapping of the draft length k to the acceptance length "
                    f"(got {got or _kind(ks_node, reader.scalar(ks_node))})",
                )
            for k_node, al_node, k_where in reader.items(ks_node, mode_where):
                k = reader.scalar(k_node)
                if not isinstance(k, int) or isinstance(k, bool) or k < 1:
                    raise reader.fail(
                        k_node,
                        k_where,
                        f"expected a draft length k (an integer >= 1) as the key (got {k!r})",
                    )
                al = reader.scalar(al_node)
                if not isinstance(al, int | float) or isinstance(al, bool) or not math.isfinite(al):
                    raise reader.fail(
                        al_node,
                        k_where,
                        f"expected the acceptance length, a number (got {_kind(al_node, al)})",
                    )
                if not 1.0 <= al <= k + 1:
                    raise reader.fail(
                        al_node,
                        k_where,
                        f"expected an acceptance length in [1, k + 1 = {k + 1}] (got {al!r})",
                    )
                entries.append(
                    GoldenEntry(
                        file=str(path),
                        model=name,
                        thinking=mode,
                        k=k,
                        acceptance_length=float(al),
                        acceptance_rate=(float(al) - 1.0) / k,
                        iid_acceptance=iid_acceptance(float(al), k),
                        precision=facts.get("precision"),
                        method=facts.get("method"),
                        category=facts.get("category"),
                        temperature=temperature,
                    )
                )
    if not entries:
        raise ConfigError(f"{path}:1: (top level): no model (expected {shape})")
    return GoldenFile(
        path=str(path), source=facts.get("source"), metadata=metadata, entries=tuple(entries)
    )


def load_golden(path: Path) -> GoldenFile:
    return parse_golden(read_text(path, what="golden file", limit=MAX_BYTES), path)


# -- choosing an entry -----------------------------------------------------------------------

#: the filters, in the order they are named
FILTERS = ("model", "thinking", "k", "precision", "method", "category")


def parse_entry(selector: str) -> dict[str, str | int]:
    """``MODEL/thinking_on/K`` (an entry's path in the file; MODEL alone, or MODEL/thinking_on,
    narrows without choosing) as filters."""
    parts = selector.rsplit("/", 2) if selector.count("/") >= 2 else selector.split("/")
    out: dict[str, str | int] = {}
    if not parts[0].strip():
        raise GoldenSelectionError(f"entry {selector}: expected MODEL/thinking_on/K")
    out["model"] = parts[0].strip()
    if len(parts) > 1:
        mode = _MODES.get(parts[1].strip())
        if mode is None:
            raise GoldenSelectionError(
                f"entry {selector}: expected MODEL/thinking_on/K or MODEL/thinking_off/K "
                f"(got {parts[1]!r})"
            )
        out["thinking"] = mode
    if len(parts) > 2:
        try:
            out["k"] = int(parts[2])
        except ValueError:
            raise GoldenSelectionError(
                f"entry {selector}: expected an integer k after the thinking mode "
                f"(got {parts[2]!r})"
            ) from None
    return out


def _norm(value: object) -> str:
    text = str(value).strip().lower()
    return text.removeprefix("thinking_")


def _misses(entry: GoldenEntry, wanted: Mapping[str, object]) -> list[str]:
    return [
        name
        for name, value in wanted.items()
        if getattr(entry, name) is None or _norm(getattr(entry, name)) != _norm(value)
    ]


def select_entry(
    golden: GoldenFile,
    *,
    model: str | None = None,
    thinking: str | None = None,
    k: int | None = None,
    precision: str | None = None,
    method: str | None = None,
    category: str | None = None,
) -> GoldenEntry:
    """The one entry every given filter (``thinking`` on or off; case ignored) matches. A filter
    on a fact the file does not state matches nothing. None: the nearest entries are named;
    several: they are listed, with what tells them apart."""
    given: dict[str, str | int | None] = {
        "model": model,
        "thinking": thinking,
        "k": k,
        "precision": precision,
        "method": method,
        "category": category,
    }
    wanted = {name: value for name, value in given.items() if value is not None}
    asked = ", ".join(f"{name} = {value}" for name, value in wanted.items()) or "no filter"
    chosen = [e for e in golden.entries if not _misses(e, wanted)]
    if len(chosen) == 1:
        return chosen[0]
    if not chosen:

        def distance(e: GoldenEntry) -> tuple[int, int]:
            return len(_misses(e, wanted)), abs(e.k - k) if k is not None else 0

        near = sorted(golden.entries, key=distance)[:3]
        raise GoldenSelectionError(
            f"{golden.path}: no entry matches {asked}; nearest: "
            + ", ".join(e.described(tuple(_misses(e, wanted))) for e in near)
        )
    differ = [
        name
        for name in FILTERS
        if name not in wanted and len({getattr(e, name) for e in chosen}) > 1
    ]
    shown = ", ".join(e.described(()) for e in chosen[:6])
    more = f" and {len(chosen) - 6} more" if len(chosen) > 6 else ""
    raise GoldenSelectionError(
        f"{golden.path}: {len(chosen)} entries match {asked}: {shown}{more}; choose one by "
        + " and ".join(differ)
        + (" or " if differ else "")
        + "entry (MODEL/thinking_on/K)"
    )


def find_entry(
    path: Path,
    *,
    entry: str | None = None,
    k: int | None = None,
    model: str | None = None,
    thinking: str | None = None,
    precision: str | None = None,
    method: str | None = None,
    category: str | None = None,
    stated_method: str | None = None,
) -> GoldenEntry:
    """The entry of the golden file at ``path`` that ``entry`` (``MODEL/thinking_on/K``) and the
    filters choose (:func:`select_entry`); ``entry`` and a filter that disagree are an error.
    ``stated_method``: the method the entry must have when the file states one (a campaign
    candidate's own), unless ``method`` is given."""
    chosen: dict[str, str | int | None] = {
        "k": k,
        "model": model,
        "thinking": thinking,
        "precision": precision,
        "method": method,
        "category": category,
    }
    if entry is not None:
        for name, value in parse_entry(entry).items():
            if chosen[name] is not None and _norm(chosen[name]) != _norm(value):
                raise GoldenSelectionError(f"entry {entry} and {name} {chosen[name]} disagree")
            chosen[name] = value
    golden = load_golden(path)
    if method is None and stated_method and any(e.method for e in golden.entries):
        chosen["method"] = stated_method
    k_chosen = chosen.pop("k")
    text = {name: None if v is None else str(v) for name, v in chosen.items()}
    return select_entry(
        golden,
        k=k_chosen if isinstance(k_chosen, int) else None,
        model=text["model"],
        thinking=text["thinking"],
        precision=text["precision"],
        method=text["method"],
        category=text["category"],
    )


def golden_rate(entry: GoldenEntry) -> GoldenRate:
    """The entry's acceptance rate (AL − 1) / k as a campaign's expected acceptance."""
    return GoldenRate(
        entry.acceptance_rate,
        f"the golden file {entry.file}'s {entry.label} (AL {entry.acceptance_length:g} at "
        f"k = {entry.k}: rate (AL - 1) / k)",
    )
