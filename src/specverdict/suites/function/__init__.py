"""The function stage: a sample is one function to complete (HumanEval-like), scored by
running its tests in the sandbox.

- ``humaneval``, ``evalplus``, ``builtin``: the suites (HumanEval, HumanEval+/MBPP+, a built-in
  set without a scorer); ``task``: a function task and its tests; ``settings``: how a suite asks.
- ``grade``: scores one answer (extract, check, run the tests); ``harness`` runs them through the
  sandbox; ``oracles``, ``amplify``, ``profile``: the amplified tests (boundary and type-aware
  inputs against the canonical solution); ``groundtruth``: their cached expected outputs;
  ``checkast``: static checks; ``passk``: pass@k.
"""
