"""A campaign on a file in SPEED-Bench's format, end to end on the reference engine through the
CLI: the importer reads its records (category, sub-category, turns), the categories are judged
as slices, a multi-turn record is asked with the model's own answers (``replay: own``), and
the verdicts and report come out. The file is written here in the format of SPEED-Bench's
records (``tests/fixtures/importers/README.md``); the real file is brought by the user."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli

pytestmark = pytest.mark.slow

TURNS = {
    "coding": [
        "Write a Python function that reverses a list in place.",
        "Write a Python function that counts the vowels in a string.",
        "Write a Python function that returns the largest of three numbers.",
        "Write a Python function that checks whether a number is prime.",
        "Write a Python function that flattens a list of lists.",
        "Write a Python function that merges two sorted lists.",
        "Write a Python function that removes duplicates from a list, keeping order.",
        "Write a Python function that sums the digits of an integer.",
    ],
    "math": [
        "What is 17 times 23?",
        "Solve for x: 3x + 5 = 20.",
        "What is the sum of the first ten positive integers?",
        "How many degrees are in the angles of a triangle?",
        "What is 2 to the power of 10?",
        "Is 91 a prime number?",
        "What is the square root of 144?",
        "What is 15% of 80?",
    ],
    "writing": [
        "Write a two-sentence summary of why tests matter in software.",
        "Write a short note thanking a colleague for a code review.",
        "Describe a quiet harbour at dawn in three sentences.",
        "Write a haiku about a compiler.",
        "Write a one-paragraph product description for a desk lamp.",
        "Explain recursion to a child in two sentences.",
        "Write a polite reminder about a meeting tomorrow.",
        "Write a short motivational line for a marathon runner.",
    ],
}


def records() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for category, turns in TURNS.items():
        for i, turn in enumerate(turns):
            multiturn = category == "writing" and i < 2
            out.append(
                {
                    "question_id": f"qualitative_{category}_{i}",
                    "category": category,
                    "sub_category": "general",
                    "turns": [turn, "Now make it shorter."] if multiturn else [turn],
                    "source": "written for specverdict",
                    "src_id": f"{category}-{i}",
                    "difficulty": "easy",
                    "multiturn": multiturn,
                }
            )
    return out


def test_a_speed_bench_file_ends_in_verdicts_per_category(tmp_path: Path) -> None:
    data = tmp_path / "speed-bench.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records()))
    campaign = tmp_path / "campaign.yaml"
    campaign.write_text(
        campaign_yaml(
            "speed-bench",
            stages={
                "side:speed": {
                    "dataset": {"path": data.name, "format": "speed-bench", "replay": "own"},
                    "slices": ["category"],
                }
            },
            device_model="accel-2b",
            device_clock="virtual",
            max_tokens=32,
            concurrency=(4,),
        )
    )
    db = tmp_path / "runs.db"
    ran = specverdict_cli("run", str(campaign), "--db", str(db), "--force", timeout=900)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "stage side:speed (dataset:speed-bench.jsonl@1)" in ran.stdout
    store = SQLiteStore(db)
    for run in store.list_runs():
        samples = store.samples(run.run_id)
        assert len(samples) == 24 and all(s.status == "ok" for s in samples)
        # a multi-turn record is one sample: the conversation, after the model's own answers
        turns = {
            s.sample_id: len(s.extra.episode.turn_timings) if s.extra.episode else 0
            for s in samples
        }
        assert sorted(k for k, n in turns.items() if n > 1) == [
            "qualitative_writing_0",
            "qualitative_writing_1",
        ]
    judged = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    verdicts = json.loads(judged.stdout)["verdicts"]
    slices = sorted(v["slice"] for v in verdicts if v["slice"] is not None)
    assert slices == ["category=coding", "category=math", "category=writing"]
    whole = next(v for v in verdicts if v["slice"] is None)
    assert whole["speedup"] is not None and whole["acceptance_rate"] is not None
    out = tmp_path / "report"
    made = specverdict_cli("report", str(campaign), "--db", str(db), "--out", str(out))
    assert made.returncode == 0, made.stderr
    assert "category=coding" in (out / "report.md").read_text()
