"""The ``specverdict`` command line: one thin module per command."""
