"""Check that the overrides a deployment depends on are in place: files by sha256 or by marker.

Overrides (patched engine sources, replaced configs, swapped weights) are often mounted into a
container and vanish silently when it is re-created without its mounts. A manifest lists what
must be there::

    # overrides.yaml
    files:
      draft/config.json: "3f2a...c9"        # shorthand for {sha256: ...}; quote it
      /app/vllm/model_executor/models/deepseek_mtp.py:
        marker: "# patched: load shared experts"   # a substring some line must contain
      /etc/engine.env:
        line: "SPEC_LOADER_STRICT=1"                 # a whole line (surrounding blanks ignored)

Each entry has exactly one check: ``sha256`` (64 hex digits), ``marker`` or ``line``. The
target is a :class:`Directory` (relative paths below it; an absolute path is taken below it too,
as if the directory were the file system root the manifest was written for) or a
:class:`CommandPrefix` whose argv is run before ``sha256sum PATH`` / ``cat PATH``, without a
shell: ``docker exec NAME`` checks inside a container, ``ssh HOST`` on another machine, ``env``
locally. Every entry ends ``ok``, ``missing``, ``changed`` or ``error`` (the check itself could
not run: the command failed for another reason than a missing file).
"""

from __future__ import annotations

import hashlib
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict

from specverdict.errors import ConfigError
from specverdict.records.audits import CheckKind, OverrideAudit, OverrideResult

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")
#: what a missing file's error looks like from coreutils, busybox and docker exec
_MISSING = ("No such file or directory", "not found", "does not exist")


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OverrideEntry(Frozen):
    path: str
    check: CheckKind
    expected: str


class OverrideManifest(Frozen):
    entries: tuple[OverrideEntry, ...]
    source: str = ""


class Directory(Frozen):
    """Files below a directory."""

    kind: Literal["directory"] = "directory"
    root: str

    def describe(self) -> str:
        return f"directory {self.root}"


class CommandPrefix(Frozen):
    """Files reached through a command prefix (argv), e.g. ``("docker", "exec", "vllm")``."""

    kind: Literal["command"] = "command"
    argv: tuple[str, ...]
    timeout_s: float = 30.0

    @classmethod
    def parse(cls, text: str, timeout_s: float = 30.0) -> CommandPrefix:
        argv = tuple(shlex.split(text))
        if not argv:
            raise ConfigError("the command prefix is empty")
        return cls(argv=argv, timeout_s=timeout_s)

    def describe(self) -> str:
        return f"command prefix {shlex.join(self.argv)}"


def _entry(path: str, spec: Any, where: str) -> OverrideEntry:
    if isinstance(spec, str | int | float) and not isinstance(spec, bool):
        spec = {"sha256": spec}
    if not isinstance(spec, dict):
        raise ConfigError(f"{where}: {path}: expected a sha256 or {{sha256|marker|line: ...}}")
    keys = set(spec) & {"sha256", "marker", "line"}
    extra = set(spec) - {"sha256", "marker", "line"}
    if extra:
        raise ConfigError(f"{where}: {path}: unknown key {sorted(extra)[0]!r}")
    if len(keys) != 1:
        raise ConfigError(f"{where}: {path}: give exactly one of sha256, marker, line")
    (kind,) = keys
    value = spec[kind]
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise ConfigError(f"{where}: {path}: quote the {kind} (YAML read it as a number)")
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: {path}: {kind} must be a non-empty string")
    if kind == "sha256" and not _HEX64.fullmatch(value):
        raise ConfigError(f"{where}: {path}: sha256 must be 64 hex digits")
    if path.startswith("-"):
        raise ConfigError(f"{where}: {path}: a path must not start with '-'")
    return OverrideEntry(
        path=path, check=kind, expected=value.lower() if kind == "sha256" else value
    )


def parse_manifest(data: Any, where: str = "manifest") -> OverrideManifest:
    """A manifest from parsed YAML: ``{files: {path: sha256 | {sha256|marker|line: ...}}}``."""
    if not isinstance(data, dict) or set(data) != {"files"} or not isinstance(data["files"], dict):
        raise ConfigError(f"{where}: expected a mapping with one key, files: {{path: check}}")
    if not data["files"]:
        raise ConfigError(f"{where}: files is empty")
    entries = tuple(_entry(str(p), spec, where) for p, spec in data["files"].items())
    return OverrideManifest(entries=entries, source=where)


def load_manifest(path: str | Path) -> OverrideManifest:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    return parse_manifest(data, str(path))


def _judge(entry: OverrideEntry, content: bytes | None, digest: str | None) -> OverrideResult:
    base = {"path": entry.path, "check": entry.check, "expected": entry.expected}
    if entry.check == "sha256":
        ok = digest == entry.expected
        return OverrideResult(
            **base,
            status="ok" if ok else "changed",
            actual=digest,
            detail="" if ok else "sha256 differs",
        )
    text = (content or b"").decode("utf-8", errors="replace")
    if entry.check == "marker":
        found = entry.expected in text
    else:
        found = any(line.strip() == entry.expected.strip() for line in text.splitlines())
    return OverrideResult(
        **base,
        status="ok" if found else "changed",
        detail="" if found else f"no line {'contains' if entry.check == 'marker' else 'equals'} it",
    )


def _in_directory(entry: OverrideEntry, root: Path) -> OverrideResult:
    path = root / entry.path.lstrip("/")
    if not path.is_file():
        return OverrideResult(
            path=entry.path,
            check=entry.check,
            expected=entry.expected,
            status="missing",
            detail=f"{path} is not a file",
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        return OverrideResult(
            path=entry.path,
            check=entry.check,
            expected=entry.expected,
            status="error",
            detail=str(exc.strerror or exc),
        )
    digest = hashlib.sha256(data).hexdigest()
    return _judge(entry, data, digest)


def _through(entry: OverrideEntry, prefix: CommandPrefix) -> OverrideResult:
    tool = ["sha256sum", entry.path] if entry.check == "sha256" else ["cat", entry.path]
    argv = [*prefix.argv, *tool]
    base = {"path": entry.path, "check": entry.check, "expected": entry.expected}
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=prefix.timeout_s, check=False)
    except FileNotFoundError:
        raise ConfigError(f"command prefix: {prefix.argv[0]}: command not found") from None
    except subprocess.TimeoutExpired:
        return OverrideResult(
            **base, status="error", detail=f"{shlex.join(argv)} timed out after {prefix.timeout_s}s"
        )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", errors="replace").strip()
        last = err.splitlines()[-1] if err else f"exit code {proc.returncode}"
        missing = any(m in err for m in _MISSING) and entry.path in err
        return OverrideResult(**base, status="missing" if missing else "error", detail=last)
    if entry.check == "sha256":
        out = proc.stdout.decode("utf-8", errors="replace").split()
        digest = out[0].lower() if out and _HEX64.fullmatch(out[0]) else None
        if digest is None:
            return OverrideResult(**base, status="error", detail="sha256sum printed no digest")
        return _judge(entry, None, digest)
    return _judge(entry, proc.stdout, None)


def check_overrides(manifest: OverrideManifest, target: Directory | CommandPrefix) -> OverrideAudit:
    """Check every manifest entry against the target; ``clean`` when all are ``ok``."""
    results: list[OverrideResult] = []
    for entry in manifest.entries:
        if isinstance(target, Directory):
            results.append(_in_directory(entry, Path(target.root)))
        else:
            results.append(_through(entry, target))
    counts = {s: sum(r.status == s for r in results) for s in ("ok", "missing", "changed", "error")}
    bad = {s: n for s, n in counts.items() if s != "ok" and n}
    if bad:
        verdict = (
            f"overrides: {sum(bad.values())} of {len(results)} not in place ("
            + ", ".join(f"{n} {s}" for s, n in bad.items())
            + f") in {target.describe()}"
        )
    else:
        verdict = f"overrides: all {len(results)} in place in {target.describe()}"
    return OverrideAudit(
        target=target.describe(),
        manifest=manifest.source,
        entries=tuple(results),
        counts=counts,
        clean=not bad,
        verdict=verdict,
    )
