"""The campaign file's reference (docs/campaign.md), generated from its pydantic models.

Every section is a model of ``campaign.model`` reached from ``Campaign``, in the order a reader
meets them; each row is a field: its key, its type, its default and its description. Regenerate
the committed page with::

    specverdict schema --format markdown > docs/campaign.md
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Literal, Union

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from specverdict.campaign.model import Campaign

REGENERATE = "specverdict schema --format markdown > docs/campaign.md"

INTRO = f"""\
# The campaign file

<!-- generated from src/specverdict/campaign/model.py: do not edit; regenerate with
     {REGENERATE} -->

A campaign is a YAML file: one engine and one model, a baseline without speculation, the
candidates judged against it and the stages (workloads) each judged on its own. Unknown keys
are errors. `specverdict init --engine KIND --model NAME` writes a commented one,
`specverdict validate FILE` checks it, and `specverdict schema` prints its JSON Schema.

Types: `a | b` is either; `list[x]` a YAML list; `map[k, v]` a mapping; a `Name` links to its
section. A default of "required" means the key must be given.
"""


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _type(annotation: Any) -> str:
    """An annotation as a reader of the YAML sees it."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is type(None):
        return "null"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
    if origin is typing.Annotated:
        return _type(args[0])
    if origin is Literal:
        return " \\| ".join(json.dumps(a) for a in args)
    if origin in (Union, types.UnionType):
        return " \\| ".join(_type(a) for a in args)
    if origin in (list, tuple):
        return f"list[{_type(args[0])}]" if args else "list"
    if origin is dict:
        return f"map[{_type(args[0])}, {_type(args[1])}]"
    if isinstance(annotation, type):
        return {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}.get(
            annotation.__name__, annotation.__name__
        )
    return str(annotation)


def _default(field: Any) -> str:
    if field.is_required():
        return "required"
    value = field.default_factory() if field.default_factory is not None else field.default
    if value is PydanticUndefined:
        return "required"
    if isinstance(value, BaseModel):
        dumped = value.model_dump(mode="json", exclude_defaults=True)
        return f"`{json.dumps(dumped)}`" if dumped else "(its defaults)"
    return f"`{json.dumps(value)}`"


#: what a field without a ``description`` in the models means (keys of ``Model.field``)
NOTES: dict[str, str] = {
    "Campaign.name": "the campaign's name (letters, digits, `_.-`), shown in reports",
    "Campaign.engine": "the engine and how to reach it: attach to servers or launch per run",
    "Campaign.model": "the target model",
    "Campaign.candidates": "the speculative configurations to judge, each against the baseline",
    "Campaign.stages": "workloads by stage name (function, repository, agent, prose or "
    "side:NAME), each judged on its own",
    "Campaign.sampling": "sampling settings of every request",
    "Campaign.load": "the load every run is measured at, and how often it is repeated",
    "Campaign.gates": "the statistical gates a verdict is decided by",
    "Campaign.audits": "checks of what the engine loaded and of files overridden in it",
    "Campaign.claims": "external speed-up claims `specverdict expect` checks",
    "Candidate.method": "the speculation method",
    "StageSection.samples": "which of the suite's samples to send: all, the first n, ids, or a "
    "seeded random subset",
    "Sampling.temperature": "0 is greedy (speculation must then leave outputs unchanged)",
    "Sampling.top_p": "nucleus sampling threshold",
    "Sampling.max_tokens": "the most tokens a request may generate",
    "Sampling.seed": "the request seed (null: none sent)",
    "Load.concurrency": "requests in flight (closed loop); a list measures each level",
    "Gates.alpha": "the error rate of each decision",
    "Audits.loader": "inventory the checkpoints and compare them with what the engine loaded",
    "Audits.overrides": "check files overridden in the engine's installation",
    "Claim.source": "where the claim was made",
    "Claim.method": "the claimed speculation method",
    "Claim.k": "the claimed draft tokens per step",
    "Claim.speedup": "the claimed speed-up",
    "Baseline.method": "always none: the baseline runs without speculation",
    "DatasetSection.format": "completions (rows give `prompt`) or chat (rows give `messages`); "
    "another tool's file, imported; swe-bench: a SWE-bench task file, with `snapshots` "
    "(docs/workloads.md)",
    "First.first": "send the suite's first n samples",
    "Ids.ids": "send these sample ids",
    "Seeded.seed": "the seed of the random subset",
    "PromptLengthSlice.prompt_tokens": "the bin edges, in prompt tokens",
    "MetadataSlice.metadata": "the metadata field whose values are the slices",
    "ReferenceScorer.reference": "how the answer is compared with the row's reference",
    "ReferenceScorer.tolerance": "numeric: the tolerance, absolute or relative",
    "TestsScorer.tests": "the tests' language",
    "TestsScorer.timeout_s": "seconds the tests of one answer may take",
    "PythonScorer.python": "`module:function`, importable by the runner",
    "CommandScorer.command": "the program and its arguments",
    "CommandScorer.files": "files copied beside it (relative to the campaign file)",
    "CommandScorer.timeout_s": "seconds one call may take",
}

_BOUNDS = (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="))


def _constraints(field: Any) -> str:
    """A field's bounds (``> 0``, ``<= 1``), lengths and pattern, as written after its type."""
    out = []
    for meta in field.metadata:
        for attr, sign in _BOUNDS:
            value = getattr(meta, attr, None)
            if value is not None:
                out.append(f"{sign} {value}")
        if getattr(meta, "min_length", None):
            out.append(f"at least {meta.min_length}")
        if getattr(meta, "pattern", None):
            out.append(f"matching `{meta.pattern}`")
    return f"({', '.join(out)})" if out else ""


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _doc(model: type[BaseModel]) -> str:
    own = model.__dict__.get("__doc__")
    return " ".join(own.split()) if own else ""


def sections() -> list[tuple[type[BaseModel], str]]:
    """The models reachable from ``Campaign``, breadth first, each with where it first sits."""
    seen: dict[type[BaseModel], str] = {Campaign: "(top level)"}
    todo: list[type[BaseModel]] = [Campaign]
    while todo:
        model = todo.pop(0)
        for name, field in model.model_fields.items():
            where = name if seen[model] == "(top level)" else f"{seen[model]}.{name}"
            if typing.get_origin(field.annotation) is dict:
                where += ".<name>"
            elif "list[" in str(field.annotation):
                where += "[]"
            for sub in _models_in(field.annotation):
                if sub not in seen:
                    seen[sub] = where
                    todo.append(sub)
    return list(seen.items())


def campaign_markdown() -> str:
    """docs/campaign.md: one section per model, one row per field."""
    out = [INTRO]
    for model, where in sections():
        out.append(f"\n## {model.__name__}\n")
        out.append(f"\nAt `{where}`." if where != "(top level)" else "\nThe top level of the file.")
        doc = _doc(model)
        if doc:
            out.append(f" {doc}")
        out.append("\n\n| key | type | default | description |\n|---|---|---|---|\n")
        for name, field in model.model_fields.items():
            row = (
                f"`{field.alias or name}`",
                " ".join(filter(None, (_type(field.annotation), _cell(_constraints(field))))),
                _default(field),
                _cell(field.description or NOTES.get(f"{model.__name__}.{name}", "")),
            )
            out.append("| " + " | ".join(row) + " |\n")
    return "".join(out)
