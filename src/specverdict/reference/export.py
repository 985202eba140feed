"""Export the reference models as Hugging Face checkpoint folders that real engines load.

The shipped target and draft already use ``GPT2LMHeadModel`` tensor names in safetensors, a
``tokenizers`` tokenizer wrapped for transformers (``tokenizer_config.json``) and an EOS token. The
export copies them into ``DIR/target`` and ``DIR/draft``, adds the chat template as
``chat_template.jinja`` (transformers reads it from there as well as from
``tokenizer_config.json``), and writes ``DIR/export.json`` with each file's sha256, so that a run
on a real engine can be traced to the exact weights the reference engine served.

The MTP head is not exported: it is the reference engine's own architecture, which no other
engine loads.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from specverdict.reference.chat import CHAT_TEMPLATE
from specverdict.reference.weights import shipped

#: exported checkpoints: the target and the draft model (the ``draft_model`` method's drafter)
EXPORTED = ("target", "draft")
#: files copied from each shipped checkpoint
FILES = (
    "config.json",
    "generation_config.json",
    "model.safetensors",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
)
#: attention head sizes vLLM's CPU attention backend supports (vLLM 0.32.0,
#: ``vllm/v1/attention/backends/cpu_attn.py``); other sizes fail at the first request
CPU_HEAD_SIZES = frozenset({32, 64, 80, 96, 112, 128, 160, 192, 224, 256, 512})


def head_size(config: dict[str, Any]) -> int:
    """A GPT-2 config's attention head size (``n_embd / n_head``)."""
    n_embd, n_head = int(config["n_embd"]), int(config["n_head"])
    if n_embd % n_head:
        raise ValueError(f"n_embd {n_embd} is not a multiple of n_head {n_head}")
    return n_embd // n_head


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def export_hf(out: Path, sources: dict[str, Path] | None = None) -> dict[str, Any]:
    """Write ``out/target`` and ``out/draft`` (and ``out/export.json``); return the manifest.

    ``sources`` maps ``target``/``draft`` to checkpoint folders (default: the shipped ones).
    Raises ValueError when a file is missing or a head size is one vLLM's CPU attention rejects,
    before anything is written.
    """
    src = {name: (sources or {}).get(name, shipped(name)) for name in EXPORTED}
    for name, folder in src.items():
        for needed in FILES:
            if not (folder / needed).is_file():
                raise ValueError(f"{name} checkpoint {folder}: missing {needed}")
        size = head_size(json.loads((folder / "config.json").read_text()))
        if size not in CPU_HEAD_SIZES:
            raise ValueError(
                f"{name} checkpoint {folder}: head size {size} is not supported by vLLM's CPU "
                f"attention ({', '.join(str(s) for s in sorted(CPU_HEAD_SIZES))})"
            )
    manifest: dict[str, Any] = {"format": "hf-gpt2", "checkpoints": {}}
    for name, folder in src.items():
        dest = out / name
        dest.mkdir(parents=True, exist_ok=True)
        for needed in FILES:
            shutil.copyfile(folder / needed, dest / needed)
        (dest / "chat_template.jinja").write_text(CHAT_TEMPLATE)
        manifest["checkpoints"][name] = {
            "path": name,
            "head_size": head_size(json.loads((folder / "config.json").read_text())),
            "files": {f.name: sha256(f) for f in sorted(dest.iterdir()) if f.is_file()},
        }
    (out / "export.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
