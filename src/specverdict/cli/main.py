"""Entry point of ``specverdict``.

Exit codes (docs/faults.md): 0 ok; 1 a claim not attainable (``expect``); 2 usage or
configuration error; 5 the engine or the registry failed a run (samples saved); 130 interrupted
(samples saved). ``verdict`` and ``compare`` exit with their most severe verdict: 4 INVALID, then
1 REJECT, then 3 INCONCLUSIVE, 0 when every pair is ADOPT.
"""

from __future__ import annotations

import signal
import sys

import click

from specverdict import __version__
from specverdict.cli.lazy import LazyGroup
from specverdict.errors import SpecverdictError, UserInterruptError

#: every command, imported when it is called (``cli.lazy``)
COMMANDS = {
    "audit": "specverdict.cli.audit:audit",
    "calibrate": "specverdict.cli.calibrate:calibrate",
    "checklist": "specverdict.cli.checklist:checklist",
    "compare": "specverdict.cli.verdict:compare",
    "compare-live": "specverdict.cli.compare_live:compare_live",
    "demo": "specverdict.cli.demo:demo",
    "expect": "specverdict.cli.expect:expect",
    "export": "specverdict.cli.export:export_group",
    "init": "specverdict.cli.init:init",
    "plugins": "specverdict.cli.plugins:plugins",
    "policy": "specverdict.cli.policy:policy",
    "report": "specverdict.cli.report:report",
    "resample": "specverdict.cli.resample:resample",
    "run": "specverdict.cli.run:run",
    "runs": "specverdict.cli.runs:runs",
    "schema": "specverdict.cli.schema:schema",
    "suites": "specverdict.cli.suites:suites",
    "sweep": "specverdict.cli.sweep:sweep",
    "validate": "specverdict.cli.validate:validate",
    "verdict": "specverdict.cli.verdict:verdict",
    "watch": "specverdict.cli.watch:watch",
}


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="specverdict")
def cli() -> None:
    """Decide, per coding workload, whether a speculative-decoding setting is worth turning on.

    Example: specverdict demo
    """


#: the signal that stopped this process, when it was a SIGTERM (a scheduler, ``kill``,
#: ``docker stop``): handled like Ctrl-C, so that finished samples are kept and launched
#: engines stopped, and the exit code says which signal it was (128 + 15)
_TERMINATED: list[int] = []


def _on_sigterm(signum: int, _frame: object) -> None:
    _TERMINATED.append(signum)
    raise KeyboardInterrupt


def _interrupted_code(code: int) -> int:
    return 128 + signal.SIGTERM if _TERMINATED else code


def one_line(message: str, keep_lines: bool = False) -> str:
    """A message as one line: a value it quotes with a line break or another control
    character (an option's value, a file's key) shown escaped. With ``keep_lines`` the line
    breaks between several problems (one a line) are kept."""
    lines = message.split("\n") if keep_lines else [message]
    return "\n".join(
        "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in line)
        for line in lines
    )


def main() -> None:
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        cli(standalone_mode=False, prog_name="specverdict")
    except click.exceptions.Abort:
        sys.stderr.write("interrupted\n")
        raise SystemExit(_interrupted_code(130)) from None
    except click.exceptions.NoArgsIsHelpError as exc:  # no command: the help, as it is
        sys.stderr.write(f"{exc.format_message()}\n")
        raise SystemExit(2) from None
    except click.ClickException as exc:
        sys.stderr.write(f"specverdict: error: {one_line(exc.format_message())}\n")
        raise SystemExit(2) from None
    except UserInterruptError as exc:
        sys.stderr.write(f"interrupted{' (SIGTERM)' if _TERMINATED else ''}: {exc}\n")
        raise SystemExit(_interrupted_code(exc.exit_code)) from None
    except SpecverdictError as exc:
        sys.stderr.write(f"specverdict: error: {one_line(str(exc), keep_lines=True)}\n")
        raise SystemExit(exc.exit_code) from None
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(_interrupted_code(130)) from None
