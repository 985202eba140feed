"""Bad command lines, every command: each ends with one line on standard error and exit code 2,
never a traceback or a hang. The commands run in this process through ``main`` (what the
``specverdict`` script calls), so that an exception it does not map fails the test with its
traceback; the property tests give the commands that need no server random option values."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specverdict.campaign import parse_campaign
from specverdict.cli.main import main

CAMPAIGN = """\
name: t
engine: {kind: vllm, base_url: http://127.0.0.1:9}
model: {family: qwen3, served_name: q}
quantization: bf16
candidates:
  - {method: ngram, k: 4, base_url: http://127.0.0.1:10}
stages:
  function: {suite: synth-function@1, samples: {first: 8}}
load: {concurrency: 1}
"""

EXPECTATIONS = (
    '{"schema_version": 1, "campaign": "c", "engine": "vllm", "expectations": [{"stage": '
    '"function", "configuration": "eagle3 k=3", "load": "concurrency=1", "k": 3, "acceptance": '
    '{"point": 0.55, "lower": 0.4, "upper": 0.7}, "mean_accepted_length": {"point": 2.6, '
    '"lower": 2.2, "upper": 3.0}, "run_ids": ["r1"]}]}'
)


def run_main(*args: str) -> tuple[int, str, str]:
    """``specverdict ARGS`` in this process: (exit code, stdout, stderr). An exception ``main``
    lets through is raised here."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        mock.patch.object(sys, "argv", ["specverdict", *args]),
        mock.patch.object(sys, "stdin", io.StringIO("")),
    ):
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    return code, out.getvalue(), err.getvalue()


def assert_one_line_exit_2(args: tuple[str, ...], expected: str = "") -> str:
    code, out, err = run_main(*args)
    assert code == 2, (args, code, out, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("specverdict: error: "), (args, err)
    assert expected in lines[0], (expected, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("bad-options")
    (root / "c.yaml").write_text(CAMPAIGN)
    (root / "binary.dat").write_bytes(bytes(range(256)) * 4)
    (root / "exp.json").write_text(EXPECTATIONS)
    (root / "manifest.yaml").write_text('files:\n  a.txt: "' + "0" * 64 + '"\n')
    (root / "dir").mkdir()
    (root / "deep.yaml").write_text("files: " + "[" * 2000 + "]" * 2000 + "\n")
    (root / "deep.json").write_text("[" * 2000 + "]" * 2000)
    fifo = root / "fifo"
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
    yield {
        "campaign": str(root / "c.yaml"),
        "binary": str(root / "binary.dat"),
        "exp": str(root / "exp.json"),
        "manifest": str(root / "manifest.yaml"),
        "dir": str(root / "dir"),
        "deep": str(root / "deep.yaml"),
        "deep_json": str(root / "deep.json"),
        "fifo": str(fifo),
        "db": str(root / "none.sqlite"),
        "out": str(root / "out"),
    }


# (arguments with {placeholders} from the files fixture, what the one line says)
BAD = [
    (["validate", "{binary}"], "not UTF-8 text"),
    (["validate", "{fifo}"], "a campaign must be a YAML mapping"),
    (["validate", "/dev/zero"], "larger than 1 MiB"),
    (["validate", "{dir}"], "is a directory"),
    (["validate", "/nonexistent.yaml"], "No such file or directory"),
    (["run", "{campaign}", "--only", ""], "--only: empty"),
    (["run", "{campaign}", "--only", "  "], "--only: empty"),
    (["run", "{campaign}", "--resume", ""], "--resume: empty"),
    (["run", "{campaign}", "--address", ""], "--address: empty"),
    (["run", "{campaign}", "--until-decided", "--max-samples", "0"], "--max-samples"),
    (["run", "{campaign}", "--until-decided", "--batch", "-1"], "--batch"),
    (["run", "{campaign}", "--executor", "foo"], "--executor"),
    (["run", "{binary}"], "not UTF-8 text"),
    (["compare", "a", "b", "--db", "{db}", "--alpha", "nan"], "--alpha nan"),
    (["compare", "a", "b", "--db", "{db}", "--margin", "inf"], "--margin inf"),
    (["compare", "a", "b", "--db", "{db}", "--min-speedup", "0"], "--min-speedup"),
    (["compare", "a", "b", "--db", "{db}", "--fail-on", "bogus"], "--fail-on"),
    (["runs", "export", "x", "--db", "{db}", "--slo", "ttft:abc"], "--slo"),
    (["runs", "export", "x", "--db", "{db}", "--slo", "ttft:1,ttft:2"], "ttft given twice"),
    (["runs", "export", "x", "--db", "{db}", "--slo", "ttft:nan"], "finite"),
    (["expect", "--acceptance", "0.5", "--k", "100000000"], "--k"),
    (["expect", "--per-position", ",".join(["0.5"] * 300)], "at most 256"),
    (["expect", "--acceptance", "nan", "--k", "3"], "--acceptance"),
    (["expect", "--acceptance", "0.5", "--k", "3", "--claim", "bogus"], "--claim"),
    (["audit", "loader", "--load-report", "{binary}"], "not UTF-8 text"),
    (["audit", "loader", "--loaded-names", "{fifo}"], "a pipe, not a file"),
    (["audit", "overrides", "{binary}", "--dir", "{dir}"], "not UTF-8 text"),
    (["audit", "overrides", "{fifo}", "--dir", "{dir}"], "a pipe, not a file"),
    (["audit", "overrides", "{manifest}", "--dir", "{dir}", "--timeout", "nan"], "--timeout"),
    (["audit", "overrides", "{manifest}", "--dir", "{dir}", "--timeout", "-1"], "--timeout"),
    (["watch", "{exp}", "--target", "bogus", "--once"], "--target 'bogus'"),
    (["watch", "{exp}", "--target", "", "--once"], "--target ''"),
    (["watch", "{exp}", "--target", "http://h:99999", "--once"], "--target"),
    (["watch", "{exp}", "--target", "http://127.0.0.1:9", "--interval", "nan"], "--interval"),
    (["watch", "{exp}", "--target", "http://127.0.0.1:9", "--interval", "1e308"], "--interval"),
    (["watch", "{exp}", "--target", "http://127.0.0.1:9", "--listen", "99999"], "--listen"),
    (["watch", "{exp}", "--target", "http://127.0.0.1:9", "--listen", "-1"], "--listen"),
    (["watch", "{exp}", "--target", "http://127.0.0.1:9", "--max-polls", "0"], "--max-polls"),
    (["watch", "{exp}", "--target", "http://127.0.0.1:9", "--webhook", "bogus"], "--webhook"),
    (["watch", "{binary}", "--target", "http://127.0.0.1:9", "--once"], "not UTF-8 text"),
    (["watch", "{fifo}", "--target", "http://127.0.0.1:9", "--once"], "a pipe, not a file"),
    (["watch", "{exp}", "--target", "http://h:1", "--rules-out", "{fifo}"], "a pipe nobody reads"),
    (["watch", "{exp}", "--target", "http://h:1", "--once", "--state", "{fifo}"], "a pipe, not"),
    (["init", "--engine", "vllm", "--model", "m", "--out", "{fifo}", "--force"], "a pipe nobody"),
    (["runs", "export", "x", "--db", "{db}", "--out", "{fifo}"], "a pipe nobody reads"),
    (["audit", "overrides", "{deep}", "--dir", "{dir}"], "nested more than 32 levels deep"),
    (["audit", "overrides", "{manifest}", "--prefix", "'unclosed"], "No closing quotation"),
    (["watch", "{deep_json}", "--target", "http://h:1", "--once"], "nested more than 32 levels"),
    (["report", "{campaign}", "--db", "{db}", "--out", os.devnull], "not a folder"),
    (["export", "mlflow", "{campaign}", "--db", "{db}", "--tracking-uri", ""], "--tracking-uri"),
    (["export", "mlflow", "{campaign}", "--db", "{db}", "--tracking-uri", "x://y"], "--tracking"),
    (["suites", "show", ""], "unknown suite"),
    (["init", "--engine", "vllm", "--model", "m", "--family", ""], "--family: empty"),
    (["schema", "bogus"], "bogus"),
    (["schema", "campaign", "--format", "bogus"], "--format"),
    (["frobnicate"], "frobnicate"),
]


@pytest.mark.parametrize(("args", "expected"), BAD, ids=lambda v: " ".join(v)[:60] or "-")
def test_a_bad_command_line_is_one_line_and_exit_2(
    files: dict[str, str], args: list[str], expected: str
) -> None:
    if any("{fifo}" in a for a in args) and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    assert_one_line_exit_2(tuple(a.format(**files) for a in args), expected)


# -- property tests ------------------------------------------------------------------------

numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.sampled_from(["", " ", "nan", "-inf", "1e999", "0", "-0", "0x10", "1,5", "abc"]),
)
words = st.one_of(
    st.text(max_size=12).filter(lambda s: "\x00" not in s and not s.startswith("-")),
    st.sampled_from(["", "-", "--", "vllm", "all", "function", "mtp", "http://x", "a=b", "@1"]),
)
PROPERTY = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def assert_exit_0_or_2(args: tuple[str, ...]) -> None:
    code, out, err = run_main(*args)
    assert code in (0, 2), (args, code, out, err)
    assert "Traceback" not in out + err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, (args, err)


@PROPERTY
@given(acceptance=numbers, k=numbers, draft_cost=numbers, per_position=words)
def test_expect_with_random_values(
    acceptance: str, k: str, draft_cost: str, per_position: str
) -> None:
    for args in (
        ("expect", "--acceptance", acceptance, "--k", k, "--draft-cost", draft_cost),
        ("expect", "--per-position", per_position, "--verify-cost", draft_cost),
    ):
        assert_exit_0_or_2(args)


@PROPERTY
@given(alpha=numbers, margin=numbers, speedup=numbers, fail_on=words, run=words)
def test_compare_with_random_values(
    files: dict[str, str], alpha: str, margin: str, speedup: str, fail_on: str, run: str
) -> None:
    args = ("compare", run or "a", "b", "--db", files["db"], "--alpha", alpha, "--margin", margin)
    assert_exit_0_or_2((*args, "--min-speedup", speedup, "--fail-on", fail_on))


@PROPERTY
@given(interval=numbers, listen=numbers, min_drafts=numbers, target=words, arl0=numbers)
def test_watch_with_random_values_is_refused_before_it_watches(
    files: dict[str, str], interval: str, listen: str, min_drafts: str, target: str, arl0: str
) -> None:
    # a target that is no URL: every run ends at the options, without a scrape
    args = ("watch", files["exp"], "--target", f"no url {target}", "--interval", interval)
    code, out, err = run_main(*args, "--listen", listen, "--min-drafts", min_drafts, "--arl0", arl0)
    assert code == 2 and "Traceback" not in out + err
    assert len(err.strip().splitlines()) == 1, err


@PROPERTY
@given(slo=words, fmt=words, out=words)
def test_runs_export_with_random_values(
    files: dict[str, str], slo: str, fmt: str, out: str
) -> None:
    args = ("runs", "export", "x", "--db", files["db"], "--slo", slo, "--format", fmt)
    assert_exit_0_or_2((*args, "--out", os.path.join(files["out"], out.replace("/", "_") or "x")))


@PROPERTY
@given(engine=words, model=words, family=words)
def test_init_with_random_values(
    files: dict[str, str], engine: str, model: str, family: str
) -> None:
    out = os.path.join(files["out"], "init.yaml")
    os.makedirs(files["out"], exist_ok=True)
    args = ("init", "--engine", engine, "--model", model, "--family", family, "--out", out)
    code, _, err = run_main(*args, "--force")
    assert code in (0, 2) and "Traceback" not in err, err
    if code == 0:  # what init writes, validate reads
        parse_campaign(Path(out).read_text(), Path(out))
    else:
        assert len(err.strip().splitlines()) == 1, err


@PROPERTY
@given(document=words, fmt=words, name=words)
def test_schema_and_suites_with_random_values(document: str, fmt: str, name: str) -> None:
    assert_exit_0_or_2(("schema", document, "--format", fmt))
    assert_exit_0_or_2(("suites", "show", name))


@PROPERTY
@given(timeout=numbers, prefix=words)
def test_audit_overrides_with_random_values(
    files: dict[str, str], timeout: str, prefix: str
) -> None:
    args = ("audit", "overrides", files["manifest"], "--timeout", timeout)
    code, out, err = run_main(*args, "--dir", files["dir"])
    # 1: the manifest's file is missing from the directory (a finding, not a usage error)
    assert code in (1, 2) and "Traceback" not in out + err, (code, err)
