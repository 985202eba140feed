"""llama.cpp's server, in process, under ``llama-server``'s own flags.

PyPI's ``xllamacpp`` compiles llama.cpp's ``tools/server`` into a Python extension: the full
HTTP API (``/completion``, ``/v1/completions``, ``/v1/chat/completions``, ``/tokenize``,
``/props``, ``/slots``, ``/metrics``, ``/health``) served by llama.cpp's own code, configured
through its ``common_params`` struct instead of a command line. This module parses a
``llama-server`` command line onto those params, so that the llama.cpp adapter's launch template
starts either; like ``llama-server`` it serves until SIGTERM or SIGINT::

    python -m specverdict.engines.xllamacpp_server -m target.gguf --port 8080 --metrics \\
        --spec-type draft-simple -md draft.gguf --spec-draft-n-max 3

Flag names, aliases and removed flags are those of llama.cpp's ``common/arg.cpp`` compiled into
the installed extension (xllamacpp 2026.10.11549); only a subset is mapped. A flag outside it, a
removed one (answered with llama.cpp's own message) or a bad value is one line and exit code 2.
A model that fails to load exits with code 1, its first llama.cpp error line repeated last.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import select
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, NoReturn

PROG = "xllamacpp-server"

#: llama.cpp's speculative types (``common/speculative.cpp``), as ``--spec-type`` names them
SPEC_TYPE_NAMES = (
    "none",
    "draft-simple",
    "draft-eagle3",
    "draft-mtp",
    "draft-dflash",
    "draft-dspark",
    "ngram-simple",
    "ngram-map-k",
    "ngram-map-k4v",
    "ngram-mod",
    "ngram-cache",
)

#: removed flags and llama.cpp's own answer to them (``arg_removed`` in ``common/arg.cpp``)
REMOVED: dict[str, str] = {
    **dict.fromkeys(
        ("--draft", "--draft-n", "--draft-max"), "use --spec-draft-n-max or --spec-ngram-mod-n-max"
    ),
    **dict.fromkeys(
        ("--draft-min", "--draft-n-min"), "use --spec-draft-n-min or --spec-ngram-mod-n-min"
    ),
    # the help text adds "or --spec-ngram-mod-n-match"; the refusal itself does not
    "--spec-ngram-size-n": "use the respective --spec-ngram-*-size-n",
    "--spec-ngram-size-m": "use the respective --spec-ngram-*-size-m",
    "--spec-ngram-min-hits": "use the respective --spec-ngram-*-min-hits",
}

#: a llama.cpp log line at error level: ``0.00.012.141 E llama_model_load: ...``
LLAMA_ERROR = re.compile(r"^\s*[\d.]+ E (.+)$")


class UsageError(ValueError):
    """A command line this server refuses; the message is one line."""


def fail(message: str, code: int = 2) -> NoReturn:
    sys.stderr.write(f"{PROG}: error: {message}\n")
    sys.stderr.flush()
    raise SystemExit(code)


@dataclass
class Settings:
    """What the command line asked for, before it is applied to ``common_params``."""

    model: str | None = None
    draft: str | None = None
    spec_types: list[str] = field(default_factory=list)
    host: str = "127.0.0.1"
    port: int = 8080
    #: ``common_params`` attribute paths -> values, applied in order
    assignments: list[tuple[str, Any]] = field(default_factory=list)

    def set(self, path: str, value: Any) -> None:
        self.assignments.append((path, value))


def _int(flag: str, value: str, minimum: int | None = None) -> int:
    try:
        number = int(value)
    except ValueError:
        raise UsageError(f"{flag} {value!r}: expected an integer") from None
    if minimum is not None and number < minimum:
        raise UsageError(f"{flag} {number}: expected at least {minimum}")
    return number


def _float(flag: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise UsageError(f"{flag} {value!r}: expected a number") from None


def _layers(flag: str, value: str) -> int:
    """``-ngl``: a layer count, ``auto`` (-1, llama.cpp's default) or ``all``."""
    if value == "auto":
        return -1
    if value == "all":
        return 2**31 - 1
    return _int(flag, value, 0)


def _spec_types(flag: str, value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    for name in names:
        if name not in SPEC_TYPE_NAMES:
            raise UsageError(
                f"{flag} {value!r}: unknown speculative type: {name} "
                f"(known: {', '.join(SPEC_TYPE_NAMES)})"
            )
    if not names:
        raise UsageError(f"{flag}: empty list")
    return names


Handler = Callable[[Settings, str, str], None]


def _to(path: str, convert: Callable[[str, str], Any]) -> Handler:
    return lambda s, flag, value: s.set(path, convert(flag, value))


def _str(flag: str, value: str) -> str:
    return value


def _ge(minimum: int) -> Callable[[str, str], int]:
    return lambda flag, value: _int(flag, value, minimum)


def _model(s: Settings, flag: str, value: str) -> None:
    s.model = value


def _draft(s: Settings, flag: str, value: str) -> None:
    s.draft = value


def _spec(s: Settings, flag: str, value: str) -> None:
    s.spec_types += _spec_types(flag, value)  # llama.cpp appends: give the list once


def _host(s: Settings, flag: str, value: str) -> None:
    s.host = value


def _port(s: Settings, flag: str, value: str) -> None:
    port = _int(flag, value, 0)
    if port > 65535:
        raise UsageError(f"{flag} {port}: expected 0..65535")
    s.port = port


def _alias(s: Settings, flag: str, value: str) -> None:
    s.set("model_alias", {a.strip() for a in value.split(",") if a.strip()})


def _flash_attn(s: Settings, flag: str, value: str) -> None:
    if value not in ("on", "off", "auto"):
        raise UsageError(f"{flag} {value!r}: expected on, off or auto")
    s.set("flash_attn_type", value)


#: flags with a value: names (as in ``common/arg.cpp``) -> handler
VALUED: dict[tuple[str, ...], Handler] = {
    ("-m", "--model"): _model,
    ("-md", "--model-draft", "--spec-draft-model"): _draft,
    ("--spec-type",): _spec,
    ("--host",): _host,
    ("--port",): _port,
    ("-a", "--alias"): _alias,
    ("-c", "--ctx-size"): _to("n_ctx", _ge(0)),
    ("-np", "--parallel"): _to("n_parallel", _ge(-1)),
    ("-b", "--batch-size"): _to("n_batch", _ge(1)),
    ("-ub", "--ubatch-size"): _to("n_ubatch", _ge(1)),
    ("-ngl", "--gpu-layers", "--n-gpu-layers"): _to("n_gpu_layers", _layers),
    ("-t", "--threads"): _to("cpuparams.n_threads", _ge(-1)),
    ("-tb", "--threads-batch"): _to("cpuparams_batch.n_threads", _ge(-1)),
    ("--threads-http",): _to("n_threads_http", _ge(-1)),
    ("-s", "--seed"): _to("sampling.seed", lambda f, v: _int(f, v) & 0xFFFFFFFF),
    ("-fa", "--flash-attn"): _flash_attn,
    ("--chat-template",): _to("chat_template", _str),
    ("-lv", "--verbosity", "--log-verbosity"): _to("verbosity", _ge(0)),
    ("-to", "--timeout"): _to("timeout_read", _ge(0)),
    ("--spec-draft-n-max",): _to("speculative.draft.n_max", _ge(0)),
    ("--spec-draft-n-min",): _to("speculative.draft.n_min", _ge(0)),
    ("--spec-draft-p-min", "--draft-p-min"): _to("speculative.draft.p_min", _float),
    ("--spec-draft-p-split", "--draft-p-split"): _to("speculative.draft.p_split", _float),
    ("--spec-draft-ngl", "-ngld", "--gpu-layers-draft", "--n-gpu-layers-draft"): _to(
        "speculative.draft.n_gpu_layers", _layers
    ),
    ("--spec-draft-threads", "-td", "--threads-draft"): _to(
        "speculative.draft.cpuparams.n_threads", _ge(-1)
    ),
    ("--spec-draft-threads-batch", "-tbd", "--threads-batch-draft"): _to(
        "speculative.draft.cpuparams_batch.n_threads", _ge(-1)
    ),
    ("--spec-ngram-simple-size-n",): _to("speculative.ngram_simple.size_n", _ge(1)),
    ("--spec-ngram-simple-size-m",): _to("speculative.ngram_simple.size_m", _ge(1)),
    ("--spec-ngram-simple-min-hits",): _to("speculative.ngram_simple.min_hits", _ge(1)),
    ("--spec-ngram-map-k-size-n",): _to("speculative.ngram_map_k.size_n", _ge(1)),
    ("--spec-ngram-map-k-size-m",): _to("speculative.ngram_map_k.size_m", _ge(1)),
    ("--spec-ngram-map-k-min-hits",): _to("speculative.ngram_map_k.min_hits", _ge(1)),
    ("--spec-ngram-map-k4v-size-n",): _to("speculative.ngram_map_k4v.size_n", _ge(1)),
    ("--spec-ngram-map-k4v-size-m",): _to("speculative.ngram_map_k4v.size_m", _ge(1)),
    ("--spec-ngram-map-k4v-min-hits",): _to("speculative.ngram_map_k4v.min_hits", _ge(1)),
    ("--spec-ngram-mod-n-min",): _to("speculative.ngram_mod.n_min", _ge(1)),
    ("--spec-ngram-mod-n-max",): _to("speculative.ngram_mod.n_max", _ge(1)),
    ("--spec-ngram-mod-n-match",): _to("speculative.ngram_mod.n_match", _ge(1)),
    ("-lcs", "--lookup-cache-static"): _to("speculative.ngram_cache.lookup_cache_static", _str),
    ("-lcd", "--lookup-cache-dynamic"): _to("speculative.ngram_cache.lookup_cache_dynamic", _str),
}

#: switches: name -> (``common_params`` attribute path, value set)
SWITCHES: dict[str, tuple[str, bool]] = {
    "--metrics": ("endpoint_metrics", True),
    "--props": ("endpoint_props", True),
    "--slots": ("endpoint_slots", True),
    "--no-slots": ("endpoint_slots", False),
    "--jinja": ("use_jinja", True),
    "--no-jinja": ("use_jinja", False),
    "--warmup": ("warmup", True),
    "--no-warmup": ("warmup", False),
    "--cache-prompt": ("cache_prompt", True),
    "--no-cache-prompt": ("cache_prompt", False),
    "-cb": ("cont_batching", True),
    "--cont-batching": ("cont_batching", True),
    "-nocb": ("cont_batching", False),
    "--no-cont-batching": ("cont_batching", False),
    "--context-shift": ("ctx_shift", True),
    "--no-context-shift": ("ctx_shift", False),
}

_VALUED_BY_NAME = {name: handler for names, handler in VALUED.items() for name in names}


def parse(argv: Sequence[str]) -> Settings:
    """A ``llama-server`` command line as :class:`Settings`; raises :class:`UsageError` with a
    one-line message. As in llama.cpp, ``_`` in a ``--`` flag reads as ``-`` and a value is the
    next argument (no ``--flag=value``)."""
    settings = Settings()
    i = 0
    while i < len(argv):
        arg = argv[i]
        flag = arg.replace("_", "-") if arg.startswith("--") else arg
        if flag in REMOVED:
            raise UsageError(f"{arg}: the argument has been removed. {REMOVED[flag]}")
        if flag in SWITCHES:
            path, value = SWITCHES[flag]
            settings.set(path, value)
            i += 1
            continue
        handler = _VALUED_BY_NAME.get(flag)
        if handler is None:
            raise UsageError(f"invalid argument: {arg} (not a llama-server flag this server maps)")
        if i + 1 >= len(argv):
            raise UsageError(f"{arg}: expected value for argument")
        handler(settings, arg, argv[i + 1])
        i += 2
    if settings.model is None:
        raise UsageError("-m/--model is required (a GGUF file)")
    draft_types = [t for t in settings.spec_types if t.startswith("draft-") and t != "draft-mtp"]
    if draft_types and settings.draft is None:
        raise UsageError(f"--spec-type {draft_types[0]} needs a draft model (-md/--model-draft)")
    return settings


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _assign(root: Any, path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    target = root
    for name in parents:
        target = getattr(target, name)
    setattr(target, leaf, value)


def common_params(settings: Settings, xllamacpp: Any) -> Any:
    """An ``xllamacpp.CommonParams`` for the settings. Thread counts left at -1 get llama.cpp's
    ``postprocess_cpu_params`` treatment (which its argument parser applies and the extension
    does not): the usable cores, then batch and draft threads follow the main count."""
    params = xllamacpp.CommonParams()
    params.model.path = settings.model
    params.hostnames = [settings.host]
    params.port = settings.port
    params.n_gpu_layers = 0  # CPU build; -ngl overrides
    params.speculative.draft.n_gpu_layers = 0
    for path, value in settings.assignments:
        if path == "flash_attn_type":
            name = {"on": "ENABLED", "off": "DISABLED", "auto": "AUTO"}[value]
            _assign(
                params,
                path,
                getattr(xllamacpp.llama_flash_attn_type, f"LLAMA_FLASH_ATTN_TYPE_{name}"),
            )
        else:
            _assign(params, path, value)
    if settings.draft is not None:
        params.speculative.draft.mparams.path = settings.draft
    if settings.spec_types:
        enum = xllamacpp.common_speculative_type
        params.speculative.types = [
            getattr(enum, "COMMON_SPECULATIVE_TYPE_" + t.upper().replace("-", "_"))
            for t in settings.spec_types
        ]
    if params.cpuparams.n_threads < 0:
        params.cpuparams.n_threads = _default_threads()
    for cpu in (params.cpuparams_batch, params.speculative.draft.cpuparams):
        if cpu.n_threads < 0:
            cpu.n_threads = params.cpuparams.n_threads
    draft_batch = params.speculative.draft.cpuparams_batch
    if draft_batch.n_threads < 0:
        draft_batch.n_threads = params.speculative.draft.cpuparams.n_threads
    return params


class StderrErrors:
    """Passes file descriptor 2 through a pipe while the server starts, keeping llama.cpp's
    error-level lines: its logger writes to fd 2 from C++, out of Python's reach."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self._saved = os.dup(2)
        read, write = os.pipe()
        os.dup2(write, 2)
        os.close(write)
        self._thread = threading.Thread(target=self._pump, args=(read,), daemon=True)
        self._thread.start()

    def _pump(self, read: int) -> None:
        pending = b""
        while chunk := os.read(read, 65536):
            os.write(self._saved, chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                match = LLAMA_ERROR.match(line.decode(errors="replace"))
                if match:
                    self.errors.append(match.group(1).strip())
        os.close(read)

    def restore(self) -> None:
        """Put the original fd 2 back and wait until every line written so far is copied."""
        sys.stderr.flush()
        os.dup2(self._saved, 2)  # closes the pipe's last write end: the pump reads to EOF
        self._thread.join()
        os.close(self._saved)


def serve(settings: Settings) -> int:
    """Start the server and block until SIGTERM or SIGINT; 1 when it does not start."""
    try:
        xllamacpp: Any = importlib.import_module("xllamacpp")  # no type information
    except ImportError as exc:
        fail(f"xllamacpp is not installed ({exc}): pip install xllamacpp", code=1)
    params = common_params(settings, xllamacpp)
    print(
        f"{PROG}: llama.cpp server (xllamacpp {xllamacpp.__version__}), model {settings.model}, "
        f"speculative types {','.join(settings.spec_types) or 'none'}, draft {settings.draft}",
        file=sys.stderr,
        flush=True,
    )
    capture = StderrErrors()
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:
        capture.restore()
        cause = capture.errors[0] if capture.errors else str(exc)
        # "Error:" marks the line for log readers that look for the first error
        sys.stderr.write(f"{PROG}: Error: the server did not start: {cause}\n")
        return 1
    capture.restore()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    # llama.cpp's start-up installed its own SIGTERM/SIGINT handlers (they end the serving loop
    # and leave this process waiting): take them back
    read, write = os.pipe()
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(f"{PROG}: serving at {server.listening_address}", file=sys.stderr, flush=True)
    while not stop.is_set():
        with contextlib.suppress(InterruptedError):
            select.select([read], [], [])
        with contextlib.suppress(BlockingIOError):
            os.read(read, 512)
    print(f"{PROG}: stopping", file=sys.stderr, flush=True)
    del server  # ends llama.cpp's loop and joins its thread
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    try:
        settings = parse(args)
    except UsageError as exc:
        fail(str(exc))
    return serve(settings)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # the server has stopped; the extension's static destructors take over a second more to
    # tear down what the process exit frees anyway
    os._exit(code)
