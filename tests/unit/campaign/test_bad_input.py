"""Bad campaign files, every kind: each is a ``ConfigError`` whose every line names the file
(and, where there is one, the line and the key), never a traceback, a hang or a silent
coercion. The property tests mutate a valid campaign at random and hold the loader to that."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specverdict.campaign import build_plan, load_campaign, parse_campaign
from specverdict.campaign.model import (
    Campaign,
    Candidate,
    EngineSection,
    Gates,
    Load,
    ModelSection,
    Sampling,
    StageSection,
)
from specverdict.campaign.yamlfile import MAX_BYTES, MAX_DEPTH, MAX_NODES
from specverdict.errors import ConfigError

FILE = Path("c.yaml")

GOOD_TEXT = """\
name: t
engine: {kind: vllm, reconfigure: between-runs, base_url: http://127.0.0.1:8000}
model: {family: qwen3-moe, served_name: Qwen/Qwen3-30B-A3B-FP8}
quantization: fp8
candidates:
  - {method: mtp, k: [1, 2]}
  - {method: ngram, k: 4}
stages:
  function: {suite: humaneval-amplified@1, samples: {first: 20}}
sampling: {temperature: 0.0, max_tokens: 256, seed: 0}
load: {concurrency: [1, 4], repeats: 1}
gates: {alpha: 0.05, min_speedup: 1.05}
"""


def text_of(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def refused(text: str, file: Path = FILE) -> str:
    """The error a campaign text gets, checked to name the file on every line."""
    with pytest.raises(ConfigError) as info:
        parse_campaign(text, file)
    message = str(info.value)
    for line in message.splitlines():
        assert line.startswith(f"{file}:"), message
    return message


def test_the_base_campaign_is_valid() -> None:
    assert parse_campaign(GOOD_TEXT, FILE).name == "t"


def _edit(old: str, new: str) -> str:
    assert old in GOOD_TEXT, old
    return GOOD_TEXT.replace(old, new, 1)


# (file text, what the one line says): the cases a trial of hand-made bad files found
BAD_TEXTS = [
    ("", "c.yaml:1: a campaign must be a YAML mapping"),
    ("# nothing\n", "c.yaml:1: a campaign must be a YAML mapping"),
    ("- a\n- b\n", "c.yaml:1: a campaign must be a YAML mapping"),
    ("just a string\n", "c.yaml:1: a campaign must be a YAML mapping"),
    ("name: [unclosed\n", "c.yaml:2: not valid YAML"),
    (_edit("  - {method: mtp", "\t- {method: mtp"), "not tabs"),
    (GOOD_TEXT + "name: again\n", "name: duplicate key"),
    (_edit("max_tokens: 256", "max_tokens: 256, max_tokens: 5"), "sampling.max_tokens: duplicate"),
    (GOOD_TEXT + "frobnicate: 1\n", "frobnicate: unknown key"),
    (GOOD_TEXT + "? [a, b]\n: 1\n", "not valid YAML: found unhashable key"),
    (GOOD_TEXT + "? {a: 1}\n: 1\n", "not valid YAML: found unhashable key"),
    (
        GOOD_TEXT + "x: !!python/object/apply:os.system ['true']\n",
        "could not determine a constructor",
    ),
    (
        _edit("name: t", "name: !custom t"),
        "could not determine a constructor for the tag '!custom'",
    ),
    (_edit("name: t", "name: !!binary dA=="), "could not determine a constructor"),
    (_edit("name: t", "name: !!set {a, b}"), "could not determine a constructor"),
    (_edit("name: t", "name: t\x00"), "c.yaml:1: not valid YAML: character '\\x00' is not allowed"),
    (GOOD_TEXT + "---\nname: other\n", "not valid YAML: but found another document"),
    # booleans, floats and strings where an integer is meant
    (_edit("k: [1, 2]", "k: [1, true]"), "candidates[0].k: Input should be a valid integer"),
    (_edit("k: 4", "k: true"), "candidates[1].k: Input should be a valid integer (got True)"),
    (_edit("k: 4", "k: 4.0"), "candidates[1].k: Input should be a valid integer (got 4.0)"),
    (_edit("k: 4", "k: '4'"), "candidates[1].k: Input should be a valid integer (got '4')"),
    (_edit("k: 4", "k: 100000"), "candidates[1].k: Value error, k must be at most 256"),
    (_edit("repeats: 1", "repeats: yes"), "load.repeats: Input should be a valid integer (got yes"),
    (_edit("repeats: 1", "repeats: 1000000000"), "load.repeats: Input should be less than"),
    (
        _edit("max_tokens: 256", "max_tokens: 1.0e+26"),
        "sampling.max_tokens: Input should be a valid",
    ),
    (_edit("max_tokens: 256", "max_tokens: 1e26"), "sampling.max_tokens: Input should be a valid"),
    (_edit("max_tokens: 256", "max_tokens: 3.5"), "sampling.max_tokens: Input should be a valid"),
    (_edit("max_tokens: 256", "max_tokens: 99999999999999999999"), "sampling.max_tokens: Input"),
    (_edit("seed: 0", "seed: on"), "sampling.seed: Input should be a valid integer (got on"),
    (_edit("first: 20", "first: 100000000000000"), "stages.function.samples.first: Input"),
    (_edit("[1, 4]", "[1, 1000000]"), "load: Value error, load level 1e+06 is above"),
    (_edit("[1, 4]", "[1, 1]"), "load: Value error, a list of load levels has duplicates"),
    (_edit("[1, 4]", "[]"), "load: Value error, a list of load levels must not be empty"),
    # NaN, infinity and strings where a float is meant
    (
        _edit("temperature: 0.0", "temperature: .nan"),
        "sampling.temperature: Input should be a finite",
    ),
    (
        _edit("temperature: 0.0", "temperature: .inf"),
        "sampling.temperature: Input should be a finite",
    ),
    (
        _edit("min_speedup: 1.05", "min_speedup: -.inf"),
        "gates.min_speedup: Input should be a finite",
    ),
    (
        _edit("alpha: 0.05", "alpha: '0.05'"),
        "gates.alpha: Input should be a valid number (got '0.05')",
    ),
    (_edit("alpha: 0.05", "alpha: true"), "gates.alpha: Input should be a valid number (got True)"),
    (_edit("concurrency: [1, 4]", "request_rate: .nan"), "load.request_rate: Input should be"),
    (_edit("concurrency: [1, 4]", "request_rate: .inf"), "load.request_rate: Input should be"),
    (_edit("k: 4}", "k: 4, params: {x: .nan}}"), "Input should be a finite number"),
    # empty and blank names, paths and URLs
    (_edit("name: t", "name: ''"), "c.yaml:1: name: String should have at least 1 character"),
    (_edit("served_name: Qwen/Qwen3-30B-A3B-FP8", "served_name: '  '"), "model.served_name: Value"),
    (_edit("quantization: fp8", "quantization: ''"), "quantization: String should have at least"),
    (_edit("k: 4}", "k: 4, draft: ''}"), "candidates[1].draft: String should have at least"),
    (_edit("base_url: http://127.0.0.1:8000", "base_url: ''"), "engine.base_url: Value error"),
    (_edit("base_url: http://127.0.0.1:8000", "base_url: http://h:99999"), "must look like http"),
    (_edit("base_url: http://127.0.0.1:8000", "base_url: http://h x"), "must look like http"),
]


@pytest.mark.parametrize(("text", "expected"), BAD_TEXTS)
def test_a_bad_campaign_is_one_line_per_problem_naming_the_file(text: str, expected: str) -> None:
    message = refused(text)
    assert expected in message, message


def test_an_alias_bomb_is_refused_at_once() -> None:
    bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    previous = "a"
    for name in "bcdefghi":
        bomb += f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]\n"
        previous = name
    start = time.monotonic()
    message = refused(GOOD_TEXT + bomb)
    assert time.monotonic() - start < 2.0
    assert f"more than {MAX_NODES} values once its aliases are expanded" in message


def test_an_alias_that_holds_itself_is_refused() -> None:
    assert "refers to the mapping or list that holds it" in refused(GOOD_TEXT + "x: &x [*x]\n")


def test_deep_nesting_is_refused_without_a_recursion_error() -> None:
    deep = "x: " + "[" * 5000 + "]" * 5000 + "\n"
    assert f"nested more than {MAX_DEPTH} levels deep" in refused(GOOD_TEXT + deep)
    chain = "".join(f"a{i}: &a{i} [{f'*a{i - 1}' if i else '1'}]\n" for i in range(40))
    assert f"more than {MAX_DEPTH} levels deep" in refused(GOOD_TEXT + chain)


def test_aliases_within_the_limits_are_read_and_not_shared() -> None:
    text = _edit("sampling:", "sampling: &s") + "x_copy: *s\n"
    assert "x_copy: unknown key" in refused(text)
    shared = _edit("temperature: 0.0", "temperature: &t 0.0").replace("alpha: 0.05", "alpha: 0.05")
    assert parse_campaign(shared, FILE).sampling.temperature == 0.0


def test_a_date_is_a_string_not_a_timestamp() -> None:
    assert parse_campaign(_edit("name: t", "name: 2026-01-05"), FILE).name == "2026-01-05"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\x80\x81 binary", "c.yaml:1: not UTF-8 text (byte 0x80 at offset 0)"),
        (GOOD_TEXT.replace("t\n", "t\xe9\n", 1).encode("latin-1"), "c.yaml:1: not UTF-8 text"),
        (GOOD_TEXT.encode("utf-16"), "c.yaml:1: not UTF-8 text (byte 0xff at offset 0)"),
        (GOOD_TEXT.encode() + b"#" * MAX_BYTES, "c.yaml: cannot read campaign file: larger than 1"),
    ],
)
def test_files_that_are_not_small_utf8_text(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as info:
        load_campaign(path)
    assert len(str(info.value).splitlines()) == 1
    assert str(info.value).startswith(str(path)), info.value
    assert expected.removeprefix("c.yaml") in str(info.value)


def test_what_is_not_a_readable_file(tmp_path: Path) -> None:
    for path, expected in (
        (tmp_path / "missing.yaml", "cannot read campaign file: No such file or directory"),
        (tmp_path, "cannot read campaign file: it is a directory"),
        (Path(os.devnull), "a campaign must be a YAML mapping"),
    ):
        with pytest.raises(ConfigError, match=expected) as info:
            load_campaign(path)
        assert str(info.value).startswith(str(path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_nobody_writes_to_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(ConfigError, match="a campaign must be a YAML mapping"):
        load_campaign(fifo)
    assert time.monotonic() - start < 5.0


def test_a_file_of_the_largest_size_is_read(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(GOOD_TEXT + "#" * (MAX_BYTES - len(GOOD_TEXT) - 1) + "\n")
    assert load_campaign(path).name == "t"


# -- property tests ------------------------------------------------------------------------

#: the keys of each section the mutations reach (every field of the models, at their place)
SECTIONS: dict[tuple[str | int, ...], list[str]] = {
    (): list(Campaign.model_fields),
    ("engine",): list(EngineSection.model_fields),
    ("model",): list(ModelSection.model_fields),
    ("candidates", 0): list(Candidate.model_fields),
    ("candidates", 1): list(Candidate.model_fields),
    ("stages", "function"): list(StageSection.model_fields),
    ("stages", "function", "samples"): ["first", "seeded", "seed", "ids"],
    ("sampling",): list(Sampling.model_fields),
    ("load",): list(Load.model_fields),
    ("gates",): list(Gates.model_fields),
}

#: YAML tokens written as they are (unquoted), for what YAML makes of them
RAW_TOKENS = [
    "yes",
    "no",
    "on",
    "off",
    "true",
    "~",
    "null",
    "1e26",
    "1.0e+26",
    "-1.5e-300",
    ".nan",
    ".inf",
    "-.inf",
    "0x1F",
    "0o17",
    "1_000",
    "1:30",
    "2026-01-05",
    "''",
    '"\\u00e9"',
    "[]",
    "{}",
    "&anchor 1",
    "!!str 5",
    "!!int '7'",
    "!!float '1'",
    "!!binary aGk=",
    "!weird x",
    "|\n    block",
    "*undefined",
    "0",
    "-1",
    "256",
    "9223372036854775808",
    '"\\t"',
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=-3, max_value=300),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        ["", " ", "all", "auto", "off", "none", "mtp", "vllm", "http://", "http://h:1/v1", "fp8"]
    ),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
RAW = "__raw_token__"


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """The valid campaign with one to three keys set to a random value (or a raw YAML token)
    or removed."""
    data: Any = yaml.safe_load(GOOD_TEXT)
    raw = None
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(sorted(SECTIONS, key=str)))
        section = data
        for part in where:
            nested = (
                isinstance(section, dict) and part in section and isinstance(section[part], dict)
            ) or (isinstance(section, list) and isinstance(part, int) and part < len(section))
            if nested:
                section = section[part]
            elif isinstance(section, dict) and isinstance(part, str):
                section[part] = {}
                section = section[part]
            else:
                break
        if not isinstance(section, dict):
            continue
        key = draw(st.sampled_from([*SECTIONS[where], "unknown_key"]))
        action = draw(st.sampled_from(["value", "value", "raw", "remove"]))
        if action == "remove":
            section.pop(key, None)
        elif action == "raw" and raw is None:
            raw = draw(st.sampled_from(RAW_TOKENS))
            section[key] = RAW
        else:
            section[key] = draw(values)
    text = text_of(data)
    if raw is not None:
        text = text.replace(RAW, raw, 1)
    return text


def _check(text: str) -> None:
    try:
        campaign = parse_campaign(text, FILE)
    except ConfigError as exc:
        message = str(exc)
        assert message, "an empty error"
        for line in message.splitlines():
            assert line.startswith(f"{FILE}:"), message
        return
    # accepted: what the file says, no coercion on the way
    for value, kind in (
        (campaign.sampling.max_tokens, int),
        (campaign.load.repeats, int),
        (campaign.sampling.temperature, float),
        (campaign.gates.alpha, float),
    ):
        assert isinstance(value, kind) and not isinstance(value, bool)
    for candidate in campaign.candidates:
        for k in candidate.ks():
            assert k is None or (type(k) is int and 1 <= k <= 256)
    try:
        build_plan(campaign)
    except ConfigError as exc:
        assert all(line.startswith(f"{FILE}") for line in str(exc).splitlines()), exc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_mutated_campaign_is_valid_or_a_config_error(text: str) -> None:
    _check(text)


@settings(max_examples=150, deadline=None)
@given(values)
def test_any_yaml_document_is_valid_or_a_config_error(data: Any) -> None:
    _check(text_of(data))


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_valid_or_a_config_error(text: str) -> None:
    _check(text)
