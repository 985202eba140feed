"""The shipped BPE tokenizer (Hugging Face ``tokenizers``) and incremental detokenization."""

from __future__ import annotations

import json
from pathlib import Path

from tokenizers import Tokenizer


class RefTokenizer:
    def __init__(self, model_dir: Path) -> None:
        self.tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        gen = json.loads((model_dir / "generation_config.json").read_text())
        eos = gen.get("eos_token_id")
        self.stop_token_ids: tuple[int, ...] = tuple(eos if isinstance(eos, list) else [eos])
        self.eos_token_id = self.stop_token_ids[0]
        self.vocab_size = self.tok.get_vocab_size()

    def encode(self, text: str) -> list[int]:
        return list(self.tok.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: list[int]) -> str:
        return str(self.tok.decode(ids, skip_special_tokens=True))


class Detokenizer:
    """Turns a growing list of token ids into text deltas.

    Byte-level BPE can split one character over several tokens; until the bytes complete, the
    decoded tail is U+FFFD and is held back.
    """

    def __init__(self, tokenizer: RefTokenizer) -> None:
        self.tokenizer = tokenizer
        self.ids: list[int] = []
        self.text = ""

    def push(self, ids: list[int]) -> str:
        self.ids.extend(ids)
        full = self.tokenizer.decode(self.ids)
        if full.endswith("\ufffd"):
            return ""
        delta = full[len(self.text) :] if full.startswith(self.text) else ""
        self.text = full
        return delta
