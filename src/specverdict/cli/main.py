"""Entry point of ``specverdict``.

Exit codes: 0 ok, 2 usage or configuration error, 130 interrupted; ``verdict`` and ``compare``
add 1 REJECT, 3 INCONCLUSIVE, 4 INVALID.
"""

from __future__ import annotations

import sys

import click

from specverdict import __version__
from specverdict.cli.audit import audit
from specverdict.cli.checklist import checklist
from specverdict.cli.demo import demo
from specverdict.cli.expect import expect
from specverdict.cli.report import report
from specverdict.cli.resample import resample
from specverdict.cli.run import run
from specverdict.cli.runs import runs
from specverdict.cli.suites import suites
from specverdict.cli.validate import validate
from specverdict.cli.verdict import compare, verdict
from specverdict.errors import SpecverdictError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="specverdict")
def cli() -> None:
    """Decide, per coding workload, whether a speculative-decoding setting is worth turning on.

    Example: specverdict demo
    """


cli.add_command(demo)
cli.add_command(validate)
cli.add_command(run)
cli.add_command(runs)
cli.add_command(verdict)
cli.add_command(compare)
cli.add_command(resample)
cli.add_command(report)
cli.add_command(audit)
cli.add_command(expect)
cli.add_command(checklist)
cli.add_command(suites)


def main() -> None:
    try:
        cli(standalone_mode=False, prog_name="specverdict")
    except click.exceptions.Abort:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    except click.ClickException as exc:
        sys.stderr.write(f"specverdict: error: {exc.format_message()}\n")
        raise SystemExit(2) from None
    except SpecverdictError as exc:
        sys.stderr.write(f"specverdict: error: {exc}\n")
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
