"""The shipped tokenizer and incremental detokenization."""

from __future__ import annotations

from specverdict.reference.tokenizer import Detokenizer, RefTokenizer
from specverdict.reference.weights import shipped


def test_a_newline_is_always_its_own_token() -> None:
    # A prompt ending in "\n" (every HumanEval prompt) must end on the token that precedes
    # indented code in training, not on a rare bare newline.
    tok = RefTokenizer(shipped("target"))
    pieces = [
        tok.tok.id_to_token(i) for i in tok.encode('def f(x):\n    """Doc."""\n    return x\n')
    ]
    assert pieces.count("Ċ") == 3
    assert all("Ċ" not in p or p == "Ċ" for p in pieces)


def test_detokenizer_holds_back_split_characters() -> None:
    tok = RefTokenizer(shipped("target"))
    text = "naïve = '漢字' # ok\n"
    ids = tok.encode(text)
    detok = Detokenizer(tok)
    deltas = [detok.push([i]) for i in ids]
    assert "".join(deltas) == text
    assert all("\ufffd" not in d for d in deltas)


def test_special_tokens_are_stop_tokens_and_skipped_in_text() -> None:
    tok = RefTokenizer(shipped("target"))
    assert tok.stop_token_ids == (
        tok.tok.token_to_id("<|endoftext|>"),
        tok.tok.token_to_id("<|im_end|>"),
    )
    assert tok.decode(tok.encode("a<|im_end|>b")) == "ab"
