"""``python -m specverdict`` is the ``specverdict`` command."""

from specverdict.cli.main import main

main()
