"""Golden acceptance-length files (InferenceX ``golden_al_distribution/*.yaml``): their entries,
the acceptance figures an AL gives at k, choosing an entry, and bad files as one line each."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from specverdict.campaign.golden import (
    GoldenRate,
    GoldenSelectionError,
    expected_origin,
    find_entry,
    golden_rate,
    iid_acceptance,
    load_golden,
    parse_entry,
    parse_golden,
    select_entry,
)
from specverdict.errors import ConfigError
from specverdict.verdict.expect import expect, resolve_inputs

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"
QWEN_BF16 = GOLDEN / "qwen3.827b_bf16_mtp.yaml"
QWEN_FP8 = GOLDEN / "qwen3.827b_fp8_mtp.yaml"
MINIMAX = GOLDEN / "minimaxm3_eagle3.yaml"
DSV4 = GOLDEN / "dsv4_dspark_probabilistic.yaml"


def test_the_qwen_mtp_files_give_2_52_at_bf16_and_2_51_with_an_fp8_target() -> None:
    bf16, fp8 = load_golden(QWEN_BF16), load_golden(QWEN_FP8)
    assert bf16.source == "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/35490571863"
    (a,) = bf16.entries
    (b,) = fp8.entries
    assert (a.model, a.thinking, a.k, a.acceptance_length) == ("qwen3.8-27b", "on", 3, 2.52)
    assert (b.model, b.thinking, b.k, b.acceptance_length) == ("qwen3.8-27b-fp8", "on", 3, 2.51)
    # precision, method and category come from the collector's settings in the header
    assert (a.precision, a.method, a.category) == ("bf16", "mtp", "coding")
    assert (b.precision, b.method, b.category) == ("fp8", "mtp", "coding")
    assert a.temperature is None  # the file does not say
    assert a.label == "qwen3.8-27b/thinking_on/3"


def test_an_al_is_the_iid_acceptance_whose_expected_length_it_is_and_a_rate() -> None:
    (e,) = load_golden(QWEN_BF16).entries
    a = e.iid_acceptance
    assert (1 - a**4) / (1 - a) == pytest.approx(2.52, abs=1e-12)
    assert a == pytest.approx(0.6966, abs=5e-5)
    assert e.acceptance_rate == pytest.approx((2.52 - 1) / 3)
    assert iid_acceptance(1.0, 3) == pytest.approx(0.0, abs=1e-12)
    assert iid_acceptance(4.0, 3) == pytest.approx(1.0, abs=1e-12)
    assert iid_acceptance(1.78, 1) == pytest.approx(0.78, abs=1e-12)  # k = 1: AL = 1 + a
    near_one = iid_acceptance(3.999, 3)  # where the closed form cancels
    assert sum(near_one**i for i in range(4)) == pytest.approx(3.999, abs=1e-12)
    with pytest.raises(ValueError, match=r"not in \[1, 4\]"):
        iid_acceptance(4.5, 3)


def test_expect_from_a_golden_entry_reproduces_its_al_and_says_where_it_came_from() -> None:
    entry = select_entry(load_golden(QWEN_BF16), k=3)
    out = expect(resolve_inputs(golden=entry, draft_cost=0.05))
    assert out.k == 3
    assert out.expected_accepted_length == pytest.approx(2.52, abs=1e-12)
    assert out.step_cost == pytest.approx(1.15)
    assert out.expected_speedup == pytest.approx(2.52 / 1.15, abs=1e-12)
    source = out.sources["acceptance"]
    assert source.startswith(f"golden: {QWEN_BF16}, entry qwen3.8-27b/thinking_on/3 (AL 2.52;")
    assert "i.i.d. acceptance a = 0.6966 at k = 3" in source
    assert any("i.i.d. across draft positions" in x for x in out.assumptions)
    assert out.golden == entry
    with pytest.raises(ConfigError, match=r"^--k 4: the golden entry qwen3.8-27b/thinking_on/3"):
        resolve_inputs(golden=entry, k=4)
    with pytest.raises(ConfigError, match="exactly one of --acceptance, --per-position, --run"):
        resolve_inputs(golden=entry, acceptance=0.5, k=3)


def test_header_facts_and_metadata_in_the_published_forms() -> None:
    minimax = load_golden(MINIMAX)
    assert minimax.metadata == {"draft-model": "Inferact/MiniMax-M3-EAGLE3"}
    assert {(e.method, e.category, e.temperature) for e in minimax.entries} == {
        ("eagle3", "coding", 1.0)
    }
    assert {e.precision for e in minimax.entries} == {None}
    dsv4 = load_golden(DSV4)
    assert {e.method for e in dsv4.entries} == {"dspark"}  # from speculative-config: method=


@pytest.mark.parametrize(
    ("file", "k", "thinking", "al"),
    [
        (DSV4, 3, "on", 3.08),
        (DSV4, 3, "off", 3.47),
        (DSV4, 7, "on", 3.86),
        (DSV4, 7, "off", 4.94),
        (MINIMAX, 3, "on", 2.83),
        (MINIMAX, 3, "off", 2.93),
        (MINIMAX, 8, "on", 3.74),
        (MINIMAX, 8, "off", 4.06),
    ],
)
def test_entries_by_k_and_thinking(file: Path, k: int, thinking: str, al: float) -> None:
    entry = select_entry(load_golden(file), k=k, thinking=thinking)
    assert entry.acceptance_length == al
    assert find_entry(file, entry=entry.label) == entry
    assert find_entry(file, entry=f"{entry.model}/thinking_{thinking}", k=k) == entry


def test_several_entries_are_listed_with_what_tells_them_apart() -> None:
    with pytest.raises(GoldenSelectionError) as info:
        select_entry(load_golden(MINIMAX), k=3)
    assert str(info.value) == (
        f"{MINIMAX}: 2 entries match k = 3: minimax-m3/thinking_on/3 (AL 2.83), "
        "minimax-m3/thinking_off/3 (AL 2.93); choose one by thinking or entry "
        "(MODEL/thinking_on/K)"
    )


def test_no_matching_entry_names_the_nearest() -> None:
    with pytest.raises(GoldenSelectionError) as info:
        select_entry(load_golden(MINIMAX), k=9, thinking="off")
    assert str(info.value) == (
        f"{MINIMAX}: no entry matches thinking = off, k = 9; nearest: "
        "minimax-m3/thinking_off/8 (AL 4.06), minimax-m3/thinking_off/3 (AL 2.93), "
        "minimax-m3/thinking_off/1 (AL 1.84)"
    )
    # a fact the file does not state matches no filter on it, and is said not to be stated
    with pytest.raises(GoldenSelectionError) as info:
        select_entry(load_golden(MINIMAX), k=3, thinking="on", precision="fp8")
    assert str(info.value).startswith(
        f"{MINIMAX}: no entry matches thinking = on, k = 3, precision = fp8; nearest: "
        "minimax-m3/thinking_on/3 (AL 2.83; precision not stated), "
    )
    with pytest.raises(GoldenSelectionError) as info:
        select_entry(load_golden(QWEN_BF16), k=3, precision="fp8")
    assert str(info.value) == (
        f"{QWEN_BF16}: no entry matches k = 3, precision = fp8; nearest: "
        "qwen3.8-27b/thinking_on/3 (AL 2.52; precision bf16)"
    )


def test_entry_selectors() -> None:
    assert parse_entry("minimax-m3/thinking_on/3") == {
        "model": "minimax-m3",
        "thinking": "on",
        "k": 3,
    }
    assert parse_entry("org/model/thinking_off/7")["model"] == "org/model"
    for bad, what in [
        ("m/thinking_maybe/3", "entry m/thinking_maybe/3: expected MODEL/thinking_on/K or"),
        ("m/thinking_on/x", "entry m/thinking_on/x: expected an integer k after the thinking"),
        ("/thinking_on/3", "entry /thinking_on/3: expected MODEL/thinking_on/K"),
    ]:
        with pytest.raises(GoldenSelectionError, match=f"^{what}"):
            parse_entry(bad)
    with pytest.raises(GoldenSelectionError, match=r"^entry minimax-m3/thinking_on/3 and k 8 "):
        find_entry(MINIMAX, entry="minimax-m3/thinking_on/3", k=8)


def test_a_campaign_rate_is_a_number_that_names_its_origin() -> None:
    entry = select_entry(load_golden(QWEN_BF16), k=3)
    rate = golden_rate(entry)
    assert isinstance(rate, float) and rate == pytest.approx(1.52 / 3)
    assert rate.origin == (
        f"the golden file {QWEN_BF16}'s qwen3.8-27b/thinking_on/3 (AL 2.52 at k = 3: "
        "rate (AL - 1) / k)"
    )
    assert expected_origin(rate) == rate.origin
    assert expected_origin(0.5) == "the campaign's expected_acceptance"
    for copied in (copy.deepcopy(rate), pickle.loads(pickle.dumps(rate))):
        assert isinstance(copied, GoldenRate) and copied == rate
        assert copied.origin == rate.origin


# (file text, the one line it gets after "g.yaml:"): every kind of bad golden file
BAD = [
    ("", "1: (top level): expected a mapping MODEL: {thinking_on: {K: AL}} (got an empty file)"),
    ("- 1\n- 2\n", "1: (top level): expected a mapping MODEL: {thinking_on: {K: AL}} (got a list)"),
    ("_metadata: {a: b}\n", "1: (top level): no model (expected a mapping MODEL: "),
    ("m: {}\n", "1: m: expected a mapping of thinking_on/thinking_off to {K: AL} (got an empty"),
    ("m: 2.5\n", "1: m: expected a mapping of thinking_on/thinking_off to {K: AL} (got 2.5)"),
    (
        "m:\n  thinking_on:\n",
        "2: m.thinking_on: expected a mapping of the draft length k to the acceptance length "
        "(got null)",
    ),
    (
        "m:\n  thinking_maybe: {3: 2.5}\n",
        "2: m.thinking_maybe: expected thinking_on or thinking_off",
    ),
    (
        "m:\n  thinking_on:\n    3: fast\n",
        "3: m.thinking_on.3: expected the acceptance length, a number (got 'fast')",
    ),
    (
        "m:\n  thinking_on:\n    3: true\n",
        "3: m.thinking_on.3: expected the acceptance length, a number (got True)",
    ),
    (
        "m:\n  thinking_on:\n    three: 2.5\n",
        "3: m.thinking_on.three: expected a draft length k (an integer >= 1) as the key "
        "(got 'three')",
    ),
    (
        "m:\n  thinking_on:\n    0: 1.0\n",
        "3: m.thinking_on.0: expected a draft length k (an integer >= 1) as the key (got 0)",
    ),
    (
        "m:\n  thinking_on:\n    3: 4.5\n",
        "3: m.thinking_on.3: expected an acceptance length in [1, k + 1 = 4] (got 4.5)",
    ),
    (
        "m:\n  thinking_on:\n    3: 0.5\n",
        "3: m.thinking_on.3: expected an acceptance length in [1, k + 1 = 4] (got 0.5)",
    ),
    ("m:\n  thinking_on:\n    3: 2.5\n    3: 2.6\n", "4: m.thinking_on.3: duplicate key"),
    ("m: {thinking_on: {3: 2.5}\n", "2: not valid YAML"),
]


@pytest.mark.parametrize(("text", "what"), BAD)
def test_a_bad_golden_file_is_one_line_naming_file_line_and_key(text: str, what: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_golden(text, Path("g.yaml"))
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"g.yaml:{what}"), message


def test_an_unreadable_golden_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope.yaml: cannot read golden file: No such file"):
        load_golden(tmp_path / "nope.yaml")
