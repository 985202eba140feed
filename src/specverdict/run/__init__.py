"""The run stage: executing a campaign's plan against an engine and storing every sample.

``runner`` (one execution: resume, start or attach, measure, score, finish) with its engine
sessions, ``episodes`` (multi-turn samples), ``loadgen`` (the offered load), ``score_memo``
(scores reused for the same answer), ``sequential`` (``run --until-decided``'s looks),
``resample`` (the budget to re-run a pair), ``checklist``, ``feasibility`` and ``preflight``
(what can run, checked before anything starts), ``demo`` (the demo job) and ``executors/``
(where executions run: locally with claims, or on Ray's nodes).
"""
