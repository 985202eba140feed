"""Generated suites the reference models can do: function, agent and repository stages.

``functions`` holds the task families, ``tasks`` the bug-fix tasks built on them, ``build``
writes the shipped evaluation files and draws training documents, ``suites`` reads the files.
"""
