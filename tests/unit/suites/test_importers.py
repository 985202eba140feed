"""Other tools' files as a stage's rows: each importer on a small file in its published format
(tests/fixtures/importers, README there says where each is defined), its one-line errors naming
file, record and field, and an imported stage planned into runs whose samples are the rows."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import get_args

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import DatasetSection
from specverdict.errors import ConfigError
from specverdict.suites import suite_for
from specverdict.suites.agent.bfcl import CATEGORIES, Bfcl, prepare, wheel_path
from specverdict.suites.custom import load_rows
from specverdict.suites.custom.importers import IMPORTED, SPEED_PLACEHOLDER
from specverdict.suites.custom.rows import FORMATS, Row

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "importers"

CAMPAIGN = """\
name: imported
engine: {{kind: reference}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates: [{{method: mtp, k: 2}}]
stages:
  side:chat: {{dataset: {{path: {path}, format: {fmt}, scorer: {scorer}}}}}
"""


def rows(name: str, fmt: str) -> dict[str, Row]:
    return dict(load_rows(FIXTURES / name, fmt))  # type: ignore[arg-type]


def user(row: Row) -> list[tuple[str, str | None]]:
    assert row.messages is not None
    return [(m.role, m.content) for m in row.messages]


def test_the_campaign_accepts_every_importer_and_nothing_else() -> None:
    fmt = DatasetSection.model_fields["format"].annotation
    # swe-bench task files are repository tasks, not rows (suites/custom/swebench.py)
    assert set(get_args(fmt)) - {"swe-bench"} == set(FORMATS) == {"completions", "chat", *IMPORTED}


def test_vllm_custom_prompts_are_user_messages_and_output_tokens_their_max_tokens() -> None:
    got = rows("vllm-custom.jsonl", "vllm-custom")
    assert list(got) == ["row-1", "row-2", "row-3"]
    assert user(got["row-1"]) == [("user", "What is the capital of India?")]
    assert [r.max_tokens for r in got.values()] == [10, 64, None]  # absent: the stage's own
    assert all(r.prompt is None for r in got.values())


def test_sharegpt_first_human_turn_and_turn_count() -> None:
    got = rows("sharegpt.json", "sharegpt")
    # the one-turn entry is left out, as vLLM's ShareGPTDataset does
    assert list(got) == ["kQ7vXa2_0", "Zp04mRt_0", "b9LwQeE_0"]
    assert user(got["Zp04mRt_0"]) == [("user", "How do I reverse a list in Python?")]
    assert got["Zp04mRt_0"].metadata["turns"] == 4
    assert got["Zp04mRt_0"].metadata["reply_chars"] == len(
        "Use `my_list.reverse()` in place, or `my_list[::-1]` for a reversed copy."
    )
    assert [r for r, _ in user(got["b9LwQeE_0"])] == ["system", "user"]  # its system turn kept


def test_sharegpt_recorded_replays_the_recorded_replies_as_context() -> None:
    got = rows("sharegpt.json", "sharegpt-recorded")
    assert list(got) == ["kQ7vXa2_0/1", "Zp04mRt_0/1", "Zp04mRt_0/2", "b9LwQeE_0/1"]
    second = user(got["Zp04mRt_0/2"])
    assert [r for r, _ in second] == ["user", "assistant", "user"]
    assert second[1][1] is not None and second[1][1].startswith("Use `my_list.reverse()`")
    assert second[-1] == ("user", "And a string?")
    assert got["Zp04mRt_0/2"].metadata["turn"] == 2


def test_spec_bench_first_turn_category_and_reference() -> None:
    got = rows("spec-bench.jsonl", "spec-bench")
    assert list(got) == ["81", "161", "401", "481"]
    assert [r.category for r in got.values()] == ["writing", "translation", "math_reasoning", "rag"]
    assert user(got["81"]) == [
        ("user", "Write a short note inviting your neighbours to a street picnic.")
    ]
    assert got["81"].metadata == {"turns": 2} and got["81"].reference is None
    assert got["161"].reference == "The train to Hamburg is twenty minutes late today."
    assert got["481"].reference == ["a lighthouse", "a fog signal"]  # rag: answer spans


def test_speed_bench_keeps_its_fields_as_metadata() -> None:
    got = rows("speed-bench.jsonl", "speed-bench")
    role = got["qualitative_roleplay_3"]
    assert role.category == "roleplay" and role.metadata["turns"] == 2
    assert role.metadata["sub_category"] == "character" and role.metadata["multiturn"] is True
    assert user(role) == [("user", "You are a ship's cook in 1820. Describe today's menu.")]


def test_bfcl_questions_become_chat_rows_with_tools() -> None:
    got = rows("BFCL_v4_parallel.json", "bfcl")
    first, second = got["parallel_0"], got["parallel_1"]
    assert first.category == "parallel" and first.metadata["functions"] == ["weather.current"]
    assert first.tools is not None
    fn = first.tools[0]["function"]
    assert isinstance(fn, dict) and fn["name"] == "weather_current"  # as bfcl@1 sends it
    params = fn["parameters"]
    assert isinstance(params, dict) and params["type"] == "object"
    assert [r for r, _ in user(second)] == ["system", "user"]


@pytest.mark.parametrize(
    ("fmt", "content", "expected"),
    [
        ("vllm-custom", '{"output_tokens": 5}\n', ":1: field prompt: missing"),
        ("vllm-custom", '{"prompt": "x", "output_tokens": "many"}\n', ":1: field output_tokens:"),
        ("vllm-custom", '{"prompt": "x", "output_tokens": 0}\n', ":1: field output_tokens:"),
        ("vllm-custom", '{"prompt": "x"}\n[1]\n', ":2: a record must be a JSON object"),
        ("sharegpt", '{"id": "a"}', "a ShareGPT file is a JSON list, got dict"),
        ("sharegpt", "[{", "not a JSON list"),
        (
            "sharegpt",
            '[{"id": "a", "conversations": [{"from": "human", "value": "x"}, '
            '{"from": "bard", "value": "y"}]}]',
            "[0]: field conversations[1].from: must be human, gpt or system, got 'bard'",
        ),
        (
            "sharegpt",
            '[{"id": "a", "conversations": [{"from": "gpt", "value": "x"}, '
            '{"from": "gpt", "value": "y"}]}]',
            "[0]: field conversations: has no human turn",
        ),
        (
            "sharegpt",
            '[{"id": "a", "image": "cat.png", "conversations": [{"from": "human", "value": "x"}, '
            '{"from": "gpt", "value": "y"}]}]',
            "[0]: field image: a multimodal entry",
        ),
        (
            "sharegpt",
            '[{"id": "a", "conversations": [{"from": "human", "value": "x"}, '
            '{"from": "gpt", "value": "y"}]}, {"id": "a", "conversations": '
            '[{"from": "human", "value": "z"}, {"from": "gpt", "value": "w"}]}]',
            "[1]: field id: 'a' is also the id of entry 0",
        ),
        ("spec-bench", '{"question_id": 1, "category": "qa"}\n', ":1: field turns: must be"),
        ("spec-bench", '{"question_id": 1, "turns": ["q"]}\n', ":1: field category: missing"),
        (
            "spec-bench",
            '{"question_id": 1, "category": "qa", "turns": ["q", 3]}\n',
            ":1: field turns[1]:",
        ),
        (
            "spec-bench",
            '{"question_id": 1, "category": "qa", "turns": ["q"], "reference": "a"}\n',
            ":1: field reference: must be a list of strings or string lists",
        ),
        (
            "spec-bench",
            '{"question_id": 1, "category": "qa", "turns": ["q"]}\n'
            '{"question_id": 1, "category": "qa", "turns": ["r"]}\n',
            ":2: field id: '1' is also the id of line 1",
        ),
        (
            "speed-bench",
            json.dumps(
                {"question_id": "q0", "category": "rag", "turns": [SPEED_PLACEHOLDER + "\n\n{x}"]}
            )
            + "\n",
            ":1: field turns[0]: still the published placeholder",
        ),
        ("speed-bench", '{"category": "rag", "turns": ["q"]}\n', ":1: field question_id:"),
        ("bfcl", '{"id": "simple_0", "function": []}\n', ":1: field question: must be"),
        (
            "bfcl",
            '{"id": "multi_turn_base_0", "question": [[{"role": "user", "content": "x"}]], '
            '"involved_classes": ["GorillaFileSystem"]}\n',
            ":1: field function: missing (BFCL's multi-turn",
        ),
        (
            "bfcl",
            '{"id": "s_0", "question": [[{"role": "user", "content": "x"}]], '
            '"function": [{"description": "no name"}]}\n',
            ":1: field function[0].name:",
        ),
        (
            "bfcl",
            '{"id": "s_0", "question": [[{"role": "robot", "content": "x"}]], "function": []}\n',
            ":1: field question[0][0].role: must be system, user",
        ),
    ],
)
def test_a_bad_record_is_one_line_naming_file_record_and_field(
    tmp_path: Path, fmt: str, content: str, expected: str
) -> None:
    path = tmp_path / "source.json"
    path.write_text(content)
    with pytest.raises(ConfigError) as err:
        load_rows(path, fmt)  # type: ignore[arg-type]
    text = str(err.value)
    assert text.startswith(str(path)) and expected in text, text
    assert "\n" not in text


def test_a_parquet_file_is_refused_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "test-00000-of-00001.parquet"
    path.write_bytes(b"PAR1\x15\x04binary")
    with pytest.raises(ConfigError, match="a parquet file: write its records out as JSON Lines"):
        load_rows(path, "speed-bench")


def test_a_scorer_needing_a_reference_names_the_record_without_one(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    shutil.copy(FIXTURES / "spec-bench.jsonl", path)
    with pytest.raises(ConfigError, match=r"q\.jsonl:1: field reference: the scorer compares"):
        load_rows(path, "spec-bench", "reference")


@pytest.mark.parametrize(
    ("name", "fmt", "ids"),
    [
        ("sharegpt.json", "sharegpt", ["kQ7vXa2_0", "Zp04mRt_0", "b9LwQeE_0"]),
        ("sharegpt.json", "sharegpt-recorded", ["kQ7vXa2_0/1", "Zp04mRt_0/1", "Zp04mRt_0/2"]),
        ("spec-bench.jsonl", "spec-bench", ["81", "161", "401"]),
        ("BFCL_v4_parallel.json", "bfcl", ["parallel_0", "parallel_1"]),
    ],
)
def test_an_imported_stage_plans_runs_whose_samples_are_its_rows(
    tmp_path: Path, name: str, fmt: str, ids: list[str]
) -> None:
    shutil.copy(FIXTURES / name, tmp_path / name)
    text = CAMPAIGN.format(path=name, fmt=fmt, scorer="none")
    plan = build_plan(parse_campaign(text, tmp_path / "c.yaml"))
    assert plan.runs and {r.dataset.format for r in plan.runs if r.dataset} == {fmt}
    samples = suite_for(plan.runs[0]).samples()
    assert [s.id for s in samples][: len(ids)] == ids
    assert all(s.endpoint == "chat" for s in samples)
    if fmt == "bfcl":
        assert samples[0].request_fields()["tools"][0]["function"]["name"] == "weather_current"


def test_the_format_is_run_identity(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "sharegpt.json", tmp_path / "sharegpt.json")

    def fingerprints(fmt: str) -> set[str]:
        text = CAMPAIGN.format(path="sharegpt.json", fmt=fmt, scorer="none")
        return {r.fingerprint for r in build_plan(parse_campaign(text, tmp_path / "c.yaml")).runs}

    assert fingerprints("sharegpt").isdisjoint(fingerprints("sharegpt-recorded"))


def test_bfcl_files_of_the_real_wheel_import_as_the_bfcl_suite_asks_them(tmp_path: Path) -> None:
    """The real question files import, and each row is the request ``bfcl@1`` sends. The pinned
    wheel is downloaded from PyPI into the cache when it is not there, as the suite does."""
    prepare()
    suite = {s.id: s for s in Bfcl().samples()}
    with zipfile.ZipFile(wheel_path()) as z:
        for stem in CATEGORIES.values():
            path = tmp_path / f"BFCL_v4_{stem}.json"
            path.write_bytes(z.read(f"bfcl_eval/data/BFCL_v4_{stem}.json"))
            rows = load_rows(path, "bfcl")
            assert rows, stem  # the checks below ran
            for sid, row in rows:
                sample = suite[sid]
                assert row.category == stem
                assert row.messages is not None and sample.messages is not None
                assert [m.model_dump(exclude_none=True) for m in row.messages] == [
                    dict(m) for m in sample.messages
                ]
                assert [dict(t) for t in row.tools or ()] == sample.request_fields()["tools"]
