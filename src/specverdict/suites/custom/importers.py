"""Importers: files in other tools' formats as dataset rows, read from the file you give (nothing
is downloaded). Each importer turns a source record into a row of the project's own format (a
plain dict that ``rows`` then validates like any row) and refuses a record it cannot map in one
line naming the file, the record (``path:LINE`` for JSON Lines, ``path[INDEX]`` for a JSON list)
and the field.

Where each format is defined (docs/workloads.md has the table):

- ``vllm-custom``: vLLM's ``vllm bench serve --dataset-name custom`` (``CustomDataset`` in
  vllm/benchmarks/datasets.py): JSON Lines, ``prompt`` required, ``output_tokens`` optional;
  vLLM sends the prompt as one user message (its chat template), so the rows are chat rows;
- ``sharegpt``, ``sharegpt-recorded``: the ShareGPT file vLLM's ``--dataset-name sharegpt`` reads
  (``ShareGPTDataset``, same file): one JSON list of ``{"id", "conversations": [{"from",
  "value"}]}``, ``from`` being ``human``, ``gpt`` or ``system``; vLLM drops entries with fewer
  than two turns, and so do we;
- ``spec-bench``: Spec-Bench's data/spec_bench/question.jsonl (github hemingkx/Spec-Bench):
  ``question_id``, ``category``, ``turns`` (the user turns) and, for some, ``reference`` (one
  entry a turn: a string, or for ``rag`` a list of acceptable answer spans);
- ``speed-bench``: NVIDIA's SPEED-Bench records (huggingface nvidia/SPEED-Bench, read by
  Model-Optimizer's examples/specdec_bench ``SPEEDBench``): ``question_id``, ``category``,
  ``sub_category``, ``turns``, ``source``, ``src_id``, ``difficulty``, ``multiturn``, as JSON
  Lines (the published files are parquet: write their records out as JSON Lines first); a turn
  still holding the published placeholder was never resolved from its source and is refused;
- ``bfcl``: a Berkeley Function Calling Leaderboard question file (``BFCL_v4_<category>.json``,
  JSON Lines of ``id``, ``question`` (turns, each a list of messages) and ``function``), its
  functions made OpenAI tools by the ``bfcl@1`` suite's own conversion.

Multi-turn sources give one request a record: the first user turn (with the system turns before
it), the number of turns in ``metadata.turns``. ``sharegpt-recorded`` instead gives one request
a user turn, its context the conversation recorded before it (the recorded assistant replies).
With ``whole`` (a dataset's ``replay: own``), ``sharegpt``, ``spec-bench`` and ``speed-bench``
give the whole conversation as the row's messages (every user turn, and ShareGPT's recorded
replies, which the replay then replaces with the model's own answers); Spec-Bench's reference is
then the last turn's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, get_args

from specverdict.errors import ConfigError

Imported = Literal[
    "vllm-custom", "sharegpt", "sharegpt-recorded", "spec-bench", "speed-bench", "bfcl"
]
IMPORTED: tuple[str, ...] = get_args(Imported)

#: a SPEED-Bench turn whose text must still be fetched from its source (``TURNS_PLACEHOLDER`` in
#: Model-Optimizer's examples/specdec_bench/specdec_bench/datasets/speed.py)
SPEED_PLACEHOLDER = "FULL BENCHMARK DATA SHOULD BE FETCHED FROM THE SOURCE USING SPECDEC_BENCH"
#: ShareGPT speakers as chat roles
SHAREGPT_ROLES = {"human": "user", "gpt": "assistant", "system": "system"}

Record = tuple[str, dict[str, Any]]  # where (file and line or index), the row as a dict
_BFCL_NUMBER = re.compile(r"_[\d-]+$")


class RecordError(ValueError):
    """A source record that does not map to a row: ``field`` names where."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"field {field}: {message}")


def _read(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the dataset: {exc.strerror}") from None
    if data.startswith(b"PAR1"):
        raise ConfigError(
            f"{path}: a parquet file: write its records out as JSON Lines first "
            "(e.g. datasets' Dataset.to_json)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the dataset is not UTF-8 text") from None


def jsonl_records(path: Path, what: str = "record") -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, object)`` for every non-blank line of a JSON Lines file (``where``:
    ``file:line``)."""
    for n, text in enumerate(_read(path).splitlines(), 1):
        if not text.strip():
            continue
        where = f"{path}:{n}"
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: not a JSON object: {exc.msg}") from None
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: a {what} must be a JSON object, got {type(raw).__name__}")
        yield where, raw


def _text(record: dict[str, Any], field: str) -> str:
    if field not in record:
        raise RecordError(field, "missing")
    value = record[field]
    if not isinstance(value, str) or not value.strip():
        raise RecordError(field, f"must be a non-empty string, got {value!r:.60}")
    return value


def _turns(record: dict[str, Any]) -> list[str]:
    turns = record.get("turns")
    if not isinstance(turns, list) or not turns:
        raise RecordError("turns", f"must be a non-empty list of strings, got {turns!r:.60}")
    for i, turn in enumerate(turns):
        if not isinstance(turn, str) or not turn.strip():
            raise RecordError(f"turns[{i}]", f"must be a non-empty string, got {turn!r:.60}")
    return turns


def _extra(record: dict[str, Any], used: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in used}


def _user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


# --- vLLM bench ------------------------------------------------------------------------------


def _output_tokens(value: object) -> int:
    """vLLM reads ``int(item["output_tokens"])``: an integer, also written as ``"10"`` or
    ``10.0``; it must be positive to be a request's ``max_tokens``."""
    n: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    elif (isinstance(value, float) and value.is_integer()) or (
        isinstance(value, str) and value.strip().isdigit()
    ):
        n = int(value)
    if n is None or n <= 0:
        raise RecordError("output_tokens", f"must be a positive integer, got {value!r:.60}")
    return n


def vllm_custom(path: Path) -> list[Record]:
    out: list[Record] = []
    for where, rec in jsonl_records(path):
        try:
            row: dict[str, Any] = {"messages": _user(_text(rec, "prompt"))}
            if rec.get("output_tokens") is not None:
                row["max_tokens"] = _output_tokens(rec["output_tokens"])
        except RecordError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        row["id"] = f"row-{where.rsplit(':', 1)[1]}"
        row["metadata"] = _extra(rec, ("prompt", "output_tokens"))
        out.append((where, row))
    return out


def _conversation(entry: dict[str, Any]) -> list[dict[str, Any]]:
    turns = entry["conversations"]
    messages: list[dict[str, Any]] = []
    for i, turn in enumerate(turns):
        if not isinstance(turn, dict):
            raise RecordError(f"conversations[{i}]", "must be an object {from, value}")
        speaker = turn.get("from")
        if speaker not in SHAREGPT_ROLES:
            raise RecordError(
                f"conversations[{i}].from", f"must be human, gpt or system, got {speaker!r:.60}"
            )
        value = turn.get("value")
        if not isinstance(value, str):
            raise RecordError(f"conversations[{i}].value", f"must be a string, got {value!r:.60}")
        messages.append({"role": SHAREGPT_ROLES[speaker], "content": value})
    return messages


def _sharegpt_rows(
    entry: dict[str, Any], sid: str, recorded: bool, whole: bool = False
) -> list[dict[str, Any]]:
    for key in ("image", "video"):
        if entry.get(key):
            raise RecordError(key, "a multimodal entry: only text conversations are imported")
    messages = _conversation(entry)
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if not users:
        raise RecordError("conversations", "has no human turn")
    extra = _extra(entry, ("id", "conversations"))
    if whole:
        return [{"id": sid, "messages": messages, "metadata": {**extra, "turns": len(messages)}}]
    rows = []
    for j, at in enumerate(users if recorded else users[:1], 1):
        reply = messages[at + 1] if at + 1 < len(messages) else None
        meta: dict[str, Any] = {**extra, "turns": len(messages)}
        if reply is not None and reply["role"] == "assistant":
            meta["reply_chars"] = len(reply["content"])
        if recorded:
            context = messages[: at + 1]
            meta["turn"] = j
            rows.append({"id": f"{sid}/{j}", "messages": context, "metadata": meta})
        else:
            system = [m for m in messages[:at] if m["role"] == "system"]
            rows.append({"id": sid, "messages": [*system, messages[at]], "metadata": meta})
    return rows


def _sharegpt(path: Path, recorded: bool, whole: bool = False) -> list[Record]:
    try:
        data = json.loads(_read(path))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: not a JSON list (ShareGPT is one JSON document): {exc.msg} at line "
            f"{exc.lineno}"
        ) from None
    if not isinstance(data, list):
        raise ConfigError(f"{path}: a ShareGPT file is a JSON list, got {type(data).__name__}")
    out: list[Record] = []
    for i, entry in enumerate(data):
        where = f"{path}[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(
                f"{where}: an entry must be a JSON object, got {type(entry).__name__}"
            )
        conversations = entry.get("conversations")
        if conversations is None or (isinstance(conversations, list) and len(conversations) < 2):
            continue  # as vLLM's ShareGPTDataset: entries with fewer than two turns are left out
        try:
            if not isinstance(conversations, list):
                raise RecordError("conversations", "must be a list of {from, value}")
            sid = entry.get("id", f"record-{i}")
            if not isinstance(sid, str) or not sid:
                raise RecordError("id", f"must be a non-empty string, got {sid!r:.60}")
            rows = _sharegpt_rows(entry, sid, recorded, whole)
        except RecordError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        out.extend((where, row) for row in rows)
    return out


def sharegpt(path: Path, whole: bool = False) -> list[Record]:
    return _sharegpt(path, recorded=False, whole=whole)


def sharegpt_recorded(path: Path) -> list[Record]:
    return _sharegpt(path, recorded=True)


# --- speculative-decoding benchmarks ---------------------------------------------------------


def _question_id(rec: dict[str, Any]) -> str:
    qid = rec.get("question_id")
    if isinstance(qid, bool) or not isinstance(qid, int | str) or qid == "":
        raise RecordError("question_id", f"must be a number or a string, got {qid!r:.60}")
    return str(qid)


def _asked(turns: list[str], whole: bool) -> list[dict[str, Any]]:
    """The user turns a record asks: the first, or with ``whole`` every one, in order."""
    return [m for t in (turns if whole else turns[:1]) for m in _user(t)]


def spec_bench(path: Path, whole: bool = False) -> list[Record]:
    out: list[Record] = []
    for where, rec in jsonl_records(path):
        try:
            sid, category, turns = _question_id(rec), _text(rec, "category"), _turns(rec)
            row: dict[str, Any] = {
                "id": sid,
                "category": category,
                "messages": _asked(turns, whole),
            }
            ref = rec.get("reference")
            if ref is not None:
                # one entry a turn: a string, or (category rag) the list of answer spans
                if not isinstance(ref, list) or not all(
                    isinstance(r, str)
                    or (isinstance(r, list) and all(isinstance(x, str) for x in r))
                    for r in ref
                ):
                    raise RecordError(
                        "reference", f"must be a list of strings or string lists, got {ref!r:.60}"
                    )
                if ref:
                    row["reference"] = ref[-1] if whole else ref[0]
        except RecordError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        used = ("question_id", "category", "turns", "reference")
        row["metadata"] = {**_extra(rec, used), "turns": len(turns)}
        out.append((where, row))
    return out


def speed_bench(path: Path, whole: bool = False) -> list[Record]:
    out: list[Record] = []
    for where, rec in jsonl_records(path):
        try:
            sid, category, turns = _question_id(rec), _text(rec, "category"), _turns(rec)
            for i, turn in enumerate(turns):
                if turn.startswith(SPEED_PLACEHOLDER):
                    raise RecordError(
                        f"turns[{i}]",
                        "still the published placeholder: resolve the records from their "
                        "sources first (SPEED-Bench's prepare_data)",
                    )
        except RecordError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        meta = {**_extra(rec, ("question_id", "category", "turns")), "turns": len(turns)}
        row = {
            "id": sid,
            "category": category,
            "messages": _asked(turns, whole),
            "metadata": meta,
        }
        out.append((where, row))
    return out


# --- BFCL ------------------------------------------------------------------------------------


def _bfcl_messages(rec: dict[str, Any]) -> list[dict[str, Any]]:
    question = rec.get("question")
    if not isinstance(question, list) or not question or not isinstance(question[0], list):
        raise RecordError("question", "must be a list of turns, each a list of messages")
    first = question[0]
    if not first:
        raise RecordError("question[0]", "the first turn has no messages")
    for i, m in enumerate(first):
        if not isinstance(m, dict) or not isinstance(m.get("content"), str):
            raise RecordError(f"question[0][{i}]", "must be a message {role, content}")
        if m.get("role") not in ("system", "user", "assistant", "tool"):
            raise RecordError(
                f"question[0][{i}].role",
                f"must be system, user, assistant or tool, got {m.get('role')!r:.60}",
            )
    return first


def _bfcl_functions(rec: dict[str, Any]) -> list[dict[str, Any]]:
    if "function" not in rec:
        raise RecordError(
            "function",
            "missing (BFCL's multi-turn, memory and web-search categories name classes in "
            "involved_classes, whose functions are not in the file)",
        )
    functions = rec["function"]
    if not isinstance(functions, list):
        raise RecordError("function", "must be a list of functions")
    for i, f in enumerate(functions):
        if not isinstance(f, dict) or not isinstance(f.get("name"), str) or not f["name"]:
            raise RecordError(f"function[{i}].name", "a function needs a name")
        if not isinstance(f.get("parameters", {}), dict):
            raise RecordError(f"function[{i}].parameters", "must be a schema object")
    return functions


def bfcl(path: Path) -> list[Record]:
    from specverdict.suites.agent.bfcl import to_tools  # the bfcl@1 suite's own conversion

    out: list[Record] = []
    for where, rec in jsonl_records(path):
        try:
            sid = _text(rec, "id")
            messages, functions = _bfcl_messages(rec), _bfcl_functions(rec)
        except RecordError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        meta = {
            **_extra(rec, ("id", "question", "function")),
            "turns": len(rec["question"]),
            "functions": [f["name"] for f in functions],  # BFCL's names (tools have no dots)
        }
        row: dict[str, Any] = {
            "id": sid,
            "category": _BFCL_NUMBER.sub("", sid),
            "messages": messages,
            "metadata": meta,
        }
        if functions:
            row["tools"] = list(to_tools(functions))
        out.append((where, row))
    return out


IMPORTERS: dict[str, Callable[[Path], list[Record]]] = {
    "vllm-custom": vllm_custom,
    "sharegpt": sharegpt,
    "sharegpt-recorded": sharegpt_recorded,
    "spec-bench": spec_bench,
    "speed-bench": speed_bench,
    "bfcl": bfcl,
}


#: the importers that can give a record's whole conversation (``replay: own``)
WHOLE: dict[str, Callable[[Path, bool], list[Record]]] = {
    "sharegpt": sharegpt,
    "spec-bench": spec_bench,
    "speed-bench": speed_bench,
}


def import_records(path: Path, fmt: Imported, whole: bool = False) -> list[Record]:
    """Every source record of ``path`` as ``(where, row dict)``, in file order; with ``whole``,
    each record's whole conversation (a format in ``WHOLE``)."""
    if whole:
        return WHOLE[fmt](path, True)
    return IMPORTERS[fmt](path)
