"""Build the generated suites' evaluation files and the training documents.

``python -m specverdict.lab.synth.build`` writes the evaluation split of each stage to
``specverdict/suites/synth/data/`` (shipped with the package) and a manifest with the seeds,
counts and a SHA-256 of each file. Training documents are drawn at training time from another
seed (``training_documents``) and never hold an evaluation prompt: every training draw whose
prompt hashes like an evaluation prompt is dropped (``tests/unit/suites/synth/test_generator.py`` checks both
splits).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specverdict.lab.synth.functions import FAMILIES, Instance, example_of, make_instance
from specverdict.lab.synth.tasks import (
    STUB,
    AgentSpec,
    RepoSpec,
    agent_task,
    enclosing_function,
    function_answer,
    repository_task,
    search_replace_answer,
    stub_agent_task,
)
from specverdict.suites.synth.data import DATA, FILES, digest
from specverdict.suites.values import encode

EVAL_SEED = 20261201
TRAIN_SEED = 20261202
COUNTS = {"function": 400, "agent": 120, "repository": 120}
#: share of the agent and repository evaluation tasks that are stubs (implement a function)
#: rather than bug fixes, spread evenly over the split
STUB_SHARE = {"agent": 2 / 3, "repository": 2 / 3}
#: share of held-out combinations among pipeline-family evaluation instances (see functions)


# -- evaluation split ---------------------------------------------------------------------


def function_record(instance: Instance, n: int) -> dict[str, Any]:
    prompt = instance.prompt(example_of(instance))
    return {
        "task_id": f"synth-function/{n}",
        "family": instance.family,
        "combo": instance.combo,
        "prompt": prompt,
        "entry_point": instance.name,
        "solution": prompt + instance.body,
        "inputs": [encode(list(a)) for a in instance.inputs],
    }


def eval_functions(count: int, seed: int = EVAL_SEED) -> list[dict[str, Any]]:
    """``count`` instances, round-robin over the families (balanced), unique prompts."""
    rng = random.Random(seed)
    names = list(FAMILIES)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    i = 0
    while len(out) < count:
        family = names[i % len(names)]
        i += 1
        inst = make_instance(family, rng, "eval")
        if inst is None:
            continue
        rec = function_record(inst, len(out))
        if rec["prompt"] in seen:
            continue
        seen.add(rec["prompt"])
        out.append(rec)
    return out


def is_stub(n: int, share: float) -> bool:
    """Whether the ``n``-th task of a split is a stub, ``share`` of them spread evenly."""
    return int((n + 1) * share) > int(n * share)


def kind_of(spec: AgentSpec | RepoSpec) -> str:
    """``stub`` (implement a function) or ``bugfix``."""
    return "stub" if spec.old.strip() == STUB.strip() else "bugfix"


def agent_record(spec: AgentSpec) -> dict[str, Any]:
    return {
        "task_id": spec.id,
        "family": spec.family,
        "instruction": spec.instruction,
        "files": spec.files,
        "tests": spec.tests,
        "gold": {"old": spec.old, "new": spec.new},
    }


def eval_agent(
    count: int, seed: int = EVAL_SEED + 1, stub_share: float | None = None
) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    names = list(FAMILIES)
    share = STUB_SHARE["agent"] if stub_share is None else stub_share
    out: list[dict[str, Any]] = []
    i = 0
    while len(out) < count:
        make = stub_agent_task if is_stub(len(out), share) else agent_task
        spec = make(names[i % len(names)], rng, "eval", len(out))
        i += 1
        if spec is not None:
            # a split with stubs says each task's kind (a split of bug fixes only, as shipped
            # before stubs existed, stays byte for byte what it was)
            out.append({**agent_record(spec), **({"kind": kind_of(spec)} if share else {})})
    return out


def repository_record(spec: RepoSpec) -> dict[str, Any]:
    return {
        "task_id": spec.id,
        "family": spec.family,
        "issue": spec.issue,
        "files": spec.files,
        "hidden_tests": spec.hidden_tests,
        "fix": [[spec.path, spec.old + "\n", spec.new + "\n"]],
        "fail_to_pass": list(spec.fail_to_pass),
        "pass_to_pass": list(spec.pass_to_pass),
    }


def eval_repository(
    count: int, seed: int = EVAL_SEED + 2, stub_share: float | None = None
) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    share = STUB_SHARE["repository"] if stub_share is None else stub_share
    out: list[dict[str, Any]] = []
    while len(out) < count:
        spec = repository_task(rng, "eval", len(out), stub=is_stub(len(out), share))
        if spec is not None:
            out.append({**repository_record(spec), **({"kind": kind_of(spec)} if share else {})})
    return out


def eval_keys(records: dict[str, list[dict[str, Any]]]) -> set[str]:
    """Hashes of what must never appear in training: function prompts and solutions, agent
    and repository source files."""
    keys: set[str] = set()
    for rec in records["function"]:
        keys.add(digest(rec["prompt"]))
        keys.add(digest(rec["solution"]))
    for rec in records["agent"]:
        keys.update(digest(t) for t in rec["files"].values())
    for rec in records["repository"]:
        keys.update(digest(t) for p, t in rec["files"].items() if t)
    return keys


def write_eval(out: Path = DATA) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    records = {
        "function": eval_functions(COUNTS["function"]),
        "agent": eval_agent(COUNTS["agent"]),
        "repository": eval_repository(COUNTS["repository"]),
    }
    manifest: dict[str, Any] = {
        "generator": "specverdict.suites.synth",
        "eval_seed": EVAL_SEED,
        "train_seed": TRAIN_SEED,
        "families": len(FAMILIES),
        "files": {},
    }
    for stage, recs in records.items():
        text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in recs)
        (out / FILES[stage]).write_text(text)
        manifest["files"][stage] = {
            "file": FILES[stage],
            "count": len(recs),
            "sha256": digest(text),
        }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


# -- training documents ---------------------------------------------------------------------


@dataclass(frozen=True)
class Document:
    """A training document as segments: (text, trained on). Segment boundaries fall on a
    newline or a special token, where the tokenizer splits anyway, so tokenising segments apart
    gives the tokens the whole text gives."""

    stage: str
    segments: tuple[tuple[str, bool], ...]
    keys: tuple[str, ...]  # hashes checked against the evaluation split

    def edit_spans(self) -> list[tuple[int, int, int]]:
        """(segment, start, end): the characters where each edit of a trained segment differs
        between its old and new text (a replace_in_file call's arguments, a search/replace
        block's two sides), on both sides; the loss may weigh their tokens more."""
        out: list[tuple[int, int, int]] = []
        for i, (text, trained) in enumerate(self.segments):
            if not trained:
                continue
            for a, b in _edit_sides(text):
                for span in _differing(text, a, b):
                    out.append((i, *span))
        return out


def _edit_sides(text: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Spans of (old, new) in one rendered assistant turn: replace_in_file arguments (as JSON
    string bodies) or search/replace blocks."""
    found = []
    decoder = json.JSONDecoder()
    at = text.find('"old": "')
    while at >= 0:
        o0 = at + len('"old": ')
        _, o1 = decoder.raw_decode(text, o0)
        n_at = text.find('"new": "', o1)
        if n_at < 0:
            break
        n0 = n_at + len('"new": ')
        _, n1 = decoder.raw_decode(text, n0)
        found.append(((o0 + 1, o1 - 1), (n0 + 1, n1 - 1)))
        at = text.find('"old": "', n1)
    at = text.find("<<<<<<< SEARCH\n")
    while at >= 0:
        o0 = at + len("<<<<<<< SEARCH\n")
        mid = text.find("\n=======\n", o0)
        end = text.find("\n>>>>>>> REPLACE", mid) if mid >= 0 else -1
        if end < 0:
            break
        found.append(((o0, mid), (mid + len("\n=======\n"), end)))
        at = text.find("<<<<<<< SEARCH\n", end)
    return found


def _differing(text: str, a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The differing middles of text[a] and text[b] (common prefix and suffix removed), each
    widened by one character on both sides so an insertion or deletion still marks a token."""
    x, y = text[a[0] : a[1]], text[b[0] : b[1]]
    if x == y:
        return []
    pre = 0
    while pre < min(len(x), len(y)) and x[pre] == y[pre]:
        pre += 1
    suf = 0
    while suf < min(len(x), len(y)) - pre and x[-1 - suf] == y[-1 - suf]:
        suf += 1
    return [
        (max(a[0], a[0] + pre - 1), min(a[1], a[1] - suf + 1)),
        (max(b[0], b[0] + pre - 1), min(b[1], b[1] - suf + 1)),
    ]


def function_document(instance: Instance) -> Document:
    prompt = instance.prompt(example_of(instance))
    return Document(
        "function",
        ((prompt, False), (instance.body, True)),
        (digest(prompt), digest(prompt + instance.body)),
    )


def chat_segments(messages: list[dict[str, Any]], tools: Any) -> tuple[tuple[str, bool], ...]:
    """The rendered conversation, assistant turns trained on, everything else context."""
    from specverdict.reference.chat import render_chat

    segments: list[tuple[str, bool]] = []
    done = ""
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        before = render_chat(messages[:i], tools, add_generation_prompt=True)
        upto = render_chat(messages[: i + 1], tools, add_generation_prompt=False)
        assert before.startswith(done) and upto.startswith(before)
        segments.append((before[len(done) :], False))
        turn = upto[len(before) :]
        assert turn.endswith("<|im_end|>\n")
        # a turn marked ``train: False`` (a mistake the episode recovers from) is context only
        segments.append((turn[: -len("\n")], bool(m.get("train", True))))
        done = upto[: -len("\n")]
    full = render_chat(messages, tools, add_generation_prompt=False)
    segments.append((full[len(done) :], False))
    return tuple(segments)


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": args}}


def _assistant(name: str, args: dict[str, Any], train: bool = True) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [_call(name, args)], "train": train}


def test_summary(path: str, source: str, tests: dict[str, str]) -> str | None:
    """What ``run_tests`` shows the model for the one-module workspace ``{path: source}`` (the
    format of ``agent.testrun.read_report``), computed in this process; None when a test raises
    anything but an AssertionError or the module does not load (formats not reproduced here)."""
    import sys
    import types

    from specverdict.lab.synth.functions import call
    from specverdict.suites.agent.testrun import expected_tests

    module = path[: -len(".py")]
    mod = types.ModuleType(module)
    saved = sys.modules.get(module)
    try:
        exec(compile(source, path, "exec"), mod.__dict__)
        sys.modules[module] = mod
        outcomes: dict[str, str] = {}
        for test_path, text in tests.items():
            ns: dict[str, Any] = {}
            exec(compile(text, test_path, "exec"), ns)
            for name, fn in ns.items():
                if not name.startswith("test") or not callable(fn):
                    continue
                try:
                    call(fn, ())
                    outcomes[f"{test_path}::{name}"] = "passed"
                except AssertionError:
                    outcomes[f"{test_path}::{name}"] = "failed AssertionError:"
    except Exception:
        return None
    finally:
        if saved is None:
            sys.modules.pop(module, None)
        else:
            sys.modules[module] = saved
    expected = expected_tests(tests)
    if sorted(outcomes) != expected:
        return None
    passed = sum(v == "passed" for v in outcomes.values())
    lines = [f"{passed} passed, {len(expected) - passed} failed"]
    lines += [f"{n}: {outcomes[n]}" for n in expected if outcomes[n] != "passed"]
    return "\n".join(lines)


#: the mistakes a recovery episode starts with (see ``agent_document``)
RECOVERIES = ("noop", "noop_reread", "missing", "wrong")


def agent_document(
    spec: AgentSpec, recovery: str | None = None, rng: random.Random | None = None
) -> Document:
    """The reference trajectory (read, edit, test, finish); with ``recovery``, an episode that
    first makes a mistake and recovers from it, every tool output as the agent suite's tools
    write it. The mistaken turns are context, not trained on:

    * ``noop``: an edit whose new text equals its old text; the tests still fail (their real
      report), then the right edit;
    * ``noop_reread``: the same no-op edit, then the file read again, then the right edit;
    * ``missing``: an edit of text the file does not hold (the fixed line), the tool's error,
      the file read again, the right edit;
    * ``wrong``: another mutation of the line instead of the fix; the failing report, the file
      read again (showing the wrong line), the edit of that line into the fix.

    Falls back to the reference trajectory when the mistake cannot be built for ``spec``."""
    from specverdict.suites.agent.suite import SYSTEM_PROMPT
    from specverdict.suites.agent.testrun import expected_tests
    from specverdict.suites.agent.workspace import EDIT_TOOLS

    path = next(iter(spec.files))
    source = spec.files[path]
    n_tests = len(expected_tests(spec.tests))
    keys = [digest(t) for t in spec.files.values()] + stub_keys(source, path, spec.new)
    head: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": spec.instruction},
        _assistant("read_file", {"path": path}),
        {"role": "tool", "content": source},
    ]
    replaced = {"role": "tool", "content": f"replaced 1 occurrence in {path}"}
    fix_old = spec.old
    middle: list[dict[str, Any]] = []
    if recovery is not None and source.count(spec.old) == 1:
        summary = test_summary(path, source, spec.tests)
        if recovery in ("noop", "noop_reread") and summary is not None:
            middle = [
                _assistant(
                    "replace_in_file", {"path": path, "old": spec.old, "new": spec.old}, False
                ),
                replaced,
            ]
            if recovery == "noop":
                middle += [_assistant("run_tests", {}), {"role": "tool", "content": summary}]
            else:
                middle += [
                    _assistant("read_file", {"path": path}, False),
                    {"role": "tool", "content": source},
                ]
        elif recovery == "missing" and spec.new not in source:
            middle = [
                _assistant(
                    "replace_in_file", {"path": path, "old": spec.new, "new": spec.new}, False
                ),
                {"role": "tool", "content": f"error: the old text does not occur in {path}"},
                _assistant("read_file", {"path": path}),
                {"role": "tool", "content": source},
            ]
        elif recovery == "wrong" and rng is not None:
            from specverdict.lab.synth.tasks import mutations

            options = [m.strip() for m in mutations(spec.new, rng)]
            rng.shuffle(options)
            for wrong in options:
                if wrong in (spec.old, spec.new) or wrong in source:
                    continue
                edited = source.replace(spec.old, wrong, 1)
                if edited.count(wrong) != 1:
                    continue
                summary = test_summary(path, edited, spec.tests)
                if summary is None or summary.startswith(f"{n_tests} passed"):
                    continue
                middle = [
                    _assistant(
                        "replace_in_file", {"path": path, "old": spec.old, "new": wrong}, False
                    ),
                    replaced,
                    _assistant("run_tests", {}),
                    {"role": "tool", "content": summary},
                    _assistant("read_file", {"path": path}),
                    {"role": "tool", "content": edited},
                ]
                fix_old = wrong
                keys.append(digest(edited))
                break
    messages: list[dict[str, Any]] = [
        *head,
        *middle,
        _assistant("replace_in_file", {"path": path, "old": fix_old, "new": spec.new}),
        replaced,
        _assistant("run_tests", {}),
        {"role": "tool", "content": f"{n_tests} passed, 0 failed"},
        {"role": "assistant", "content": f"Fixed {path}: the tests pass."},
    ]
    return Document("agent", chat_segments(messages, list(EDIT_TOOLS)), tuple(keys))


def repository_document(spec: RepoSpec, whole_function: bool = False) -> Document:
    """The task's prompt answered with the one-line fix, or (``whole_function``) with a block
    replacing the whole function (``tasks.function_answer``)."""
    from specverdict.suites.synth.suites import repo_task_of, synth_repository_prompt

    task = repo_task_of(repository_record(spec))
    answer = function_answer(spec) if whole_function else search_replace_answer(spec)
    messages = [
        {"role": "user", "content": synth_repository_prompt(task)},
        {"role": "assistant", "content": answer},
    ]
    keys = tuple(digest(t) for t in spec.files.values() if t)
    keys += tuple(stub_keys(spec.files[spec.path], spec.path, spec.new))
    return Document("repository", chat_segments(messages, None), keys)


def stub_keys(source: str, path: str, body: str) -> list[str]:
    """For a stub task, the keys a function document of the same function would have (its
    prompt, its solution): a stub's answer is a function's solution, and no evaluation
    function may be trained on that way either. Nothing for a bug fix."""
    if STUB + "\n" not in source:
        return []
    whole = enclosing_function(source, STUB)
    prompt = whole[: -len(STUB + "\n")]
    body = body if body.startswith("    ") else "    " + body
    return [digest(prompt), digest(prompt + body.rstrip("\n") + "\n")]


def training_documents(
    counts: dict[str, int],
    forbidden: set[str],
    seed: int = TRAIN_SEED,
    agent_recovery: float = 0.0,
    repository_single: float = 0.0,
    repository_function: float = 0.0,
    agent_stub: float = 0.0,
    repository_stub: float = 0.0,
) -> Iterator[Document]:
    """Training documents per stage, none of whose keys is in ``forbidden``. A share
    ``agent_recovery`` of the agent documents are recovery episodes (``agent_document``), drawn
    from their own random stream: the tasks themselves do not change with the share. A share
    ``repository_single`` of the repository documents hold one module with one function (an
    easier form of the task; the evaluation split always has three). A share
    ``repository_function`` of them answer with the whole function (``tasks.function_answer``).
    Shares ``agent_stub`` and ``repository_stub`` of the agent and repository documents are
    stub tasks (implement a function) instead of bug fixes."""
    names = list(FAMILIES)
    recovery_rng = random.Random(seed + 10)
    single_rng = random.Random(seed + 11)
    answer_rng = random.Random(seed + 12)
    kind_rng = random.Random(seed + 13)

    def function(rng: random.Random, made: int) -> Document | None:
        inst = make_instance(rng.choice(names), rng, "train")
        return function_document(inst) if inst is not None else None

    def agent(rng: random.Random, made: int) -> Document | None:
        stub = agent_stub > 0 and kind_rng.random() < agent_stub
        spec = (stub_agent_task if stub else agent_task)(rng.choice(names), rng, "train", made)
        if spec is None:
            return None
        if agent_recovery > 0 and recovery_rng.random() < agent_recovery:
            return agent_document(spec, recovery_rng.choice(RECOVERIES), recovery_rng)
        return agent_document(spec)

    def repository(rng: random.Random, made: int) -> Document | None:
        single = repository_single > 0 and single_rng.random() < repository_single
        stub = repository_stub > 0 and kind_rng.random() < repository_stub
        spec = repository_task(rng, "train", made, 1 if single else 3, stub)
        if spec is None:
            return None
        whole = repository_function > 0 and answer_rng.random() < repository_function
        return repository_document(spec, whole)

    # one generator per stage, each from its own seed (seed, seed + 1, seed + 2): the agent
    # documents do not change when the function count does
    for offset, (stage, draw) in enumerate(
        (("function", function), ("agent", agent), ("repository", repository))
    ):
        rng = random.Random(seed + offset)
        made = 0
        while made < counts.get(stage, 0):
            doc = draw(rng, made)
            if doc is None or forbidden.intersection(doc.keys):
                continue
            made += 1
            yield doc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m specverdict.lab.synth.build")
    p.add_argument("--out", type=Path, default=DATA)
    args = p.parse_args(argv)
    manifest = write_eval(args.out)
    print(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
