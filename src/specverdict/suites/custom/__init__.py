"""Your own workload as a stage: prompts from a JSONL file (``rows``), scored by a reference
answer, per-row tests in the sandbox, your Python function or your program (``scorers``), or
not at all; ``FileSuite`` is the suite the runner sees (``suite``); other tools' files (vLLM
bench, ShareGPT, Spec-Bench, SPEED-Bench, BFCL) become rows through ``importers``."""

from specverdict.suites.custom.rows import Row, load_rows
from specverdict.suites.custom.suite import FileSuite

__all__ = ["FileSuite", "Row", "load_rows"]
