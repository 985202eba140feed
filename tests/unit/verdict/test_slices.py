"""Slices: bins and labels, and what a campaign may ask for."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import parse_campaign
from specverdict.campaign.model import PromptLengthSlice
from specverdict.errors import ConfigError
from specverdict.verdict.slices import bin_label, groups

CAMPAIGN = """\
name: s
engine: {{kind: reference}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates: [{{method: mtp, k: 2}}]
stages:
  function: {{suite: synth-function@1, slices: {slices}}}
"""


def test_prompt_length_bins() -> None:
    bins = [1024, 4096, 16384]
    labels = [bin_label(t, bins) for t in (0, 1023, 1024, 4095, 4096, 16383, 16384, 10**6)]
    assert labels == [
        "prompt_tokens<1024",
        "prompt_tokens<1024",
        "prompt_tokens 1024-4096",
        "prompt_tokens 1024-4096",
        "prompt_tokens 4096-16384",
        "prompt_tokens 4096-16384",
        "prompt_tokens>=16384",
        "prompt_tokens>=16384",
    ]


def test_groups_keep_bins_shortest_first_and_labels_sorted() -> None:
    spec = PromptLengthSlice(prompt_tokens=[10, 20])
    values = {"a": "prompt_tokens>=20", "b": "prompt_tokens<10", "c": "prompt_tokens 10-20"}
    assert list(groups(spec, values)) == [
        "prompt_tokens<10",
        "prompt_tokens 10-20",
        "prompt_tokens>=20",
    ]
    cats = groups("category", {"a": "category=z", "b": "category=a", "c": "category=z"})
    assert cats == {"category=a": {"b"}, "category=z": {"a", "c"}}


def test_what_a_stage_may_slice_by() -> None:
    ok = parse_campaign(
        CAMPAIGN.format(slices="[category, {prompt_tokens: [512]}, {metadata: lang}]"),
        Path("c.yaml"),
    )
    assert len(ok.stages["function"].slices) == 3
    default = parse_campaign(
        CAMPAIGN.format(slices="[{prompt_tokens: [1024, 4096, 16384]}]"), Path("c.yaml")
    )
    assert default.stages["function"].slices[0] == PromptLengthSlice()
    for bad, what in (("[{prompt_tokens: [10, 5]}]", "increasing"), ("[colour]", "slices")):
        with pytest.raises(ConfigError, match=what):
            parse_campaign(CAMPAIGN.format(slices=bad), Path("c.yaml"))
