"""A candidate's ``expected_acceptance`` from a golden acceptance-length file: the path relative
to the campaign file, the entry at the candidate's k read with the campaign, its rate
(AL - 1) / k what the runs are compared with, and every problem one line naming the key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, load_campaign, parse_campaign
from specverdict.campaign.golden import expected_origin
from specverdict.campaign.model import Campaign
from specverdict.errors import ConfigError

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"

CAMPAIGN = """\
name: golden
engine: {kind: vllm, reconfigure: between-runs, base_url: http://127.0.0.1:8000}
model: {family: qwen3, served_name: Qwen/Qwen3.8-27B}
quantization: bf16
candidates:
  - method: mtp
    k: 3
    expected_acceptance: {golden: golden/qwen3.827b_bf16_mtp.yaml}
  - method: eagle3
    k: 8
    expected_acceptance: {golden: golden/minimaxm3_eagle3.yaml, thinking: "off"}
  - {method: ngram, k: 4, expected_acceptance: 0.4}
stages:
  function: {suite: humaneval-amplified@1, samples: {first: 20}}
sampling: {temperature: 0.0, max_tokens: 256, seed: 0}
load: {concurrency: [1], repeats: 1}
gates: {alpha: 0.05, min_speedup: 1.05}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copytree(GOLDEN, tmp_path / "campaigns" / "golden")
    return tmp_path / "campaigns"


def load(folder: Path, text: str = CAMPAIGN) -> Campaign:
    path = folder / "c.yaml"
    path.write_text(text)
    return load_campaign(path)


def refused(folder: Path, old: str, new: str) -> str:
    assert old in CAMPAIGN, old
    path = folder / "c.yaml"
    path.write_text(CAMPAIGN.replace(old, new, 1))
    with pytest.raises(ConfigError) as info:
        load_campaign(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}:"), message
    return message.removeprefix(f"{path}:")


def test_the_golden_form_reads_the_entry_at_the_candidates_k(folder: Path) -> None:
    campaign = load(folder)
    qwen, minimax, ngram = (c.expected_acceptance for c in campaign.candidates)
    assert qwen == pytest.approx((2.52 - 1) / 3)
    assert minimax == pytest.approx((4.06 - 1) / 8)
    assert ngram == 0.4 and type(ngram) is float
    # relative to the campaign file, whatever the working directory
    file = folder / "golden" / "qwen3.827b_bf16_mtp.yaml"
    assert expected_origin(qwen) == (
        f"the golden file {file}'s qwen3.8-27b/thinking_on/3 (AL 2.52 at k = 3: rate (AL - 1) / k)"
    )
    assert "minimax-m3/thinking_off/8 (AL 4.06 at k = 8" in expected_origin(minimax)
    assert expected_origin(ngram) == "the campaign's expected_acceptance"
    assert len(build_plan(campaign).runs) > 0


def test_an_entry_and_filters_choose_as_in_expect(folder: Path) -> None:
    text = CAMPAIGN.replace(
        '{golden: golden/minimaxm3_eagle3.yaml, thinking: "off"}',
        "{golden: golden/minimaxm3_eagle3.yaml, entry: minimax-m3/thinking_on/8}",
    )
    campaign = load(folder, text)
    assert campaign.candidates[1].expected_acceptance == pytest.approx((3.74 - 1) / 8)


def test_the_number_form_keeps_its_bounds(folder: Path) -> None:
    assert refused(folder, "expected_acceptance: 0.4", "expected_acceptance: 1.5") == (
        "12: candidates[2].expected_acceptance: Input should be less than or equal to 1 (got 1.5)"
    )


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        (  # missing key
            "{golden: golden/qwen3.827b_bf16_mtp.yaml}",
            "{model: qwen3.8-27b}",
            "8: candidates[0].expected_acceptance.golden: Field required",
        ),
        (  # wrong type
            "{golden: golden/qwen3.827b_bf16_mtp.yaml}",
            "{golden: 3}",
            "8: candidates[0].expected_acceptance.golden: Input should be a valid string (got 3)",
        ),
        (
            "{golden: golden/qwen3.827b_bf16_mtp.yaml}",
            '{golden: golden/qwen3.827b_bf16_mtp.yaml, thinking: "maybe"}',
            "8: candidates[0].expected_acceptance.thinking: Input should be 'on' or 'off' "
            "(got 'maybe')",
        ),
        (
            "{golden: golden/qwen3.827b_bf16_mtp.yaml}",
            "{golden: golden/qwen3.827b_bf16_mtp.yaml, thinkin: on}",
            "8: candidates[0].expected_acceptance.thinkin: unknown key (did you mean 'thinking'?)",
        ),
        (
            "{golden: golden/qwen3.827b_bf16_mtp.yaml}",
            "{golden: golden/missing.yaml}",
            "8: candidates[0].expected_acceptance.golden: {dir}/golden/missing.yaml: cannot "
            "read golden file: No such file or directory",
        ),
        (  # no matching entry
            "{golden: golden/qwen3.827b_bf16_mtp.yaml}",
            "{golden: golden/qwen3.827b_bf16_mtp.yaml, precision: fp8}",
            "8: candidates[0].expected_acceptance: {dir}/golden/qwen3.827b_bf16_mtp.yaml: no "
            "entry matches k = 3, precision = fp8, method = mtp; nearest: "
            "qwen3.8-27b/thinking_on/3 (AL 2.52; precision bf16)",
        ),
        (  # ambiguous
            '{golden: golden/minimaxm3_eagle3.yaml, thinking: "off"}',
            "{golden: golden/minimaxm3_eagle3.yaml}",
            "11: candidates[1].expected_acceptance: {dir}/golden/minimaxm3_eagle3.yaml: 2 "
            "entries match k = 8, method = eagle3: minimax-m3/thinking_on/8 (AL 3.74), "
            "minimax-m3/thinking_off/8 (AL 4.06); choose one by thinking or entry "
            "(MODEL/thinking_on/K)",
        ),
        (  # the file states another method than the candidate's
            "  - method: mtp\n    k: 3",
            "  - method: eagle\n    k: 3",
            "8: candidates[0].expected_acceptance: {dir}/golden/qwen3.827b_bf16_mtp.yaml: no "
            "entry matches k = 3, method = eagle; nearest: qwen3.8-27b/thinking_on/3 (AL 2.52; "
            "method mtp)",
        ),
        (  # one acceptance length per k
            "  - method: mtp\n    k: 3",
            "  - method: mtp\n    k: [2, 3]",
            "8: candidates[0].expected_acceptance: a golden file gives one acceptance length "
            "per k: give this candidate a single k (one candidate per k), or "
            "expected_acceptance a number",
        ),
    ],
)
def test_a_bad_golden_form_is_one_line_naming_the_key(
    folder: Path, old: str, new: str, what: str
) -> None:
    assert refused(folder, old, new) == what.replace("{dir}", str(folder))


def test_a_golden_file_that_does_not_parse_is_named_at_the_golden_key(folder: Path) -> None:
    (folder / "golden" / "bad.yaml").write_text("m:\n  thinking_on:\n    3: 9.0\n")
    assert refused(
        folder, "{golden: golden/qwen3.827b_bf16_mtp.yaml}", "{golden: golden/bad.yaml}"
    ) == (
        f"8: candidates[0].expected_acceptance.golden: {folder}/golden/bad.yaml:3: "
        "m.thinking_on.3: expected an acceptance length in [1, k + 1 = 4] (got 9.0)"
    )


def test_parse_campaign_without_a_file_reads_the_path_as_given(tmp_path: Path) -> None:
    golden = tmp_path / "q.yaml"
    shutil.copy(GOLDEN / "qwen3.827b_bf16_mtp.yaml", golden)
    text = CAMPAIGN.replace("golden/qwen3.827b_bf16_mtp.yaml", str(golden)).replace(
        '{golden: golden/minimaxm3_eagle3.yaml, thinking: "off"}', "0.5"
    )
    campaign = parse_campaign(text, tmp_path / "elsewhere" / "c.yaml")
    assert campaign.candidates[0].expected_acceptance == pytest.approx(1.52 / 3)


def test_the_triage_names_the_golden_file_it_compares_with() -> None:
    """A measured acceptance far under a golden figure: the triage reason names the file's
    entry it compared with, where a plain number names the campaign."""
    from specverdict.campaign.golden import GoldenRate
    from specverdict.records.acceptance import AcceptanceSummary
    from specverdict.verdict.gates.acceptance import _triage
    from specverdict.verdict.judge import Arm

    plan = build_plan(
        parse_campaign(
            "name: t\nengine: {kind: reference}\nmodel: {family: f, served_name: m}\n"
            "quantization: bf16\ncandidates:\n  - {method: mtp, k: 3}\n"
            "stages:\n  function: {suite: builtin-code@1}\n"
            "sampling: {temperature: 0.0, max_tokens: 64}\n",
            Path("t.yaml"),
        )
    )
    spec = next(r for r in plan.runs if r.speculation.method == "mtp")
    low = AcceptanceSummary(
        source="metrics-delta", valid=True, drafts=100.0, draft_tokens=300.0, accepted=60.0
    )
    cand = Arm(spec=spec, run_ids=("c0",), samples=((),), acceptance=low, acceptances=(low,))
    golden = GoldenRate(0.507, "the golden file g.yaml's qwen3.8-27b/thinking_on/3")
    said = _triage(cand, golden, {})
    assert (
        said is not None and "of the golden file g.yaml's qwen3.8-27b/thinking_on/3" in said.message
    )
    plain = _triage(cand, 0.507, {})
    assert plain is not None and "of the campaign's expected_acceptance" in plain.message
