"""Your own dataset as a stage: rows refused in one line, every scorer judged on exact answers
(the sandboxed ones in the real sandbox), and identity by content, not by path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import CommandScorer, ReferenceScorer, TestsScorer
from specverdict.errors import ConfigError
from specverdict.suites import suite_for
from specverdict.suites.custom import load_rows
from specverdict.suites.custom.rows import Row
from specverdict.suites.custom.scorers import (
    from_result,
    score_command,
    score_python,
    score_reference,
    score_tests,
)
from specverdict.suites.functional import default_sandbox

CAMPAIGN = """\
name: own
engine: {{kind: reference}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates: [{{method: mtp, k: 2}}]
stages:
  function: {{dataset: {{path: {path}, format: {fmt}, scorer: {scorer}}}}}
"""


def write(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    ("lines", "fmt", "needs", "expected"),
    [
        (['{"prompt": "x"}', "not json"], "completions", None, ":2: not a JSON object"),
        (['["a list"]'], "completions", None, ":1: a row must be a JSON object, got list"),
        (
            ['{"prompt": "x", "refrence": 1}'],
            "completions",
            None,
            ":1: field refrence: unknown field; did you mean reference? (a row has id, prompt,",
        ),
        (['{"prompt": "x", "zzz": 1}'], "completions", None, ":1: field zzz: unknown field (a"),
        (['{"prompt": "x", "max_tokens": 0}'], "completions", None, ":1: field max_tokens:"),
        (
            ['{"messages": [{"role": "user", "content": "hi"}]}'],
            "completions",
            None,
            ":1: field prompt: a completions dataset needs a prompt",
        ),
        (['{"prompt": "x"}'], "chat", None, ":1: field messages: a chat dataset needs messages"),
        (['{"prompt": "x", "messages": []}'], "chat", None, ":1: give either prompt"),
        (
            ['{"id": "a", "prompt": "x"}', "", '{"id": "a", "prompt": "y"}'],
            "completions",
            None,
            ":3: field id: 'a' is also the id of line 1",
        ),
        (['{"prompt": "x"}'], "completions", "reference", ":1: field reference:"),
        (['{"prompt": "x", "tests": ""}'], "completions", "tests", ":1: field tests:"),
        ([""], "completions", None, "the dataset has no rows"),
    ],
)
def test_a_bad_row_is_one_line_naming_file_line_and_field(
    tmp_path: Path, lines: list[str], fmt: str, needs: str | None, expected: str
) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError) as err:
        load_rows(path, fmt, needs)  # type: ignore[arg-type]
    assert str(err.value).startswith(str(path)) and expected in str(err.value)
    assert "\n" not in str(err.value)


def test_rows_get_ids_and_keep_what_the_request_needs(tmp_path: Path) -> None:
    path = write(
        tmp_path / "d.jsonl",
        [
            {"prompt": "a", "category": "x", "max_tokens": 7, "stop": ["\n\n"]},
            {"id": "b", "prompt": "b", "metadata": {"len": 3}},
        ],
    )
    rows = load_rows(path, "completions")
    assert [sid for sid, _ in rows] == ["row-1", "b"]
    assert rows[0][1].max_tokens == 7 and rows[1][1].metadata == {"len": 3}


@pytest.mark.parametrize(
    ("mode", "reference", "answer", "passed"),
    [
        ("exact", "42", " 42\n", True),
        ("exact", "42", "The answer is 42", False),
        ("normalized", "Paris", "  paris. ", True),
        ("normalized", "New  York", "new york!", True),
        ("normalized", "Paris", "Lyon", False),
        ("regex", r"\bdef \w+\(", "def f(x):", True),
        ("regex", r"^yes$", "no", False),
        ("numeric", 3.0, "so it is 2.9999999", True),
        ("numeric", "1,000", "total: 1000 items", True),
        ("numeric", 3, "between 3 and 4", False),  # the last number counts
        ("json", {"a": [1, 2]}, 'Result: {"a": [1, 2]} done', True),
        ("json", {"a": [1, 2]}, '{"a": [2, 1]}', False),
    ],
)
def test_reference_scorers(mode: str, reference: object, answer: str, passed: bool) -> None:
    row = Row(prompt="q", reference=reference)  # type: ignore[arg-type]
    score = score_reference(ReferenceScorer(reference=mode), row, answer)  # type: ignore[arg-type]
    assert score.passed is passed
    assert score.outcome == ("passed" if passed else score.outcome) and score.outcome


def test_no_answer_is_its_own_failure_class() -> None:
    row = Row(prompt="q", reference=5)
    assert score_reference(ReferenceScorer(reference="numeric"), row, "none").outcome == "no_answer"
    assert score_reference(ReferenceScorer(reference="json"), row, "[oops").outcome == "no_answer"


def test_row_tests_run_in_the_sandbox_against_prompt_and_completion() -> None:
    sandbox = default_sandbox()
    prompt = "def double(x):\n"
    asserts = Row(
        prompt=prompt, tests="assert double(2) == 4\nassert double(-1) == -2", stop=("\ndef",)
    )
    functions = Row(prompt=prompt, tests="def test_zero():\n    assert double(0) == 0\n")
    cfg = TestsScorer(tests="python")
    good = "    return 2 * x\ndef after_the_stop(:\n"  # cut at the stop: the junk never runs
    assert score_tests(cfg, asserts, good, sandbox).passed
    assert score_tests(cfg, functions, "    return x + x\n", sandbox).passed
    wrong = score_tests(cfg, asserts, "    return x ** 2\n", sandbox)
    assert not wrong.passed and wrong.outcome == "tests_failed"
    hang = score_tests(
        TestsScorer(tests="python", timeout_s=1.0), asserts, "    while True: pass\n", sandbox
    )
    assert not hang.passed
    chat = Row(
        messages=({"role": "user", "content": "write double"},), tests="assert double(3) == 6"
    )  # type: ignore[arg-type]
    fenced = "Here:\n```python\ndef double(x):\n    return x * 2\n```\n"
    assert score_tests(cfg, chat, fenced, sandbox).passed
    assert score_tests(cfg, chat, "   ", sandbox).outcome == "no_code"


def test_python_scorer_results_and_failures() -> None:
    row = Row(prompt="q")
    assert score_python(lambda r, a, c: a == "yes", row, ("yes", [])).passed
    got = score_python(lambda r, a, c: {"passed": False, "outcome": "rude"}, row, ("no", []))
    assert (got.passed, got.outcome) == (False, "rude")

    def boom(r: object, a: object, c: object) -> bool:
        raise RuntimeError("bad scorer")

    failed = score_python(boom, row, ("x", []))
    assert failed.outcome == "scorer_error" and "RuntimeError: bad scorer" in (failed.detail or "")
    assert from_result("maybe").outcome == "scorer_error"


def test_command_scorer_runs_your_program_in_the_sandbox(tmp_path: Path) -> None:
    script = tmp_path / "judge.py"
    script.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "ok = data['answer'].strip() == str(data['row']['reference'])\n"
        "print(json.dumps({'passed': ok, 'detail': 'seen ' + data['answer'].strip()}))\n"
    )
    cfg = CommandScorer(command=["{python}", "judge.py"], files=[str(script)])
    row = Row(prompt="q", reference="7")
    sandbox = default_sandbox()
    yes = score_command(cfg, row, ("7", []), sandbox)
    assert yes.passed and yes.detail == "seen 7"
    assert not score_command(cfg, row, ("8", []), sandbox).passed
    broken = CommandScorer(command=["{python}", "-c", "print('no json')"])
    assert score_command(broken, row, ("7", []), sandbox).outcome == "scorer_error"


def test_identity_is_the_content_not_the_path(tmp_path: Path) -> None:
    rows = [{"prompt": "a", "reference": "1"}, {"prompt": "b", "reference": "2"}]
    one = write(tmp_path / "one.jsonl", rows)
    (tmp_path / "elsewhere").mkdir()
    moved = write(tmp_path / "elsewhere" / "one.jsonl", rows)
    changed = write(tmp_path / "changed.jsonl", [*rows, {"prompt": "c", "reference": "3"}])
    scorer = "{reference: exact}"

    def fingerprints(path: Path, where: Path) -> list[str]:
        text = CAMPAIGN.format(path=path.name, fmt="completions", scorer=scorer)
        plan = build_plan(parse_campaign(text, where / "c.yaml"))
        return [r.fingerprint for r in plan.runs]

    assert fingerprints(one, tmp_path) == fingerprints(moved, tmp_path / "elsewhere")
    assert fingerprints(one, tmp_path) != fingerprints(changed, tmp_path)
    plan = build_plan(
        parse_campaign(
            CAMPAIGN.format(path="one.jsonl", fmt="completions", scorer=scorer), tmp_path / "c.yaml"
        )
    )
    suite = suite_for(plan.runs[0])
    assert [s.id for s in suite.samples()] == ["row-1", "row-2"] and suite.scores()
    one.write_text(one.read_text() + json.dumps({"prompt": "late", "reference": "x"}) + "\n")
    with pytest.raises(ConfigError, match="the file changed since these runs were planned"):
        suite_for(plan.runs[0])


def test_a_stage_has_a_suite_or_a_dataset_and_the_scorer_its_fields(tmp_path: Path) -> None:
    write(tmp_path / "d.jsonl", [{"prompt": "a"}])
    both = CAMPAIGN.format(path="d.jsonl", fmt="completions", scorer="none").replace(
        "{dataset:", "{suite: humaneval@1, dataset:"
    )
    with pytest.raises(ConfigError, match="give a stage one of suite"):
        parse_campaign(both, tmp_path / "c.yaml")
    bad = CAMPAIGN.format(path="d.jsonl", fmt="completions", scorer="{reference: fuzzy}")
    with pytest.raises(ConfigError, match=r"stages\.function\.dataset\.scorer"):
        parse_campaign(bad, tmp_path / "c.yaml")
    plan = build_plan(
        parse_campaign(
            CAMPAIGN.format(path="d.jsonl", fmt="completions", scorer="none"), tmp_path / "c.yaml"
        )
    )
    assert not suite_for(plan.runs[0]).scores()  # no scorer: no quality signal, and it says so
    missing = CAMPAIGN.format(path="nope.jsonl", fmt="completions", scorer="none")
    with pytest.raises(ConfigError, match=r"nope\.jsonl: cannot read the stage's dataset"):
        build_plan(parse_campaign(missing, tmp_path / "c.yaml"))
    regex = write(tmp_path / "r.jsonl", [{"prompt": "a", "reference": "(unclosed"}])
    text = CAMPAIGN.format(path=regex.name, fmt="completions", scorer="{reference: regex}")
    with pytest.raises(ConfigError, match=r"row row-1 .*not a regular expression"):
        suite_for(build_plan(parse_campaign(text, tmp_path / "c.yaml")).runs[0])
