"""The generator of the generated suites and of the training documents: task families
(``functions``), the bug-fix and stub tasks built on them (``tasks``), and ``build``, which
writes the shipped evaluation files into ``specverdict/suites/synth/data/`` and draws training
documents from another seed. The runtime suites (``specverdict.suites.synth``) only read the
files."""
