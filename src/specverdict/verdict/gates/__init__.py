"""The gates of a pair's verdict, each a small unit (``Gate``: a name and a step that reads the
``Pair`` and adds to the ``Findings``), run by ``judge_pair`` in the order of ``GATES``.

Adding a gate is one module here (its pure statistic in ``stats/``) and one line in ``GATES``;
a gate that decides also sets a typed result the verdict is composed from, and gets a row in
the error-rate benchmark (``benchmarks/error_rates.py``).
"""

from specverdict.verdict.gates import acceptance, conditions, looks, quality, speed, validity
from specverdict.verdict.gates._common import (
    Acceptance,
    Arm,
    Findings,
    Gate,
    Pair,
    Quality,
    Speed,
)

#: in order: a later gate reads what the earlier ones found (acceptance reads speed's means,
#: the distribution may turn quality to reject, futility reads both outcomes)
GATES: tuple[Gate, ...] = (
    validity.VALIDITY,
    looks.LOOK,
    quality.QUALITY,
    speed.SPEED,
    acceptance.ACCEPTANCE,
    quality.DISTRIBUTION,
    acceptance.IDENTITY,
    acceptance.DRIFT,
    acceptance.TRIAGE,
    looks.FUTILITY,
    conditions.TOKENS,
    conditions.LOADED_HOST,
    conditions.PREFLIGHT,
)

__all__ = ["GATES", "Acceptance", "Arm", "Findings", "Gate", "Pair", "Quality", "Speed"]
