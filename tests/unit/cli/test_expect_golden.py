"""``specverdict expect --golden FILE``: an entry of a golden acceptance-length file as the
acceptance, chosen by ``--entry`` or ``--k`` and filters; every refusal one line, exit code 2.
The command runs in this process through ``main``, as the ``specverdict`` script calls it."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from unittest import mock

import pytest

from specverdict.cli.main import main

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"
QWEN = str(GOLDEN / "qwen3.827b_bf16_mtp.yaml")
MINIMAX = str(GOLDEN / "minimaxm3_eagle3.yaml")


def run_main(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        mock.patch.object(sys, "argv", ["specverdict", *args]),
    ):
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    return code, out.getvalue(), err.getvalue()


def refused(*args: str) -> str:
    code, out, err = run_main("expect", *args)
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("specverdict: error: "), err
    return lines[0].removeprefix("specverdict: error: ")


def test_the_qwen_mtp_entry_gives_its_al_and_the_output_names_file_and_entry() -> None:
    code, out, err = run_main("expect", "--golden", QWEN, "--k", "3", "--draft-cost", "0.05")
    assert code == 0, err
    assert "expected accepted length E = 2.520 tokens per step (at most 4)" in out
    assert "expected speed-up S = E / R = 2.191x" in out  # 2.52 / (1 + 3 * 0.05)
    assert (
        f"acceptance: golden: {QWEN}, entry qwen3.8-27b/thinking_on/3 (AL 2.52; precision "
        "bf16, method mtp, category coding), taken as i.i.d. acceptance a = 0.6966 at k = 3"
    ) in out


def test_json_carries_the_entry() -> None:
    code, out, err = run_main(
        "expect", "--golden", MINIMAX, "--entry", "minimax-m3/thinking_off/8", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["k"] == 8
    assert data["expected_accepted_length"] == pytest.approx(4.06, abs=1e-12)
    assert data["golden"]["acceptance_length"] == 4.06
    assert data["golden"]["thinking"] == "off"
    assert data["golden"]["method"] == "eagle3"
    assert data["golden"]["file"] == MINIMAX


def test_filters_choose_among_entries() -> None:
    code, out, _ = run_main("expect", "--golden", MINIMAX, "--k", "3", "--thinking", "on")
    assert code == 0
    assert "E = 2.830 tokens" in out and "minimax-m3/thinking_on/3" in out


def test_several_matching_entries_are_listed() -> None:
    assert refused("--golden", MINIMAX, "--k", "3") == (
        f"{MINIMAX}: 2 entries match k = 3: minimax-m3/thinking_on/3 (AL 2.83), "
        "minimax-m3/thinking_off/3 (AL 2.93); choose one by thinking or entry "
        "(MODEL/thinking_on/K)"
    )


def test_no_matching_entry_names_the_nearest() -> None:
    assert refused("--golden", QWEN, "--k", "3", "--precision", "fp8") == (
        f"{QWEN}: no entry matches k = 3, precision = fp8; nearest: "
        "qwen3.8-27b/thinking_on/3 (AL 2.52; precision bf16)"
    )


@pytest.mark.parametrize(
    "other", [("--acceptance", "0.7"), ("--per-position", "0.8,0.7,0.6"), ("--run", "r1")]
)
def test_golden_excludes_the_other_acceptance_sources(other: tuple[str, str]) -> None:
    assert refused("--golden", QWEN, *other, "--k", "3") == (
        "give exactly one of --acceptance, --per-position, --run, --golden"
    )


def test_entry_filters_need_golden_and_agree_with_k(tmp_path: Path) -> None:
    assert refused("--acceptance", "0.7", "--k", "3", "--model", "m") == (
        "--model chooses an entry of a golden file: give --golden"
    )
    assert refused("--golden", MINIMAX, "--entry", "minimax-m3/thinking_on/3", "--k", "8") == (
        "entry minimax-m3/thinking_on/3 and k 8 disagree"
    )
    bad = tmp_path / "g.yaml"
    bad.write_text("m:\n  thinking_on:\n    3: fast\n")
    assert refused("--golden", str(bad), "--k", "3") == (
        f"{bad}:3: m.thinking_on.3: expected the acceptance length, a number (got 'fast')"
    )
