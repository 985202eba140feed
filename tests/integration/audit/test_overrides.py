"""Override manifests checked in a directory and through a command prefix run locally."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from specverdict.audit.overrides import (
    CommandPrefix,
    Directory,
    check_overrides,
    load_manifest,
    parse_manifest,
)
from specverdict.errors import ConfigError
from tests.conftest import specverdict_cli

PATCHED = "def load():\n    # patched: load shared experts\n    return True\nFLAG=1\n"


def _tree(root: Path) -> dict[str, str]:
    (root / "draft").mkdir(parents=True)
    (root / "draft" / "config.json").write_text('{"num_nextn_predict_layers": 1}\n')
    (root / "app").mkdir()
    (root / "app" / "loader.py").write_text(PATCHED)
    return {
        "config": hashlib.sha256((root / "draft" / "config.json").read_bytes()).hexdigest(),
    }


def _manifest(tmp_path: Path, sums: dict[str, str]) -> Path:
    path = tmp_path / "overrides.yaml"
    path.write_text(
        "files:\n"
        f"  draft/config.json: {sums['config']}\n"
        "  /app/loader.py:\n"
        '    marker: "# patched: load shared experts"\n'
        "  app/loader.py:\n"
        '    line: "FLAG=1"\n'
        f"  draft/tokenizer.json: {{sha256: '{'0' * 64}'}}\n"
    )
    return path


def test_directory_ok_missing_changed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    sums = _tree(root)
    manifest = load_manifest(_manifest(tmp_path, sums))
    audit = check_overrides(manifest, Directory(root=str(root)))
    status = {(e.path, e.check): e.status for e in audit.entries}
    assert status == {
        ("draft/config.json", "sha256"): "ok",
        ("/app/loader.py", "marker"): "ok",  # an absolute path is taken below the directory
        ("app/loader.py", "line"): "ok",
        ("draft/tokenizer.json", "sha256"): "missing",
    }
    assert audit.counts == {"ok": 3, "missing": 1, "changed": 0, "error": 0}
    assert not audit.clean
    assert audit.verdict == f"overrides: 1 of 4 not in place (1 missing) in directory {root}"
    # the patch is lost and the config edited: marker and line fail, sha256 differs
    (root / "app" / "loader.py").write_text("def load():\n    return True\nFLAG=10\n")
    (root / "draft" / "config.json").write_text('{"num_nextn_predict_layers": 2}\n')
    audit = check_overrides(manifest, Directory(root=str(root)))
    changed = {e.path: e for e in audit.entries if e.status == "changed"}
    assert set(changed) == {"draft/config.json", "/app/loader.py", "app/loader.py"}
    assert (
        changed["draft/config.json"].actual
        == hashlib.sha256((root / "draft" / "config.json").read_bytes()).hexdigest()
    )
    assert changed["app/loader.py"].detail == "no line equals it"  # FLAG=10 is not FLAG=1


@pytest.mark.parametrize(
    "prefix",
    [
        ["env"],  # runs the tool directly
        ["sh", "-c", 'cd "$0" && exec "$@"', "{root}"],  # like docker exec: in another cwd
    ],
)
def test_command_prefix(tmp_path: Path, prefix: list[str]) -> None:
    root = tmp_path / "root"
    sums = _tree(root)
    argv = tuple(a.format(root=root) for a in prefix)
    relative = argv[0] == "sh"
    base = "" if relative else f"{root}/"
    manifest = parse_manifest(
        {
            "files": {
                f"{base}draft/config.json": sums["config"],
                f"{base}app/loader.py": {"marker": "# patched: load shared experts"},
                f"{base}draft/gone.json": {"line": "x"},
                f"{base}app/loader.py ": {"sha256": "a" * 64},
            }
        }
    )
    audit = check_overrides(manifest, CommandPrefix(argv=argv))
    assert [e.status for e in audit.entries] == ["ok", "ok", "missing", "missing"]
    assert audit.entries[0].actual == sums["config"]
    assert "No such file or directory" in audit.entries[2].detail


def test_prefix_failures_are_errors_not_missing(tmp_path: Path) -> None:
    manifest = parse_manifest({"files": {"/etc/hostname": {"marker": "x"}}})
    audit = check_overrides(manifest, CommandPrefix(argv=("sh", "-c", "echo boom >&2; exit 3")))
    (e,) = audit.entries
    assert (e.status, e.detail) == ("error", "boom")
    assert audit.verdict.startswith("overrides: 1 of 1 not in place (1 error)")
    with pytest.raises(ConfigError, match="no-such-tool: command not found"):
        check_overrides(manifest, CommandPrefix(argv=("no-such-tool",)))


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    root = tmp_path / "root"
    sums = _tree(root)
    manifest = _manifest(tmp_path, sums)
    proc = specverdict_cli("audit", "overrides", str(manifest), "--dir", str(root), "--json")
    assert proc.returncode == 1, proc.stderr
    audit = json.loads(proc.stdout)
    assert audit["counts"]["missing"] == 1 and audit["clean"] is False
    (root / "draft" / "tokenizer.json").write_text("")
    fixed = manifest.read_text().replace("0" * 64, hashlib.sha256(b"").hexdigest())
    manifest.write_text(fixed)
    proc = specverdict_cli(
        "audit", "overrides", str(manifest), "--prefix", f"sh -c 'cd {root} && exec \"$@\"' x"
    )
    # absolute /app/loader.py is not below root through a prefix: missing there
    assert proc.returncode == 1 and "missing  marker /app/loader.py" in proc.stdout
    proc = specverdict_cli("audit", "overrides", str(manifest), "--dir", str(root))
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == f"overrides: all 4 in place in directory {root}"


@pytest.mark.parametrize(
    "yaml_text, expected",
    [
        ("files: {a: nothex}\n", "sha256 must be 64 hex digits"),
        (f"files: {{a: {'1' * 64}}}\n", "quote the sha256 (YAML read it as a number)"),
        ("files: {a: {marker: x, line: y}}\n", "exactly one of sha256, marker, line"),
        ("files: {a: {sha: x}}\n", "unknown key 'sha'"),
        ("paths: {a: b}\n", "expected a mapping with one key, files"),
        ("files: {}\n", "files is empty"),
        ("files: [\n", "not valid YAML"),
        ("files: {-rf: {marker: x}}\n", "must not start with '-'"),
    ],
)
def test_bad_manifests_exit_2(tmp_path: Path, yaml_text: str, expected: str) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text(yaml_text)
    proc = specverdict_cli("audit", "overrides", str(manifest), "--dir", str(tmp_path))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr


def test_target_must_be_one_of_dir_or_prefix(tmp_path: Path) -> None:
    manifest = tmp_path / "m.yaml"
    manifest.write_text("files: {a: {marker: x}}\n")
    for extra in ([], ["--dir", str(tmp_path), "--prefix", "env"], ["--dir", str(tmp_path / "x")]):
        proc = specverdict_cli("audit", "overrides", str(manifest), *extra)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
