"""``specverdict suites``: list, show, prepare and score, with the exit codes of ``main``."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from specverdict.cli.suites import suites
from specverdict.errors import SpecverdictError
from specverdict.sandbox import Sandbox
from tests.integration.suites.test_evalplus import HUMANEVAL_ROWS, _write


def run(args: list[str]) -> tuple[int, str]:
    """Invoke as ``specverdict.cli.main.main`` does: user errors exit 2 in one line."""
    runner = CliRunner()
    result = runner.invoke(suites, args, standalone_mode=False, catch_exceptions=True)
    exc = result.exception
    if isinstance(exc, SystemExit):
        return int(exc.code or 0), result.output
    if isinstance(exc, click.ClickException | SpecverdictError):
        message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
        assert "\n" not in message
        return 2, message
    if exc is not None:
        raise exc
    return 0, result.output


@pytest.fixture(autouse=True)
def _cache(suite_cache: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECVERDICT_CACHE_DIR", str(suite_cache))


@pytest.mark.parametrize("command", [[], ["list"], ["show"], ["prepare"], ["score"]])
def test_every_command_has_an_example(command: list[str]) -> None:
    result = CliRunner().invoke(suites, [*command, "--help"])
    assert result.exit_code == 0
    assert "Example: specverdict suites" in result.output


def test_list_and_show() -> None:
    code, out = run(["list", "--json"])
    assert code == 0
    names = {row["suite"] for row in json.loads(out)}
    assert {"humaneval@1", "humaneval-chat@1", "mbpp-plus@1", "builtin-code@1"} <= names
    code, out = run(["show", "humaneval@1", "--json"])
    info = json.loads(out)
    assert code == 0 and info["size"] == 164 and info["stage"] == "function"
    assert info["licence"].startswith("MIT") and info["version"] == 1


def test_score_exit_codes(tmp_path: Path) -> None:
    right = tmp_path / "right.txt"
    right.write_text(
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
    )
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("    return numbers[99]\n")
    code, out = run(["score", "humaneval@1", "HumanEval/0", "--answer", str(right)])
    assert code == 0 and out.startswith("HumanEval/0: passed")
    code, out = run(["score", "humaneval@1", "HumanEval/0", "--answer", str(wrong), "--json"])
    result = json.loads(out)
    assert code == 1
    assert (result["outcome"], result["class"]) == ("error", "error:IndexError")
    assert result["detail"]["base_passed"] is False


def test_score_reads_a_chat_answer_when_asked(tmp_path: Path) -> None:
    answer = tmp_path / "chat.txt"
    answer.write_text(
        "Here:\n```python\ndef truncate_number(number):\n    return number % 1.0\n```\nDone."
    )
    code, out = run(
        ["score", "humaneval@1", "HumanEval/2", "--answer", str(answer), "--mode", "chat"]
    )
    assert code == 0, out
    code, out = run(["score", "humaneval@1", "HumanEval/2", "--answer", str(answer)])
    assert code == 1 and "syntax_error" in out  # read as a completion, prose is not Python


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["score", "humaneval@9", "HumanEval/0", "--answer", "{answer}"], "did you mean"),
        (["score", "humaneval@1", "HumanEval/999", "--answer", "{answer}"], "no task"),
        (["score", "builtin-code@1", "builtin-code/0", "--answer", "{answer}"], "runs no code"),
        (["score", "humaneval@1", "HumanEval/0", "--answer", "{answer}", "--data", "x"], "--data"),
        (["show", "mbpp-plus@1", "--data", "{missing}"], "not found"),
    ],
)
def test_user_errors_are_one_line_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    answer = tmp_path / "a.txt"
    answer.write_text("    return True\n")
    filled = [a.format(answer=answer, missing=tmp_path / "none.jsonl") for a in args]
    code, message = run(filled)
    assert code == 2 and needle in message


def test_prepare_an_evalplus_file(tmp_path: Path) -> None:
    data = _write(tmp_path / "HumanEvalPlus.jsonl", HUMANEVAL_ROWS, gz=False)
    code, out = run(["prepare", "humaneval-plus@1", "--data", str(data), "--json"])
    info = json.loads(out)
    assert code == 0
    assert (info["tasks"], info["base_inputs"], info["extra_inputs"]) == (3, 5, 6)
    code, out = run(["show", "humaneval-plus@1", "--data", str(data), "--json"])
    assert json.loads(out)["cached_tasks"] == 3
