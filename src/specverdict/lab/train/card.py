"""Render ``MODEL_CARD.md`` from the training report (``training_report.json``).

Usable without torch: ``python -m specverdict.lab.train.card WEIGHTS_DIR`` rewrites the card
from the report next to the weights.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _size(path: Path) -> str:
    return f"{path.stat().st_size / 2**20:.2f} MiB"


def render_model_card(report: dict[str, Any], weights: Path) -> str:
    run = report["run"]
    t, d, m = report["target"], report["draft"], report["mtp"]
    tcfg = json.loads((weights / "target" / "config.json").read_text())
    dcfg = json.loads((weights / "draft" / "config.json").read_text())
    return f"""# Reference engine models

Small models trained by specverdict for its embedded reference engine. They exist to make
speculative decoding real and measurable on a CPU, and to be competent on workloads of their
own: the generated function, agent and repository suites (`synth-function@1`,
`synth-agent@2`, `synth-repository@2`), so that quality is measured, not assumed. They pass
almost nothing of the public suites (HumanEval, MBPP, BFCL, repository-mutants).

## Data

Generated training documents (`specverdict.suites.synth`, seed in `suites/synth/data/manifest.json`,
none of them an evaluation instance): {_docs(run)}.{_answers(run)}

Python source of the standard library of CPython {run["python"]} ({run["corpus_files"]} modules;
`test`, `tests`, `idle_test`, `lib2to3` and `site-packages` excluded; files over 200 KB skipped;
corpus sha256 `{run["corpus_sha256"]}`), plus {run["corpus_chat_exchanges"]} chat exchanges built
from its documented functions (a prose request naming the function and its docstring, answered with
the function in a fenced block). 2% of the modules are held out for validation. Python Software
Foundation License; the tokenizer and weights are derived works released with specverdict.

Standard-library tokens: {run["train_tokens"]:,} for training ({_stdlib_share(run)} of its windows kept as
documents, the rest of it as fillers of packed windows), {run["valid_tokens"]:,} for validation.

## Models

| model | layout | parameters | steps | train time | validation loss (nats/token) |
|---|---|---|---|---|---|
| target | GPT-2, {tcfg["n_layer"]} layers, d={tcfg["n_embd"]}, {tcfg["n_head"]} heads of {tcfg["n_embd"] // tcfg["n_head"]}, context {tcfg["n_positions"]} | {t["params"]:,} | {_target_steps(report)} | {_target_time(report)} | {t["valid_loss"]} |
| draft | GPT-2, {dcfg["n_layer"]} layer, d={dcfg["n_embd"]}, {dcfg["n_head"]} heads of {dcfg["n_embd"] // dcfg["n_head"]}, context {dcfg["n_positions"]} | {d["params"]:,} | {d["steps"]} | {d["train_seconds"]:.0f} s | {d["valid_loss"]} |
| mtp | one recurrent MTP module on the frozen target (DeepSeek-style, no attention) | {m["params"]:,} | {m["steps"]} | {m["train_seconds"]:.0f} s | n/a |

- Tokenizer: byte-level BPE, {run["vocab"]} tokens (`tokenizers`), special tokens `<|endoftext|>`
  (EOS), `<|im_start|>`, `<|im_end|>`; ChatML chat template with Hermes-style tool calls.
- Greedy top-1 agreement with the target on held-out text (teacher-forced, an acceptance proxy):
  draft {d["top1_agreement"]}; MTP by draft position {m["top1_agreement_by_position"]}.
- Files: target {_size(weights / "target" / "model.safetensors")}, draft
  {_size(weights / "draft" / "model.safetensors")}, MTP {_size(weights / "mtp" / "model.safetensors")}
  (float32 safetensors, Hugging Face `GPT2LMHeadModel` tensor names, tied LM head).

## Training

`{run["command"]}` with seed {run["seed"]}, torch {run["torch"]} on {run["threads"]} CPU threads,
{_precision(run)}, AdamW (betas 0.9/0.95, weight decay 0.1 on matrices), warm-up then cosine decay,
batches of {run["batch"]} windows of {run["ctx"]} tokens (the full context from the first step).
Windows start at a document's first token; generated documents are trained on their answers
only. Greedy pass@1 on 40 function tasks during training: {_progress(t)}.
Total wall time {run["total_seconds"] / 60:.1f} minutes.
{_lineage(report)}{_frozen_modules(report, weights)}{_quality(weights)}"""


#: modules trained on the frozen target after it (``--heads-only``), in the card's order
FROZEN_MODULES = {
    "medusa": "Medusa heads: {num_heads} independent residual heads on the target's last "
    "hidden state, tied LM head (head i drafts the token i + 1 after the pending one)",
    "dflash": "block drafter: the target's last hidden state fused with the pending token's "
    "embedding, {block_size} learned position embeddings, one residual MLP, tied LM head; a "
    "block of up to {block_size} drafts in one pass",
    "eagle3": "EAGLE-3 draft decoder: the target's layers {target_layers} fused, one decoder "
    "layer ({n_head} heads of {head_dim}) with its own KV cache, tied LM head; drafts "
    "autoregressively on its own outputs (agreement of drafting steps 1 and 2)",
    "dspark": "DSpark drafter: the block drafter's backbone ({block_size} positions, one pass) "
    "plus a rank-{markov_rank} Markov head (each position's logits get a term from the "
    "embedding of the token drafted before it) and a confidence head (a sigmoid per position); "
    "agreement given the target's top-1 before each position",
}


def _frozen_modules(report: dict[str, Any], weights: Path) -> str:
    present = [name for name in FROZEN_MODULES if name in report]
    if not present:
        return ""
    lines = [
        "",
        "## Modules trained on the frozen target",
        "",
        "Trained after the models above, on the shipped target with its weights frozen, against "
        "its own next-token distributions (self-distillation); the target, draft and MTP head "
        "are unchanged.",
        "",
        "| module | layout | parameters | steps | train time | file | top-1 agreement by draft "
        "position |",
        "|---|---|---|---|---|---|---|",
    ]
    commands = []
    for name in present:
        m = report[name]
        cfg = json.loads((weights / name / "config.json").read_text())
        layout = FROZEN_MODULES[name].format(**cfg)
        lines.append(
            f"| {name} | {layout} | {m['params']:,} | {m['steps']} | {m['train_seconds']:.0f} s "
            f"| {_size(weights / name / 'model.safetensors')} | {m['top1_agreement_by_position']} |"
        )
        if m["command"] not in commands:
            commands.append(m["command"])
    if "dspark" in present:
        m = report["dspark"]
        lines += [
            "",
            f"DSpark's confidence head on {m['calibration_positions']:,} held-out positions: "
            f"Brier score {m['confidence_brier']}, expected calibration error "
            f"{m['confidence_ece']} (ten bins); mean confidence by position "
            f"{m['confidence_by_position']} against the agreement above. "
            f"Initialised from {m['initialised_from']}.",
        ]
    lines += [
        "",
        "Agreement is measured as for the draft and the MTP head (teacher-forced, held-out text). "
        "Trained by "
        + ", then ".join(f"`{c}`" for c in commands)
        + f" (torch {report[present[0]]['torch']}, {report[present[0]]['threads']} CPU thread(s)); "
        "windows of target states computed once and positions trained a step: "
        + ", ".join(
            f"{n} {report[n]['pool_windows']} and {report[n]['positions_per_step']:,}"
            for n in present
        )
        + ".",
    ]
    return "\n".join(lines) + "\n"


def _target_phases(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every phase that trained the target: the lineage, then this run if it trained it."""
    t = report["target"]
    this = [{"target_steps": t["steps"], "target_train_seconds": t["train_seconds"]}]
    return [*report.get("lineage", []), *(this if t["steps"] else [])]


def _target_steps(report: dict[str, Any]) -> str:
    phases = _target_phases(report)
    if len(phases) < 2:
        return str(report["target"]["steps"])
    steps = " + ".join(str(p["target_steps"]) for p in phases)
    return f"{sum(p['target_steps'] for p in phases):,} ({steps}, {len(phases)} phases)"


def _target_time(report: dict[str, Any]) -> str:
    phases = _target_phases(report)
    if len(phases) < 2:
        return f"{report['target']['train_seconds']:.0f} s"
    return f"{sum(p['target_train_seconds'] for p in phases):.0f} s"


def _answers(run: dict[str, Any]) -> str:
    out = ""
    stubs = [
        f"{run[key]:.0%} of the {stage} documents"
        for key, stage in (("agent_stub", "agent"), ("repository_stub", "repository"))
        if run.get(key)
    ]
    if stubs:
        out += f" Stub tasks (implement a function from its docstring): {' and '.join(stubs)}."
    if run.get("agent_recovery"):
        out += (
            f" {run['agent_recovery']:.0%} of the agent documents first make a mistake and"
            " recover from it (the mistaken turns are not trained on)."
        )
    share = run.get("repository_function", 0.0)
    if share:
        part = "Every" if share >= 1 else f"{share:.0%} of the"
        out += (
            f" {part} repository bug-fix document answers with one search/replace block that"
            " replaces the whole buggy function by the fixed one."
        )
    return out


def _stdlib_share(run: dict[str, Any]) -> str:
    """The share of standard-library windows kept as documents, from the report or the
    command line it records (the trainer's default is one half)."""
    share = run.get("stdlib_fraction")
    if share is None:
        words = run.get("command", "").split()
        share = (
            float(words[words.index("--stdlib-fraction") + 1])
            if "--stdlib-fraction" in words
            else 0.5
        )
    return f"{float(share):.0%}"


def _docs(run: dict[str, Any]) -> str:
    docs, toks = run.get("synth_documents", {}), run.get("synth_tokens", {})
    return ", ".join(f"{docs[k]:,} {k} ({toks.get(k, 0):,} tokens)" for k in docs) or "none"


def _precision(run: dict[str, Any]) -> str:
    """How the steps were computed; reports written before ``--precision`` existed used bf16."""
    precision = run.get("precision", "bf16")
    text = "bf16 autocast" if precision == "bf16" else "fp32"
    probed = run.get("precision_probe_seconds")
    if probed:
        text += f" (chosen by timing both on this CPU: {probed['fp32']} s fp32, {probed['bf16']} s bf16)"
    return text


def phase_summary(report: dict[str, Any]) -> dict[str, Any]:
    """What a later phase records of the run it warm-started from."""
    run, t = report["run"], report["target"]
    return {
        "command": run["command"],
        "precision": run.get("precision", "bf16"),
        "target_steps": t["steps"],
        "target_train_seconds": t["train_seconds"],
        "target_valid_loss": t["valid_loss"],
        "function_pass_by_step": t.get("function_pass_by_step", []),
        "total_seconds": run["total_seconds"],
    }


def lineage_of(init_target: Path | None) -> list[dict[str, Any]]:
    """The earlier phases of a warm start from ``init_target``: the lineage its run recorded,
    then that run itself unless it kept its target as it was (``--target-steps 0``: a run that
    only trained the draft and the MTP head is no phase of the target). Read from the
    ``training_report.json`` beside the target's folder; empty when there is none."""
    if init_target is None:
        return []
    path = init_target.parent / "training_report.json"
    if not path.exists():
        return []
    prior: dict[str, Any] = json.loads(path.read_text())
    this = [phase_summary(prior)] if prior["target"]["steps"] else []
    return [*prior.get("lineage", []), *this]


def _lineage(report: dict[str, Any]) -> str:
    phases = report.get("lineage", [])
    if not phases:
        return ""
    lines = [
        "",
        "The target was warm-started; the phases before this run, first to last:",
        "",
        "| phase | command | precision | target steps | target train time | validation loss "
        "| greedy pass@1 during training | wall time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n, p in enumerate(phases, 1):
        lines.append(
            f"| {n} | `{p['command']}` | {p['precision']} | {p['target_steps']} | "
            f"{p['target_train_seconds']:.0f} s | {p['target_valid_loss']} | "
            f"{_progress({'function_pass_by_step': p['function_pass_by_step']})} | "
            f"{p['total_seconds'] / 60:.1f} min |"
        )
    return "\n".join(lines) + "\n"


def _progress(t: dict[str, Any]) -> str:
    rows = t.get("function_pass_by_step", [])
    return ", ".join(f"{r['function_pass']:.0%} at step {r['step']}" for r in rows) or "n/a"


def _quality(weights: Path) -> str:
    path = weights / "quality.json"
    if not path.exists():
        return ""
    q = json.loads(path.read_text())
    lines = [
        "",
        "## Measured quality",
        "",
        f"Greedy, every evaluation instance, through the reference server and the sandbox "
        f"(`python -m specverdict.lab.train.quality`, `{q['campaign']}`, "
        f"{q['seconds'] / 60:.1f} minutes).",
        "",
        "| stage | configuration | passed | pass rate | tool-call parse success |",
        "|---|---|---|---|---|",
    ]
    for stage, rows in q["stages"].items():
        for label, row in rows.items():
            parse = row.get("parse_success")
            parse_text = "" if parse is None else f"{parse:.1%}"
            lines.append(
                f"| {stage} | {label} | {row['passed']} / {row['n']} | "
                f"{row['pass_rate']:.1%} | {parse_text} |"
            )
    kinds = [
        f"{stage} {kind} {k['passed']} / {k['n']}"
        for stage, rows in q["stages"].items()
        for label, row in rows.items()
        if label == "none"
        for kind, k in row.get("by_kind", {}).items()
    ]
    if kinds:
        lines += ["", f"The baseline by kind of task: {', '.join(kinds)}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    weights = (
        Path(args[0]) if args else Path(__file__).resolve().parents[2] / "reference" / "weights"
    )
    report = json.loads((weights / "training_report.json").read_text())
    (weights / "MODEL_CARD.md").write_text(render_model_card(report, weights))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
