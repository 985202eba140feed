"""EvalPlus-format suites: ``humaneval-plus@1``, ``humaneval-plus-chat@1``, ``mbpp-plus@1``.

EvalPlus (Liu et al. 2023; Apache-2.0) publishes HumanEval+ and MBPP+ as release files that are
not on PyPI; the user supplies one (``--data`` or ``SPECVERDICT_HUMANEVAL_PLUS`` /
``SPECVERDICT_MBPP_PLUS``, see ``settings``). The format, as read by EvalPlus itself
(evalplus/evalplus@26d6d00: ``evalplus/data/humaneval.py`` ``get_human_eval_plus``,
``evalplus/data/mbpp.py`` ``get_mbpp_plus``, ``evalplus/evaluate.py`` ``get_groundtruth`` and
``check_correctness``): JSON Lines, optionally gzipped, one task per line with

``task_id`` (``HumanEval/0``, ``Mbpp/2``), ``prompt``, ``entry_point``, ``canonical_solution``,
``base_input`` and ``plus_input`` (lists of argument lists), ``atol`` (float tolerance, 0 for
exact); other fields (``contract``, ``test``, ...) are not used.

Semantics kept from EvalPlus: expected outputs come from ``prompt + canonical_solution`` on the
base and plus inputs; an answer passes only if every base and every plus input passes; floats
compare with ``atol`` (1e-6 when 0) and rtol 1e-7; EvalPlus's special oracles (``oracles``).
JSON has no tuples, sets or complex numbers, so MBPP+ inputs of some tasks are reshaped after
loading exactly as EvalPlus's ``mbpp_deserialize_inputs`` does (``MBPP_SHAPES`` below).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Literal

from specverdict.suites.function.settings import DATA_FILES, DATA_VARIABLES, evalplus_file
from specverdict.suites.function.task import Args, FunctionTask
from specverdict.suites.functional import FunctionSuite, Mode

Dataset = Literal["humaneval", "mbpp"]
REQUIRED = ("task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input")


def _deep_tuple(x: Any) -> Any:
    return tuple(_deep_tuple(v) for v in x) if isinstance(x, list) else x


def _tuples(x: list[Any]) -> list[Any]:
    return [tuple(v) for v in x]


Shape = Callable[[list[Any]], list[Any]]
_SHAPES: dict[str, Shape] = {
    "each-arg-tuple": lambda a: [tuple(v) for v in a],
    "each-arg-list-of-tuples": lambda a: [_tuples(v) for v in a],
    "each-arg-tuple-of-tuples": lambda a: [tuple(_tuples(v)) for v in a],
    "first-list-of-tuples": lambda a: [_tuples(a[0]), *a[1:]],
    "first-tuple": lambda a: [tuple(a[0]), *a[1:]],
    "second-tuple": lambda a: [a[0], tuple(a[1]), *a[2:]],
    "first-sets": lambda a: [[set(v) if isinstance(v, list) and v else {} for v in a[0]]],
    "float-complex": lambda a: [float(a[0]), complex(a[1])],
    "complex": lambda a: [complex(a[0])],
    "first-tuple-of-tuples": lambda a: [
        tuple(tuple(v) if isinstance(v, list) else v for v in a[0]),
        *a[1:],
    ],
    "first-dict-of-tuples": lambda a: [{k: tuple(v) for k, v in a[0].items()}, *a[1:]],
    "all-tuples": lambda a: list(_deep_tuple(a)),
}
_SHAPED_TASKS: dict[str, tuple[int, ...]] = {
    "each-arg-tuple": (
        *(2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579),
        *(596, 616, 630, 726, 740, 744, 809),
    ),
    "each-arg-list-of-tuples": (
        *(63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780),
    ),
    "first-list-of-tuples": (75, 413, 444, 753),
    "second-tuple": (106, 750),
    "first-sets": (115,),
    "float-complex": (124,),
    "first-tuple": (250, 405, 446, 617, 720, 763, 808, 307),
    "each-arg-tuple-of-tuples": (259, 401, 445),
    "first-tuple-of-tuples": (278,),
    "first-dict-of-tuples": (722,),
    "complex": (252,),
    "all-tuples": (580, 615, 791),
}
#: MBPP+ task number -> how its JSON arguments are reshaped
MBPP_SHAPES = {n: name for name, ids in _SHAPED_TASKS.items() for n in ids}

#: EvalPlus's special oracles, by entry point (``evalplus/eval/_special_oracle.py``)
_MBPP_ORACLES = {
    "are_equivalent": "mbpp:are_equivalent",
    "sum_div": "mbpp:sum_div",
    "surface_Area": "mbpp:surface_Area",
    "digit_distance_nums": "mbpp:digit_distance_nums",
    **dict.fromkeys(
        (
            "similar_elements",
            "find_char_long",
            "common_in_nested_lists",
            "extract_singly",
            "larg_nnum",
            "intersection_array",
            "find_dissimilar",
            "Diff",
        ),
        "mbpp:set_eq",
    ),
    **dict.fromkeys(("check_str", "text_match_three", "text_starta_endb"), "mbpp:not_none"),
}


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of an EvalPlus release file; a missing field is an error naming the line."""
    raw = path.read_bytes()
    text = gzip.decompress(raw).decode() if raw[:2] == b"\x1f\x8b" else raw.decode()
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        missing = [k for k in REQUIRED if k not in row]
        if missing:
            raise ValueError(f"{path}:{n}: an EvalPlus task needs {', '.join(missing)}")
        rows.append(row)
    return rows


def _inputs(dataset: Dataset, task_id: str, raw: Any) -> tuple[Args, ...]:
    if not isinstance(raw, list) or not all(isinstance(a, list) for a in raw):
        raise ValueError(f"{task_id}: inputs must be a list of argument lists")
    shape = None
    if dataset == "mbpp":
        shape = _SHAPES.get(MBPP_SHAPES.get(int(task_id.rsplit("/", 1)[-1]), ""))
    return tuple(tuple(shape(a) if shape else a) for a in raw)


def _oracle(dataset: Dataset, entry_point: str) -> str | None:
    if dataset == "humaneval":
        return "find_zero" if entry_point == "find_zero" else None
    return _MBPP_ORACLES.get(entry_point)


@lru_cache(maxsize=4)
def _load(path: str, stamp: tuple[int, int], dataset: Dataset) -> tuple[FunctionTask, ...]:
    tasks = []
    for row in read_rows(Path(path)):
        tid = str(row["task_id"])
        tasks.append(
            FunctionTask(
                task_id=tid,
                prompt=row["prompt"],
                entry_point=row["entry_point"],
                reference=row["prompt"] + row["canonical_solution"],
                oracle=_oracle(dataset, row["entry_point"]),
                atol=float(row.get("atol") or 0.0),
                base_inputs=_inputs(dataset, tid, row["base_input"]),
                plus_inputs=_inputs(dataset, tid, row["plus_input"]),
            )
        )
    return tuple(tasks)


def evalplus_tasks(path: Path, dataset: Dataset) -> tuple[FunctionTask, ...]:
    """The tasks of an EvalPlus file (read once per file version)."""
    try:
        st = path.stat()
    except OSError:
        raise ValueError(
            f"EvalPlus data not found at {path}: download {DATA_FILES[dataset]} from EvalPlus's "
            f"releases and pass --data or set {DATA_VARIABLES[dataset]}"
        ) from None
    try:
        return _load(str(path), (st.st_mtime_ns, st.st_size), dataset)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not an EvalPlus file: {exc}") from None


class EvalPlusSuite(FunctionSuite):
    """A suite read from an EvalPlus release file (``path``, default from ``settings``)."""

    dataset: ClassVar[Dataset]
    amplify_config = None
    source = "EvalPlus (Liu et al. 2023), from a release file the user supplies"
    licence = "Apache-2.0 (EvalPlus); derived from HumanEval (MIT) / MBPP (CC-BY-4.0)"

    def __init__(self, path: Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.path = path

    @property
    def data_path(self) -> Path:
        return self.path or evalplus_file(self.dataset)

    def load_tasks(self) -> list[FunctionTask]:
        return list(evalplus_tasks(self.data_path, self.dataset))

    def truth_family(self) -> str:
        """Ground truth depends on the file: its digest names the cache."""
        digest = hashlib.sha256(self.data_path.read_bytes()).hexdigest()[:12]
        return f"{self.name}-v{self.version}-{digest}"


class HumanEvalPlus(EvalPlusSuite):
    name = "humaneval-plus"
    version = 1
    dataset = "humaneval"
    mode: ClassVar[Mode] = "completion"


class HumanEvalPlusChat(HumanEvalPlus):
    name = "humaneval-plus-chat"
    mode = "chat"


MBPP_INSTRUCTION = (
    "{task}\n\nWrite the Python function `{entry_point}`. Reply with the function, and any "
    "imports it needs, in one ```python code block."
)


class MbppPlus(EvalPlusSuite):
    name = "mbpp-plus"
    version = 1
    dataset = "mbpp"
    mode: ClassVar[Mode] = "chat"

    def chat_messages(self, task: FunctionTask) -> tuple[dict[str, Any], ...]:
        task_text = task.prompt.strip().strip('"').strip()
        content = MBPP_INSTRUCTION.format(task=task_text, entry_point=task.entry_point)
        return ({"role": "user", "content": content},)
