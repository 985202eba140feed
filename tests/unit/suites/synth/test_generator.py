"""The generators: families, bug planting, the split between training and evaluation."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from specverdict.lab.synth.build import COUNTS, eval_keys, training_documents
from specverdict.lab.synth.functions import (
    FAMILIES,
    call,
    compile_function,
    held_out,
    make_instance,
)
from specverdict.lab.synth.tasks import STUB, enclosing_function, plant_bug
from specverdict.suites.synth.data import DATA, FILES, data_sha256, digest, load_eval


@pytest.fixture(scope="module")
def evals() -> dict[str, list[dict[str, Any]]]:
    return {stage: load_eval(stage) for stage in FILES}


def test_at_least_forty_families_and_the_shipped_counts(
    evals: dict[str, list[dict[str, Any]]],
) -> None:
    assert len(FAMILIES) >= 40
    assert {s: len(r) for s, r in evals.items()} == COUNTS
    assert COUNTS["function"] >= 300 and COUNTS["agent"] >= 100 and COUNTS["repository"] >= 100
    fams = {r["family"] for r in evals["function"]}
    assert fams == set(FAMILIES)  # every family is evaluated


def test_the_shipped_files_match_the_manifest_and_the_generator(tmp_path: Any) -> None:
    """Regenerating from the recorded seed gives the shipped files byte for byte."""
    from specverdict.lab.synth.build import write_eval

    manifest = json.loads((DATA / "manifest.json").read_text())
    for stage in FILES:
        assert data_sha256(stage) == manifest["files"][stage]["sha256"]
    fresh = write_eval(tmp_path)
    assert fresh["files"] == manifest["files"]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_draws_varied_instances_that_stubs_fail(family: str) -> None:
    rng = random.Random(7)
    made = [i for i in (make_instance(family, rng, "eval") for _ in range(20)) if i is not None]
    assert len(made) >= 4
    for inst in made:
        fn = compile_function_of(inst)
        outputs = {repr(call(fn, a)) for a in inst.inputs}
        assert len(outputs) >= 2  # a constant answer fails at least one hidden test
    assert len({(i.name, i.doc) for i in made}) >= 3


def compile_function_of(inst: Any) -> Any:
    from specverdict.lab.synth.functions import Draft

    return compile_function(Draft(inst.name, inst.params, inst.doc, inst.body, lambda r: ()))


def test_planted_bugs_are_caught_by_the_tests() -> None:
    rng = random.Random(3)
    planted = 0
    for family in FAMILIES:
        inst = make_instance(family, rng, "eval")
        if inst is None:
            continue
        bug = plant_bug(inst, rng)
        if bug is None:
            continue
        planted += 1
        args, want, got = bug.failing
        assert want != got and bug.buggy != bug.fixed
        assert call(compile_function_of(inst), args) == want
    assert planted >= len(FAMILIES) // 2


def test_held_out_combinations_are_never_drawn_for_training() -> None:
    rng = random.Random(11)
    combos = 0
    for _ in range(3000):
        inst = make_instance(rng.choice(list(FAMILIES)), rng, "train")
        assert inst is None or not (inst.combo and held_out(inst.combo))
        combos += inst is not None and bool(inst.combo)
    assert combos  # training instances with a combination were drawn and checked


def test_evaluation_includes_held_out_combinations(
    evals: dict[str, list[dict[str, Any]]],
) -> None:
    held = [r for r in evals["function"] if r["combo"] and held_out(r["combo"])]
    assert len(held) >= 30


def test_no_evaluation_prompt_or_solution_is_in_the_training_split(
    evals: dict[str, list[dict[str, Any]]],
) -> None:
    """Hash the training documents' texts (not the keys they carry) and compare with both
    splits' prompts, solutions and workspace files: the whole function split the training
    script draws, and the first thousand agent and repository documents."""
    forbidden = eval_keys(evals)
    prompts = {digest(r["prompt"]) for r in evals["function"]}
    solutions = {digest(r["solution"]) for r in evals["function"]}
    files = {digest(t) for r in evals["agent"] for t in r["files"].values()}
    files |= {digest(t) for r in evals["repository"] for t in r["files"].values() if t}
    counts = {"function": 40_000, "agent": 1_000, "repository": 1_000}
    seen = {"function": 0, "agent": 0, "repository": 0}
    # half of the agent and repository documents are stubs, whose answer is a function's body
    stubs = 0
    for doc in training_documents(counts, forbidden, agent_stub=0.5, repository_stub=0.5):
        seen[doc.stage] += 1
        text = "".join(t for t, _ in doc.segments)
        if doc.stage == "function":
            prompt = doc.segments[0][0]
            assert digest(prompt) not in prompts
            assert digest(text) not in solutions
        else:
            for segment, _ in doc.segments:
                for block in _code_blocks(segment):
                    assert digest(block) not in files
                    # a stub's file holds a function's prompt: never an evaluation one
                    if STUB + "\n" in block:
                        stubs += 1
                        whole = enclosing_function(block, STUB)
                        assert digest(whole[: -len(STUB + "\n")]) not in prompts
    assert seen == counts
    assert stubs >= 800


def _code_blocks(text: str) -> list[str]:
    """Workspace file texts inside a rendered document: tool results and fenced files."""
    out = []
    for part in text.split("<|im_start|>tool\n")[1:]:
        out.append(part.split("<|im_end|>")[0])
    for part in text.split("```python\n")[1:]:
        out.append(part.split("```")[0])
    return out


def test_recovery_and_single_function_documents_keep_the_split_and_train_only_the_recovery(
    evals: dict[str, list[dict[str, Any]]],
) -> None:
    """Recovery episodes show no evaluation file (the wrongly edited file included), never
    train on the mistaken turns, and every edit they train on has differing tokens to weigh;
    one-function repository documents keep the split as well."""
    forbidden = eval_keys(evals)
    files = {digest(t) for r in evals["agent"] for t in r["files"].values()}
    files |= {digest(t) for r in evals["repository"] for t in r["files"].values() if t}
    counts = {"agent": 60, "repository": 30}
    mistakes = 0
    for doc in training_documents(counts, forbidden, 7, agent_recovery=1.0, repository_single=1.0):
        for segment, trained in doc.segments:
            for block in _code_blocks(segment):
                assert digest(block) not in files
            if doc.stage == "agent" and not trained and "<|im_start|>assistant" not in segment:
                mistakes += '"name": "replace_in_file"' in segment
        trained_edits = [t for t, k in doc.segments if k and ("SEARCH" in t or '"old": ' in t)]
        assert trained_edits and doc.edit_spans()
    assert mistakes >= 30


def test_whole_function_repository_answers_fix_exactly_the_planted_bug() -> None:
    """A whole-function answer (``--repository-function``) copies the buggy function as the file
    holds it and writes it back with the one line fixed: applied by the repository stage's own
    parser and patcher, it gives the file the one-line fix gives, whichever module of the package
    and whichever of its functions holds the bug."""
    from specverdict.lab.synth.tasks import function_answer, repository_task
    from specverdict.suites.repository.apply import apply_patch
    from specverdict.suites.repository.patches import parse_answer

    rng = random.Random(11)
    checked = 0
    for n in range(80):
        spec = repository_task(rng, "train", n)
        if spec is None:
            continue
        answer = function_answer(spec)
        search = answer.split("<<<<<<< SEARCH\n", 1)[1].split("=======\n", 1)[0]
        assert search.startswith("def ") and spec.old + "\n" in search
        assert spec.files[spec.path].count(search) == 1
        got = apply_patch(spec.files, parse_answer(answer))
        want = dict(spec.files)
        want[spec.path] = want[spec.path].replace(spec.old + "\n", spec.new + "\n", 1)
        assert got == want
        checked += 1
    assert checked >= 40


def test_a_share_of_repository_documents_answer_with_the_whole_function() -> None:
    docs = list(training_documents({"repository": 40}, set(), 5, repository_function=0.5))
    whole = sum("<<<<<<< SEARCH\ndef " in "".join(t for t, _ in d.segments) for d in docs)
    assert 8 <= whole <= 32


def test_stub_tasks_fail_every_test_until_the_body_is_written() -> None:
    """Stub tasks (an evaluation share, ``STUB_SHARE``; a training option): the workspace fails
    every test of its function, the gold body put in place of the stub line passes them all;
    a repository stub's every test of that function is FAIL_TO_PASS."""
    from specverdict.lab.synth.build import eval_agent, eval_repository, is_stub, test_summary

    assert [is_stub(n, 2 / 3) for n in range(6)] == [False, True, True, False, True, True]
    agent = eval_agent(12, seed=5, stub_share=1.0)
    assert {r["kind"] for r in agent} == {"stub"}
    for r in agent:
        ((path, source),) = r["files"].items()
        assert r["gold"]["old"] == STUB.strip() and source.count(STUB + "\n") == 1
        n = len(r["tests"][next(iter(r["tests"]))].split("def test_")) - 1
        fixed = source.replace(r["gold"]["old"], r["gold"]["new"], 1)
        assert test_summary(path, source, r["tests"]) is None  # NotImplementedError: no report
        assert test_summary(path, fixed, r["tests"]) == f"{n} passed, 0 failed"
    for r in eval_repository(12, seed=5, stub_share=1.0):
        ((path, old, new),) = r["fix"]
        assert r["kind"] == "stub" and old == STUB + "\n" and r["files"][path].count(old) == 1
        assert new.startswith("    ") and "NotImplementedError" not in new
        target = {t.split("::")[0] for t in r["fail_to_pass"]}
        assert len(target) == 1 and not target & {t.split("::")[0] for t in r["pass_to_pass"]}


def test_stub_documents_write_the_body_and_recover_from_a_wrong_one() -> None:
    """A stub document's trained edit replaces the stub by the whole body; a recovery episode
    that writes a wrong body first is shown the failing report and fixes it."""
    docs = list(training_documents({"agent": 40}, set(), 9, agent_recovery=1.0, agent_stub=1.0))
    assert len(docs) == 40
    recovered = 0
    for doc in docs:
        text = "".join(t for t, _ in doc.segments)
        assert STUB + "\n" in text  # the file as read
        calls = text.count('<tool_call>{"name": "replace_in_file"')
        recovered += " failed\n" in text and calls == 2
    assert recovered >= 5
