"""The registries read the installed distributions' entry points once per import path, not
once per lookup: a campaign's engine kind is checked against the engine registry every time a
stored record is read, and each scan of the metadata costs milliseconds."""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint

import pytest

from specverdict import plugins
from specverdict.plugins import Registry


def test_entry_points_are_read_once_per_path(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counted(group: str) -> list[EntryPoint]:
        calls.append(group)
        return [EntryPoint("extra", "somewhere:Thing", group)]

    monkeypatch.setattr(plugins, "entry_points", counted)
    monkeypatch.setattr(plugins, "_ENTRY_POINTS", {})
    registry: Registry[object] = Registry("thing", "specverdict.test-things", {"own": "x:y"})
    for _ in range(50):
        assert registry.names() == ["extra", "own"]
    assert calls == ["specverdict.test-things"]
    # a new import path may hold new distributions: read again
    monkeypatch.setattr(sys, "path", [*sys.path, "/nonexistent-site"])
    assert registry.names() == ["extra", "own"]
    assert len(calls) == 2
