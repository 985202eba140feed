"""The training corpus: Python source of the running interpreter's standard library.

Two kinds of documents, both deterministic given the interpreter version and the seed:

* whole stdlib modules (completion-style text);
* chat exchanges built from stdlib functions that have a docstring: the user gives the signature
  and docstring, the assistant answers with the whole function in a fenced block. They teach the
  model the chat template and to stop with ``<|im_end|>``, so the chat endpoint answers with code.
"""

from __future__ import annotations

import ast
import hashlib
import random
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

from specverdict.reference.chat import CHAT_TEMPLATE, SPECIAL_TOKENS, render_chat

EXCLUDED_PARTS = {"site-packages", "test", "tests", "idle_test", "lib2to3", "__pycache__"}
MAX_FILE_BYTES = 200_000


@dataclass(frozen=True)
class Corpus:
    train: list[str]
    valid: list[str]
    n_files: int
    n_chat: int
    sha256: str


def stdlib_files(root: Path | None = None) -> list[Path]:
    base = Path(root or sysconfig.get_paths()["stdlib"])
    files = []
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(base)
        if EXCLUDED_PARTS.intersection(rel.parts) or path.stat().st_size > MAX_FILE_BYTES:
            continue
        files.append(path)
    return files


def chat_examples(source: str) -> Iterator[str]:
    """Yield chat exchanges for top-level and method functions with a docstring."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    lines = source.splitlines()
    for node in ast.walk(tree):
        docstring = ast.get_docstring(node) if isinstance(node, ast.FunctionDef) else None
        if docstring is None or not isinstance(node, ast.FunctionDef):
            continue
        if node.end_lineno is None or node.end_lineno - node.lineno > 40:
            continue
        if len(node.body) < 2:  # a docstring alone teaches that functions end after it
            continue
        first = node.lineno - 1 - len(node.decorator_list)
        full_lines = lines[first : node.end_lineno]
        indent = len(full_lines[0]) - len(full_lines[0].lstrip())
        full = "\n".join(line[indent:] for line in full_lines)
        doc = " ".join(docstring.split())
        args = ", ".join(a.arg for a in node.args.args)
        # The request is prose, never a code stub: a stub followed by anything but its body
        # would teach completion-style prompts to stop after the docstring.
        prompt = f"Write a Python function `{node.name}({args})`. {doc}"
        answer = f"```python\n{full}\n```"
        yield render_chat([{"role": "user", "content": prompt}], add_generation_prompt=True) + (
            answer + "<|im_end|>\n"
        )


def build_corpus(seed: int, valid_fraction: float = 0.02, root: Path | None = None) -> Corpus:
    files = stdlib_files(root)
    rng = random.Random(seed)
    order = list(range(len(files)))
    rng.shuffle(order)
    n_valid = max(1, int(len(files) * valid_fraction))
    valid_ids = set(order[:n_valid])
    train: list[str] = []
    valid: list[str] = []
    digest = hashlib.sha256()
    n_chat = 0
    for i, path in enumerate(files):
        text = path.read_text(encoding="utf-8", errors="replace")
        digest.update(text.encode())
        target = valid if i in valid_ids else train
        target.append(text)
        for example in chat_examples(text):
            target.append(example)
            n_chat += 1
    rng.shuffle(train)
    return Corpus(train, valid, len(files), n_chat, digest.hexdigest())


def train_tokenizer(texts: list[str], vocab_size: int) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    # Every newline is its own token. With GPT-2's rule alone, "\n" merges with the indentation
    # that follows, so a prompt ending in "\n" (every HumanEval prompt) ends on a token that in
    # training mostly preceded top-level code, and the model closes the function at once.
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(r"\n"), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return tok


__all__ = ["CHAT_TEMPLATE", "Corpus", "build_corpus", "chat_examples", "train_tokenizer"]
