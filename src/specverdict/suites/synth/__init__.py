"""Generated suites the reference models can do: function, agent and repository stages.

``suites`` reads the shipped evaluation files (``data``); they are written by the generator in
``specverdict.lab.synth`` (``python -m specverdict.lab.synth.build``).
"""
