"""``dict[str, Any]`` only at the package's true edges: JSON as an engine, a model or a user
wrote it, and JSON in a format someone else defines. Every module that spells it is listed
here with why; any other module must carry typed models across its boundaries."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "specverdict"

#: module or package (a trailing ``/``) -> the edge it sits on
EDGES = {
    "engines/": "raw engine JSON: request bodies, streamed chunks, /metrics and probes as sent",
    "reference/": "the embedded engine's own OpenAI-compatible request and response bodies",
    "suites/": "what a model or a dataset wrote: OpenAI messages, tool calls, dataset rows",
    "lab/": "the trainer's and the generator's JSON records (outside the harness)",
    "campaign/spec.py": "user-supplied engine and method parameters, passed through as given",
    "records/core.py": "a schema-1 manifest upgraded as stored; an open extra's JSON form",
    "records/acceptance.py": "the engine's own acceptance fields kept raw beside the canonical",
    "records/manifest.py": "an engine's acceptance probe, stored as it answered",
    "run/segment.py": "the request body sent to the engine (engine-specific extras merged in)",
    "run/episodes.py": "an episode's conversation: OpenAI messages and tool calls",
    "run/executors/cluster.py": "Ray's node and resource dictionaries, as Ray gives them",
    "store/_sql.py": "a registry row's column values, by column name, as the database takes them",
    "report/export.py": "rows of the sample export (JSONL, CSV, Parquet), one key per column",
    "report/html.py": "the template context of the HTML report",
    "report/model.py": "the JSON form of a run's spec in report.json",
    "watch/artifacts.py": "Prometheus alert rules and a Grafana dashboard, in their formats",
    "watch/trtllm_source.py": "TensorRT-LLM's iteration statistics, as the server sends them",
    "cli/suites.py": "`suites show --json`'s output",
    "verdict/model.py": "a reason's figures in its JSON form (Reason.data)",
    "sandbox/_bootstrap.py": "the sandbox's JSON side channel (stdlib only, no pydantic there)",
}

LOOSE = re.compile(r"dict\[str, Any\]")


def _edge(rel: str) -> bool:
    return any(rel == e or (e.endswith("/") and rel.startswith(e)) for e in EDGES)


def test_untyped_json_only_at_the_edges() -> None:
    found: dict[str, int] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if "/data/" in rel:
            continue  # a suite's fixture sources: the model-task programs, not the package
        n = len(LOOSE.findall(path.read_text()))
        if n:
            found[rel] = n
    assert found, "the scan found nothing: it no longer reads the package"
    off_edge = {rel: n for rel, n in found.items() if not _edge(rel)}
    assert off_edge == {}, "dict[str, Any] off the edges: type these, or list the edge here"


def test_every_listed_edge_still_exists() -> None:
    missing = [e for e in EDGES if not (SRC / e.rstrip("/")).exists()]
    assert missing == []


def test_a_listed_module_still_needs_its_place() -> None:
    """A module typed since it was listed leaves the list, so that the list stays the map of
    the edges."""
    stale = [e for e in EDGES if not e.endswith("/") and not LOOSE.search((SRC / e).read_text())]
    assert stale == []
