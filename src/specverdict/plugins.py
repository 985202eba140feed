"""Registries for the extension points: engine adapters, suites, sandboxes, stores, outputs.

Each registry knows its built-in entries by name and the import path that provides each one
(``"module:attribute"``); nothing is imported until it is asked for, so listing the names costs
no import. Other packages add entries through Python entry points in the registry's group
(``specverdict.engines``, ``specverdict.suites``, ...), e.g. in their ``pyproject.toml``::

    [project.entry-points."specverdict.engines"]
    myengine = "myengine_specverdict:MyEngineAdapter"

A built-in name wins over a plugin of the same name (a plugin cannot silently replace what a
verdict was validated against). A name that is not registered is a ``ConfigError`` in one line
with the closest name and the known ones. Validation (the campaign's allowed engine kinds, the
suites a stage may name) reads the names from here: there is no second list.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from specverdict.errors import ConfigError

T = TypeVar("T")

#: entry points by group and import path: reading them scans every installed distribution's
#: metadata (about 18 ms here), and a campaign's engine kind is validated against the engine
#: registry each time a stored record is read; what is installed on an unchanged path does not
#: change while the process runs
_ENTRY_POINTS: dict[tuple[str, tuple[str, ...]], tuple[EntryPoint, ...]] = {}


def _group_entry_points(group: str) -> tuple[EntryPoint, ...]:
    key = (group, tuple(sys.path))
    if key not in _ENTRY_POINTS:
        _ENTRY_POINTS[key] = tuple(entry_points(group=group))
    return _ENTRY_POINTS[key]


class UnknownNameError(ConfigError, KeyError):
    """A name no registry entry has. Also a ``KeyError`` (a lookup miss), whose ``str`` is the
    message itself rather than its quoted repr."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class PluginError(ConfigError):
    """A plugin's entry point that cannot be loaded, or loads something of the wrong kind."""


class Registry(Generic[T]):
    """Named entries of one extension point, built-in and from entry points, loaded lazily."""

    def __init__(self, what: str, group: str, builtins: Mapping[str, str]) -> None:
        self.what = what  #: how a miss names the entry, e.g. "engine kind"
        self.group = group  #: the entry-point group plugins register in
        self._builtins = dict(builtins)
        self._loaded: dict[str, T] = {}

    def _plugins(self) -> dict[str, EntryPoint]:
        return {
            ep.name: ep for ep in _group_entry_points(self.group) if ep.name not in self._builtins
        }

    def names(self) -> list[str]:
        return sorted({*self._builtins, *self._plugins()})

    def origin(self, name: str) -> str:
        """``specverdict`` for a built-in entry, else the distribution that registers it."""
        if name in self._builtins:
            return "specverdict"
        ep = self._plugins().get(name)
        if ep is None:
            raise self.miss(name)
        return ep.dist.name if ep.dist is not None else ep.value

    def miss(self, name: str) -> UnknownNameError:
        names = self.names()
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        return UnknownNameError(f"unknown {self.what} {name!r}{hint} (known: {', '.join(names)})")

    def get(self, name: str) -> T:
        """The entry ``name`` (imported on first use). The caller checks that what a plugin
        registered is of the right kind (``PluginError`` otherwise)."""
        if name in self._loaded:
            return self._loaded[name]
        if name in self._builtins:
            module, _, attr = self._builtins[name].partition(":")
            obj = getattr(importlib.import_module(module), attr)
        else:
            ep = self._plugins().get(name)
            if ep is None:
                raise self.miss(name)
            try:
                obj = ep.load()
            except Exception as exc:  # a broken plugin must not take the tool down with it
                raise PluginError(
                    f"{self.what} {name!r} from entry point {ep.value!r} ({self.group}) cannot "
                    f"be loaded: {type(exc).__name__}: {exc}"
                ) from None
        self._loaded[name] = obj
        return obj  # type: ignore[no-any-return]

    def wrong_kind(self, name: str, obj: object, expected: str) -> PluginError:
        return PluginError(f"{self.what} {name!r} ({self.group}) is {obj!r}, not {expected}")


#: engine adapters (``EngineAdapter`` subclasses) by engine kind
ENGINES: Registry[type] = Registry(
    "engine kind",
    "specverdict.engines",
    {
        "vllm": "specverdict.engines.vllm:VLLMAdapter",
        "sglang": "specverdict.engines.sglang:SGLangAdapter",
        "trtllm": "specverdict.engines.trtllm:TRTLLMAdapter",
        "llamacpp": "specverdict.engines.llamacpp:LlamaCppAdapter",
        "openai": "specverdict.engines.openai_generic:OpenAIAdapter",
        "reference": "specverdict.engines.reference:ReferenceAdapter",
    },
)

#: suites (``Suite`` subclasses, constructed without arguments) by ``name@version``
SUITES: Registry[type] = Registry(
    "suite",
    "specverdict.suites",
    {
        "builtin-code@1": "specverdict.suites.function.builtin:BuiltinCode",
        "humaneval@1": "specverdict.suites.function.humaneval:HumanEval",
        "humaneval-chat@1": "specverdict.suites.function.humaneval:HumanEvalChat",
        "humaneval-plus@1": "specverdict.suites.function.evalplus:HumanEvalPlus",
        "humaneval-plus-chat@1": "specverdict.suites.function.evalplus:HumanEvalPlusChat",
        "mbpp-plus@1": "specverdict.suites.function.evalplus:MbppPlus",
        "prose@1": "specverdict.suites.prose:Prose",
        "agent-tasks@1": "specverdict.suites.agent:AgentTasks",
        "bfcl@1": "specverdict.suites.agent:Bfcl",
        "repository@1": "specverdict.suites.repository:Repository",
        "repository-mutants@1": "specverdict.suites.repository.mutants:RepositoryMutants",
        "testgen@1": "specverdict.suites.testgen:TestGen",
        "synth-function@1": "specverdict.suites.synth.suites:SynthFunction",
        "synth-agent@2": "specverdict.suites.synth.suites:SynthAgent",
        "synth-repository@2": "specverdict.suites.synth.suites:SynthRepository",
    },
)

#: sandboxes that run model-written code (``Sandbox`` subclasses) by name
SANDBOXES: Registry[type] = Registry(
    "sandbox", "specverdict.sandboxes", {"local": "specverdict.sandbox.local:LocalSandbox"}
)

#: run registries (``Store`` implementations, constructed from a location) by URL scheme
STORES: Registry[type] = Registry(
    "store",
    "specverdict.stores",
    {
        "sqlite": "specverdict.store.sqlite:SQLiteStore",
        "postgresql": "specverdict.store.postgres:PostgresStore",
    },
)

#: outputs (``report.outputs.FileOutput`` or ``TrackingOutput`` values) by name: the reports,
#: the request-row and result exports, and the tracking servers runs are logged to
OUTPUTS: Registry[object] = Registry(
    "output",
    "specverdict.outputs",
    {
        "html": "specverdict.report.html:OUTPUT",
        "markdown": "specverdict.report.markdown:OUTPUT",
        "json": "specverdict.report.outputs:REPORT_JSON",
        "jsonl": "specverdict.report.export:JSONL",
        "csv": "specverdict.report.export:CSV",
        "parquet": "specverdict.report.export:PARQUET",
        "result": "specverdict.report.export:RESULT",
        "mlflow": "specverdict.report.mlflow:OUTPUT",
    },
)

REGISTRIES: tuple[Registry[Any], ...] = (ENGINES, SUITES, SANDBOXES, STORES, OUTPUTS)
